// bmp.cpp: the BMP reader, our own strict decoder of uncompressed BMP (OS/2 and Windows headers; 1, 4 and 8 bits through a palette, 16, 24 and 32 bits, bit fields).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/domain/error.h"
#include "common/domain/image_io/reader.h"

namespace cc::image_io {

namespace {

// Our own rather than stb_image's: stb reads an OS/2 palette from the wrong offset, leaves
// the palette entries it did not read uninitialised, and looks up a pixel index past the palette, so
// stack bytes reached the output image. Here every entry used is read from the file and every index
// is checked against the palette; no Debian-packaged library decodes BMP alone.

constexpr std::uint32_t kFileHeaderBytes = 14;
// The pixel data follow the headers, the bit fields and the palette (at most 256 entries of 4 bytes).
constexpr std::uint32_t kLargestOffset = 14 + 124 + 1024 + 4096;

struct BmpLayout {
  long long width = 0, height = 0;  // height > 0 here; top_down says which row comes first
  bool top_down = false;
  unsigned bits = 0;
  bool os2 = false;                             // BITMAPCOREHEADER: 16-bit sizes, 3-byte palette entries
  std::array<std::uint32_t, 4> masks{};         // red, green, blue, alpha: 16- and 32-bit pixels
  bool alpha_if_any = false;                    // 32-bit BI_RGB: the fourth byte is alpha unless all are 0
  int channels = 3;
  std::vector<std::array<unsigned char, 3>> palette;  // red, green, blue
  std::uint64_t row_bytes = 0;                  // rows are padded to 4 bytes
};

std::string_view compression_problem(std::uint32_t compression) {
  switch (compression) {
    case 1: return "RLE8-compressed BMP is not supported: save it uncompressed";
    case 2: return "RLE4-compressed BMP is not supported: save it uncompressed";
    case 4: return "a BMP holding a JPEG is not supported: read the JPEG itself";
    case 5: return "a BMP holding a PNG is not supported: read the PNG itself";
    default: return "";
  }
}

// A mask must be one run of bits: (value & mask) >> shift then spans 0..mask >> shift.
bool contiguous(std::uint32_t mask) {
  if (mask == 0) return true;
  const std::uint32_t run = mask >> std::countr_zero(mask);
  return (run & (run + 1)) == 0;
}

// The headers, bit fields and palette, from the bytes before the pixel data (`head`, `offset` bytes).
BmpLayout parse_layout(const InputFile& input, std::string_view head, std::uint32_t header_size) {
  const auto* h = reinterpret_cast<const unsigned char*>(head.data());
  BmpLayout layout;
  std::uint32_t compression = 0, colours_used = 0;
  unsigned planes = 0;
  layout.os2 = header_size == 12;
  if (layout.os2) {
    layout.width = little_endian_16(h + 18), layout.height = little_endian_16(h + 20);
    planes = little_endian_16(h + 22), layout.bits = little_endian_16(h + 24);
  } else {
    layout.width = static_cast<std::int32_t>(little_endian_32(h + 18));
    layout.height = static_cast<std::int32_t>(little_endian_32(h + 22));  // negative: rows stored top to bottom
    planes = little_endian_16(h + 26), layout.bits = little_endian_16(h + 28);
    compression = little_endian_32(h + 30), colours_used = little_endian_32(h + 46);
  }
  layout.top_down = layout.height < 0;
  layout.height = std::llabs(layout.height);
  if (const std::string_view problem = compression_problem(compression); !problem.empty()) input.fail(problem);
  const bool bit_fields = compression == 3 || compression == 6;  // BI_BITFIELDS, BI_ALPHABITFIELDS
  if (compression != 0 && !bit_fields) input.fail(fmt::format("bad BMP: unknown compression {}", compression));
  if (planes != 1) input.fail(fmt::format("bad BMP: {} colour planes (a BMP has 1)", planes));
  const unsigned bits = layout.bits;
  const bool known_bits = bit_fields ? bits == 16 || bits == 32
                                     : bits == 1 || bits == 4 || bits == 8 || bits == 24 || (!layout.os2 && (bits == 16 || bits == 32));
  if (!known_bits)
    input.fail(fmt::format("bad BMP: {} bits per pixel{} (1, 4, 8, 16, 24 or 32; 16 or 32 with bit fields)", bits,
                           bit_fields ? " with bit fields" : ""));
  check_image_size(layout.width, layout.height, 1, input.name());
  layout.row_bytes = (static_cast<std::uint64_t>(layout.width) * bits + 31) / 32 * 4;

  std::uint32_t after_header = kFileHeaderBytes + header_size;
  if (bit_fields) {
    // In a BITMAPINFOHEADER the masks follow it (three, four with BI_ALPHABITFIELDS); larger headers hold them.
    const std::uint32_t count = header_size >= 56 || (header_size == 40 && compression == 6) ? 4 : 3;
    const std::uint32_t at = header_size == 40 ? after_header : kFileHeaderBytes + 40;
    if (header_size == 40) after_header += 4 * count;
    if (at + 4 * count > head.size()) input.fail("bad BMP: its bit fields run into the pixel data");
    for (std::uint32_t i = 0; i < count; ++i) layout.masks[i] = little_endian_32(h + at + 4 * i);
    const std::uint64_t pixel_range = bits == 32 ? 0xFFFFFFFFull : 0xFFFFull;
    for (std::uint32_t mask : layout.masks)
      if (!contiguous(mask) || mask > pixel_range)
        input.fail(fmt::format("bad BMP: bit field mask {:#x} is not one run of bits within a {}-bit pixel", mask, bits));
    if (layout.masks[0] == 0 || layout.masks[1] == 0 || layout.masks[2] == 0)
      input.fail("bad BMP: a red, green or blue bit field mask is 0");
    layout.channels = layout.masks[3] ? 4 : 3;
  } else if (bits == 16) {
    layout.masks = {0x7C00, 0x03E0, 0x001F, 0};  // 5-5-5, the BI_RGB meaning of 16 bits
  } else if (bits == 32) {
    layout.masks = {0xFF0000, 0xFF00, 0xFF, 0xFF000000};
    layout.alpha_if_any = true;
    layout.channels = 4;
  }
  if (after_header > head.size())
    input.fail(fmt::format("bad BMP: its pixel data start at byte {}, inside its header", head.size()));

  if (bits <= 8) {
    // The palette lies between the headers and the pixel data: every entry the header declares must be
    // there (all 2^bits when it declares none and there is room), and no pixel may index past it.
    const std::uint32_t entry_bytes = layout.os2 ? 3 : 4, room = static_cast<std::uint32_t>(head.size() - after_header) / entry_bytes;
    const std::uint32_t most = 1u << bits;
    if (colours_used > most)
      input.fail(fmt::format("bad BMP: a {}-bit BMP has at most {} palette entries, its header declares {}", bits, most,
                             colours_used));
    const std::uint32_t entries = colours_used ? colours_used : std::min(most, room);
    if (entries == 0) input.fail(fmt::format("bad BMP: a {}-bit BMP needs a palette and this one has none", bits));
    if (entries > room)
      input.fail(fmt::format("bad BMP: its {} palette entries do not fit before its pixel data at byte {}", entries,
                             head.size()));
    for (std::uint32_t i = 0; i < entries; ++i) {
      const unsigned char* entry = h + after_header + i * entry_bytes;  // stored blue, green, red
      layout.palette.push_back({entry[2], entry[1], entry[0]});
    }
  }
  return layout;
}

// One 16- or 32-bit value's field scaled to 0..255, as the mask's width allows.
unsigned char field(std::uint32_t value, std::uint32_t mask) {
  const int shift = std::countr_zero(mask);
  const std::uint64_t top = mask >> shift;
  return static_cast<unsigned char>((((value & mask) >> shift) * 255 + top / 2) / top);
}

Image decode_pixels(const InputFile& input, const BmpLayout& layout, const std::string& data) {
  const int width = static_cast<int>(layout.width), height = static_cast<int>(layout.height);
  Image image(width, height, layout.channels, true);
  bool any_alpha = false;
  for (int row = 0; row < height; ++row) {
    const int y = layout.top_down ? row : height - 1 - row;
    const auto* bytes = reinterpret_cast<const unsigned char*>(data.data()) + layout.row_bytes * row;
    for (int x = 0; x < width; ++x) {
      if (layout.bits <= 8) {
        const unsigned per_byte = 8 / layout.bits;
        const unsigned shift = 8 - layout.bits * (x % per_byte + 1);
        const unsigned index = (bytes[x / per_byte] >> shift) & ((1u << layout.bits) - 1);
        if (index >= layout.palette.size())
          input.fail(fmt::format("bad BMP: pixel ({}, {}) is palette entry {} of a {}-entry palette", x, y, index,
                                 layout.palette.size()));
        for (int c = 0; c < 3; ++c) image.at(c, y, x) = layout.palette[index][c];
      } else if (layout.bits == 24) {
        for (int c = 0; c < 3; ++c) image.at(c, y, x) = bytes[3 * x + 2 - c];
      } else {
        const std::uint32_t value = layout.bits == 16 ? little_endian_16(bytes + 2 * x) : little_endian_32(bytes + 4 * x);
        for (int c = 0; c < layout.channels; ++c) image.at(c, y, x) = field(value, layout.masks[c]);
        any_alpha = any_alpha || (layout.channels == 4 && (value & layout.masks[3]) != 0);
      }
    }
  }
  // A 32-bit BI_RGB file whose fourth bytes are all 0 did not use them as alpha: opaque, as stb read it.
  if (layout.alpha_if_any && !any_alpha)
    std::fill(image.data.begin() + 3 * image.plane_size(), image.data.end(), 255.0f);
  return image;
}

Image read_bmp(InputFile& input) {
  const std::string_view start = input.peek(kFileHeaderBytes + 4);
  if (start.size() < kFileHeaderBytes + 4) input.fail("truncated BMP header");
  const auto* s = reinterpret_cast<const unsigned char*>(start.data());
  const std::uint32_t offset = little_endian_32(s + 10), header_size = little_endian_32(s + 14);
  if (header_size != 12 && header_size != 40 && header_size != 52 && header_size != 56 && header_size != 108 &&
      header_size != 124)
    input.fail(fmt::format("bad BMP: a header of {} bytes (BMP headers have 12, 40, 52, 56, 108 or 124)", header_size));
  if (offset > kLargestOffset)
    input.fail(fmt::format("bad BMP: its pixel data start at byte {}, past any BMP header and palette", offset));
  if (offset < kFileHeaderBytes + header_size)
    input.fail(fmt::format("bad BMP: its pixel data start at byte {}, inside its header", offset));
  // Everything before the pixel data (at most kLargestOffset bytes), then exactly the pixel array the
  // header fixes: a shorter file is refused, and nothing past it is read (a V5 profile may follow).
  const std::string head = input.read_up_to(offset);
  if (head.size() < offset)
    input.fail(fmt::format("truncated BMP: the file ends at byte {}, before its pixel data at byte {}", head.size(), offset));
  const BmpLayout layout = parse_layout(input, head, header_size);
  const std::uint64_t data_bytes = layout.row_bytes * layout.height, needed = offset + data_bytes;
  const auto truncated = [&](std::string_view ended, std::uint64_t has) {
    input.fail(fmt::format("truncated BMP: {}x{} pixels of {} bits need {} bytes, {} {}", layout.width, layout.height,
                           layout.bits, needed, ended, has));
  };
  if (const std::optional<std::uint64_t> left = input.bytes_left(); left && *left < data_bytes)
    truncated("the file has", offset + *left);
  check_decoded_size(input, layout.width, layout.height, layout.channels, data_bytes);
  // Read as it arrives, up to what the header needs: a stream that lies costs only what it sends.
  const std::string data = input.read_up_to(data_bytes);
  if (data.size() < data_bytes) truncated("the stream ended after", offset + data.size());
  return decode_pixels(input, layout, data);
}

bool recognise_bmp(std::string_view magic) { return magic.size() >= 2 && magic.substr(0, 2) == "BM"; }

}  // namespace

const ImageReader kBmpReader{"BMP", recognise_bmp, read_bmp};

}  // namespace cc::image_io
