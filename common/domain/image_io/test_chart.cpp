// test_chart.cpp: make_default_image, the embedded test chart (edges, gradients, fine texture, small detail) made in integer arithmetic, so the tool needs no image file.
#include <algorithm>
#include <cstdlib>

#include "common/domain/image_io.h"

namespace cc {

// The default test chart, one value per pixel from integer arithmetic only (no libm), so it is the same
// on every machine and every integer filter stays bit-exact. Four quadrants:
//   top-left      smooth gradient, a filled and an outlined rectangle, a 45-degree line (straight edges)
//   top-right     a disc on the gradient (curved edges)
//   bottom-left   single-pixel dots, 1-pixel lines, bars 1 to 4 pixels wide (small detail)
//   bottom-right  1- and 2-pixel checkerboards, a period-4 grating and a zone plate (high frequencies)
// Each channel gets its own gradient direction and shape colours, so planes differ.
Image make_default_image(int width, int height, int channels) {
  check_image_size(width, height, channels, "default image");
  Image image(width, height, channels, true);
  const long long w = width, h = height, side = std::min(w, h);
  // Shape colours by channel, and one period of a sampled cosine grating (128 + 100 cos(2 pi x / 4)).
  static constexpr int kDark[4] = {16, 96, 176, 40}, kBright[4] = {240, 200, 64, 250},
                       kDisc[4] = {232, 48, 160, 220}, kPeriod4[4] = {228, 128, 28, 128};

  auto chart = [&](long long x, long long y, int c) -> int {
    const long long wx = std::max(w - 1, 1LL), hy = std::max(h - 1, 1LL);
    int gradient = 0;
    switch (c) {
      case 0: gradient = static_cast<int>(32 + 96 * x / wx + 96 * y / hy); break;
      case 1: gradient = static_cast<int>(32 + 96 * (wx - x) / wx + 96 * y / hy); break;
      case 2: gradient = static_cast<int>(32 + 192 * y / hy); break;
      default: gradient = static_cast<int>(160 + 80 * x / wx); break;
    }
    const bool left = 2 * x < w, top = 2 * y < h;
    if (left && top) {
      if (std::llabs(x - y) <= 1) return kBright[c];  // 3-pixel 45-degree line
      if (20 * x >= 2 * w && 20 * x < 7 * w && 20 * y >= 2 * h && 20 * y < 5 * h) return kDark[c];
      const bool outer = 20 * x >= 2 * w && 20 * x < 8 * w && 20 * y >= 6 * h && 20 * y < 9 * h;
      const long long border = std::max(1LL, side / 256);
      const bool inner = 20 * x >= 2 * w + 20 * border && 20 * x < 8 * w - 20 * border &&
                         20 * y >= 6 * h + 20 * border && 20 * y < 9 * h - 20 * border;
      if (outer && !inner) return kBright[c];
      return gradient;
    }
    if (!left && top) {
      const long long dx = 4 * x - 3 * w, dy = 4 * y - h;  // centre (3w/4, h/4), in quarter pixels
      const long long radius = 4 * side * 9 / 50;
      if (dx * dx + dy * dy <= radius * radius) return kDisc[c];
      return gradient;
    }
    if (left) {  // bottom-left: small detail on a flat mid grey
      const long long lx = x, ly = y - h / 2, qw = w / 2, qh = h - h / 2;
      if (2 * ly < qh) {
        if (lx % 8 == 4 && ly % 8 == 4) return 255;                   // single-pixel dots
        if (ly % 16 == 0 || (lx % 32 == 0 && 2 * lx > qw)) return 0;  // 1-pixel lines
        return 128;
      }
      // Bar groups of widths 1, 2, 3, 4, each five bars and five gaps: vertical bars above horizontal
      // ones, so x and y derivative filters both have something to find.
      const long long group = std::max(1LL, qw / 4), bar = std::min(lx / group, 3LL) + 1, span = 10 * bar;
      const long long bx = lx - (bar - 1) * group - (group - span) / 2, by = ly - qh / 2, band = qh - qh / 2;
      if (bx < 0 || bx >= span) return 128;
      long long stripe = bx;
      if (2 * by < band) {
        if (8 * by < band || 8 * (band / 2 - by) < band) return 128;
      } else {
        stripe = by - band / 2 - (band - band / 2 - span) / 2;
        if (stripe < 0 || stripe >= span) return 128;
      }
      return (stripe / bar) % 2 == 0 ? 16 : 240;
    }
    // bottom-right: four texture cells
    const long long tx = x - w / 2, ty = y - h / 2, tw = w - w / 2, th = h - h / 2;
    const bool cell_left = 2 * tx < tw, cell_top = 2 * ty < th;
    if (cell_top && cell_left) return (x + y) % 2 ? 224 : 32;          // 1-pixel checkerboard
    if (cell_top) return kPeriod4[x % 4];                              // period-4 grating
    if (cell_left) {                                                   // zone plate
      const long long dx = 2 * tx - tw / 2, dy = 2 * ty - 3 * th / 2;  // half-pixel units
      // The local frequency grows with the radius and reaches 1/2 cycle per pixel at the cell's edge.
      const long long phase = (dx * dx + dy * dy) * 256 / side % 512;
      return static_cast<int>(phase < 256 ? phase : 511 - phase);
    }
    return ((x / 2) + (y / 2)) % 2 ? 200 : 56;  // 2-pixel checkerboard
  };

  for (int c = 0; c < channels; ++c)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) image.at(c, y, x) = static_cast<float>(chart(x, y, c));
  return image;
}

}  // namespace cc
