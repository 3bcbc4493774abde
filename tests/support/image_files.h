// image_files.h: generators of image files byte by byte (PNG chunks, BMP, PFM, JPEG headers), so tests make their inputs, good and hostile, instead of storing them.
#pragma once

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace cc::test {

inline std::string big_endian_bytes(std::uint32_t value) {
  return {static_cast<char>(value >> 24), static_cast<char>(value >> 16), static_cast<char>(value >> 8),
          static_cast<char>(value)};
}

inline std::string little_endian_bytes(std::uint32_t value, int count = 4) {
  std::string bytes;
  for (int i = 0; i < count; ++i) bytes += static_cast<char>(value >> (8 * i));
  return bytes;
}

inline std::string float_bytes(float value) { return little_endian_bytes(std::bit_cast<std::uint32_t>(value)); }

inline void write_binary(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// --- PNG ---
inline std::uint32_t crc_of(const std::string& bytes) {
  return static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

// Length, type, data and the CRC over type and data.
inline std::string png_chunk(const std::string& type, const std::string& data) {
  return big_endian_bytes(static_cast<std::uint32_t>(data.size())) + type + data + big_endian_bytes(crc_of(type + data));
}

inline std::string zlib_compress(const std::string& raw) {
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string out(size, '\0');
  compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
            static_cast<uLong>(raw.size()), 9);
  out.resize(size);
  return out;
}

// `raw` then `zero_bytes` zeros as one zlib stream, deflated in pieces (a 1.5 GB tail never exists in
// memory): the body of an inflate bomb.
inline std::string zlib_with_zero_tail(const std::string& raw, std::uint64_t zero_bytes) {
  z_stream stream{};
  // Run-length matches only (distance 1): the zeros compress as tightly as at level 9's full search
  // (1032:1), three times as fast (1.5 GB: 9 -> 3 s, twice per hostile suite).
  deflateInit2(&stream, 9, Z_DEFLATED, 15, 8, Z_RLE);
  std::string out;
  const std::string zeros(1 << 20, '\0');
  char buffer[1 << 16];
  const auto feed = [&](const std::string& piece, int flush) {
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece.data()));
    stream.avail_in = static_cast<uInt>(piece.size());
    do {
      stream.next_out = reinterpret_cast<Bytef*>(buffer);
      stream.avail_out = sizeof buffer;
      deflate(&stream, flush);
      out.append(buffer, sizeof buffer - stream.avail_out);
    } while (stream.avail_out == 0);
  };
  feed(raw, Z_NO_FLUSH);
  for (std::uint64_t left = zero_bytes; left > 0;) {
    const std::size_t piece = static_cast<std::size_t>(std::min<std::uint64_t>(left, zeros.size()));
    feed(zeros.substr(0, piece), Z_NO_FLUSH);
    left -= piece;
  }
  feed("", Z_FINISH);
  deflateEnd(&stream);
  return out;
}

struct PngSpec {
  PngSpec(std::uint32_t width, std::uint32_t height, int bit_depth, int colour_type, std::string rows)
      : width(width), height(height), bit_depth(bit_depth), colour_type(colour_type), rows(std::move(rows)) {}
  std::uint32_t width = 0, height = 0;
  int bit_depth = 8;
  int colour_type = 0;         // 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA
  std::string rows;            // filtered scanlines (a filter byte, then the row's bytes), uncompressed
  std::string before_idat;     // chunks between IHDR and IDAT (PLTE, tRNS...)
  std::size_t idat_split = 0;  // split the zlib stream into IDAT chunks of this many bytes (0: one)
};

inline std::string png_file(const PngSpec& spec, const std::string& zlib_stream) {
  const std::string ihdr = big_endian_bytes(spec.width) + big_endian_bytes(spec.height) +
                           static_cast<char>(spec.bit_depth) + static_cast<char>(spec.colour_type) +
                           std::string(3, '\0');
  std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) + spec.before_idat;
  const std::size_t step = spec.idat_split ? spec.idat_split : zlib_stream.size();
  for (std::size_t i = 0; i < zlib_stream.size(); i += step) png += png_chunk("IDAT", zlib_stream.substr(i, step));
  return png + png_chunk("IEND", "");
}

inline std::string png_file(const PngSpec& spec) { return png_file(spec, zlib_compress(spec.rows)); }

// 8-bit rows with filter 0 from `pixel(x, y, sample)`, `samples` bytes per pixel.
template <typename Pixel>
std::string png_rows(int width, int height, int samples, const Pixel& pixel) {
  std::string rows;
  for (int y = 0; y < height; ++y) {
    rows += '\0';
    for (int x = 0; x < width; ++x)
      for (int s = 0; s < samples; ++s) rows += static_cast<char>(pixel(x, y, s));
  }
  return rows;
}

// --- BMP: 24-bit, BITMAPINFOHEADER; top_down writes a negative height and rows top first ---
template <typename Pixel>
std::string bmp_file(int width, int height, bool top_down, const Pixel& rgb) {
  const int row_bytes = (width * 3 + 3) / 4 * 4;
  std::string data;
  for (int i = 0; i < height; ++i) {
    const int y = top_down ? i : height - 1 - i;
    std::string row;
    for (int x = 0; x < width; ++x)
      for (int c = 2; c >= 0; --c) row += static_cast<char>(rgb(x, y, c));  // stored B, G, R
    row.resize(row_bytes, '\0');
    data += row;
  }
  const std::uint32_t offset = 14 + 40;
  return "BM" + little_endian_bytes(offset + static_cast<std::uint32_t>(data.size())) + little_endian_bytes(0) +
         little_endian_bytes(offset) + little_endian_bytes(40) + little_endian_bytes(width) +
         little_endian_bytes(static_cast<std::uint32_t>(top_down ? -height : height)) + little_endian_bytes(1, 2) +
         little_endian_bytes(24, 2) + little_endian_bytes(0) + little_endian_bytes(static_cast<std::uint32_t>(data.size())) +
         little_endian_bytes(2835) + little_endian_bytes(2835) + little_endian_bytes(0) + little_endian_bytes(0) + data;
}

// --- PFM: one channel, little endian, rows bottom to top, from `value(x, y)` ---
template <typename Value>
std::string pfm_file(int width, int height, const Value& value) {
  std::string bytes = "Pf\n" + std::to_string(width) + " " + std::to_string(height) + "\n-1\n";
  for (int y = height - 1; y >= 0; --y)
    for (int x = 0; x < width; ++x) bytes += float_bytes(value(x, y));
  return bytes;
}

// --- JPEG: SOI and a baseline frame header claiming width x height grey, then `rest` ---
inline std::string jpeg_header(int width, int height, const std::string& rest = "") {
  std::string frame = std::string("\xFF\xD8\xFF\xC0\x00\x0B\x08", 7);
  frame += static_cast<char>(height >> 8), frame += static_cast<char>(height);
  frame += static_cast<char>(width >> 8), frame += static_cast<char>(width);
  return frame + std::string("\x01\x01\x11\x00", 4) + rest;
}

}  // namespace cc::test
