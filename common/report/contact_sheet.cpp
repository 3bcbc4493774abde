// contact_sheet.cpp: tiles scaled with stb_image_resize into one picture, labels under them drawn by cairo (none in a build without it).
#include "common/report/contact_sheet.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include <fmt/format.h>
// The one translation unit that compiles stb_image_resize (stb_image and stb_image_write: stb_impl.cpp).
#define STB_IMAGE_RESIZE_IMPLEMENTATION
#include <stb_image_resize.h>

#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "common/report/canvas.h"

namespace cc {

namespace {

constexpr int kGap = 12, kLabelHeight = 30, kMinCellWidth = 200, kColumns = 4;
constexpr double kLabelSize = 15;
// The label a warm white: its antialiased edges over the grey background are never a neutral grey, so a
// grey tile's pixels stay countable.
constexpr Rgb kBackground{46, 46, 46}, kLabelColour{240, 236, 220};

struct Tile {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // interleaved
};

// Interleaved RGB in 0..1 at the image's own size: what a person should see of the image.
std::vector<float> display_rgb(const Image& image) {
  const int colour_channels = image.channels >= 3 ? 3 : 1;  // 2 channels: grey + alpha, the alpha unseen
  float lo = 0, hi = 255;
  if (!image.eight_bit) {
    lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (int c = 0; c < colour_channels; ++c)
      for (std::size_t i = 0; i < image.plane_size(); ++i)
        if (const float v = image.plane(c)[i]; std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    if (!(hi > lo)) hi = lo + 1;  // a flat (or all-NaN) image shows as black, not a division by zero
  }
  std::vector<float> rgb(image.plane_size() * 3);
  for (std::size_t i = 0; i < image.plane_size(); ++i)
    for (int c = 0; c < 3; ++c) {
      const float v = image.plane(colour_channels == 3 ? c : 0)[i];
      rgb[i * 3 + c] = std::isfinite(v) ? std::clamp((v - lo) / (hi - lo), 0.0f, 1.0f) : 0.0f;
    }
  return rgb;
}

Tile make_tile(const Image& image) {
  std::vector<float> rgb = display_rgb(image);
  Tile tile{image.width, image.height, {}};
  const int longer = std::max(image.width, image.height);
  if (longer > kContactTileSize) {
    tile.width =
        std::max(1, static_cast<int>(std::lround(static_cast<double>(image.width) * kContactTileSize / longer)));
    tile.height =
        std::max(1, static_cast<int>(std::lround(static_cast<double>(image.height) * kContactTileSize / longer)));
    std::vector<float> scaled(static_cast<std::size_t>(tile.width) * tile.height * 3);
    if (!stbir_resize_float(rgb.data(), image.width, image.height, 0, scaled.data(), tile.width, tile.height, 0,
                            3))
      throw InputError(fmt::format("cannot scale a {}x{} image for the contact sheet", image.width, image.height));
    rgb = std::move(scaled);
  }
  tile.rgb.resize(rgb.size());
  for (std::size_t i = 0; i < rgb.size(); ++i)
    tile.rgb[i] = static_cast<std::uint8_t>(std::lround(std::clamp(rgb[i], 0.0f, 1.0f) * 255));
  return tile;
}

// The label at the largest size up to kLabelSize that fits the cell, shortened if even 9 px is too wide.
void draw_label(Canvas& canvas, std::string label, Point centre, double width) {
  double size = std::min(kLabelSize, kLabelSize * width / std::max(1.0, text_width(label, kLabelSize)));
  if (size < 9) {
    size = 9;
    while (label.size() > 3 && text_width(label + "...", size) > width) label.pop_back();
    label += "...";
  }
  canvas.text(centre, label, size, kLabelColour, Align::Centre);
}

}  // namespace

void write_contact_sheet(const std::vector<LabelledImage>& tiles, const std::string& path) {
  if (tiles.empty()) throw InputError(fmt::format("cannot write contact sheet '{}': no images", path));
  std::vector<Tile> scaled;
  int cell_width = kMinCellWidth, tile_height = 1;
  for (const LabelledImage& tile : tiles) {
    if (!tile.image || tile.image->empty())
      throw InputError(fmt::format("cannot write contact sheet '{}': '{}' has no pixels", path, tile.label));
    scaled.push_back(make_tile(*tile.image));
    cell_width = std::max(cell_width, scaled.back().width);
    tile_height = std::max(tile_height, scaled.back().height);
  }
  const int count = static_cast<int>(tiles.size());
  const int columns = std::min(count, kColumns), rows = (count + kColumns - 1) / kColumns;
  const int row_height = tile_height + kLabelHeight + kGap;
  const int width = kGap + columns * (cell_width + kGap), height = kGap + rows * row_height;
  // The tiles composed here, bottom-aligned so every label sits right under its image.
  Tile sheet{width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height * 3)};
  for (std::size_t i = 0; i < sheet.rgb.size(); i += 3)
    std::tie(sheet.rgb[i], sheet.rgb[i + 1], sheet.rgb[i + 2]) = std::tie(kBackground.r, kBackground.g, kBackground.b);
  for (int i = 0; i < count; ++i) {
    const int left = kGap + (i % kColumns) * (cell_width + kGap) + (cell_width - scaled[i].width) / 2;
    const int top = kGap + (i / kColumns) * row_height + tile_height - scaled[i].height;
    for (int row = 0; row < scaled[i].height; ++row)
      std::copy_n(&scaled[i].rgb[static_cast<std::size_t>(row) * scaled[i].width * 3], scaled[i].width * 3,
                  &sheet.rgb[(static_cast<std::size_t>(top + row) * width + left) * 3]);
  }
  if (!canvas_available()) {  // unlabelled: the pixels alone, as a PNG
    Image image(width, height, 3, true);
    for (std::size_t p = 0; p < image.plane_size(); ++p)
      for (int c = 0; c < 3; ++c) image.plane(c)[p] = sheet.rgb[p * 3 + c];
    save_png(image, path);
    return;
  }
  Canvas canvas(CanvasFormat::Png, width, {height}, kBackground);
  canvas.draw_pixels(0, 0, width, height, sheet.rgb);
  for (int i = 0; i < count; ++i) {
    const int left = kGap + (i % kColumns) * (cell_width + kGap), top = kGap + (i / kColumns) * row_height;
    draw_label(canvas, tiles[i].label, {left + cell_width / 2.0, top + tile_height + kLabelHeight / 2.0},
               cell_width - 8.0);
  }
  canvas.save(path);
}

}  // namespace cc
