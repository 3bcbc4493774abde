// jpeg.cpp: the JPEG reader: the marker segments walked to the frame header, the file bounded by that frame, then libjpeg-turbo with its warnings as errors (stb_image without libjpeg-turbo).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#if CONVCOMPARE_WITH_TURBOJPEG
#include <turbojpeg.h>
#else
#include <stb_image.h>
#endif

#include "common/domain/error.h"
#include "common/domain/image_io/reader.h"

namespace cc::image_io {

namespace {

// JPEG has to be decoded from memory, so the whole file is read first: bounded by what a JPEG of the
// size its frame header declares can need, so a 6 GB file that starts like a JPEG is refused after a
// few MB. The markers before the frame header are bounded on their own.
constexpr std::uint64_t kJpegMarkerBytes = 16u << 20;  // APPn metadata (EXIF, ICC), tables, comments
// Twice libjpeg-turbo's own worst case for a frame (tjBufSize: 2 bytes per sample at 4:4:4), for
// progressive scans and other encoders' Huffman tables.
constexpr std::uint64_t kJpegBytesPerSample = 4;

struct JpegFrame {
  long long width = 0, height = 0;
  int components = 0;
  // 8x8 blocks of all components together, from their sampling factors: each costs at least one bit
  // of entropy-coded data (a DC code; docs/correctness.md, "Input files").
  std::uint64_t blocks = 0;
};

std::uint64_t count_blocks(long long width, long long height, const unsigned char* components, int count) {
  int h_max = 1, v_max = 1;
  for (int i = 0; i < count; ++i) {
    h_max = std::max(h_max, components[3 * i + 1] >> 4);
    v_max = std::max(v_max, components[3 * i + 1] & 15);
  }
  std::uint64_t blocks = 0;
  for (int i = 0; i < count; ++i) {
    const long long h = components[3 * i + 1] >> 4, v = components[3 * i + 1] & 15;
    const long long columns = (width * h + h_max - 1) / h_max, rows = (height * v + v_max - 1) / v_max;
    blocks += static_cast<std::uint64_t>((columns + 7) / 8) * static_cast<std::uint64_t>((rows + 7) / 8);
  }
  return blocks;
}

// Reads `bytes` from `input` as far as the frame header (SOFn), walking the marker segments; nullopt
// when the stream reaches a scan, ends, or breaks the marker syntax first (the decoder then says why).
std::optional<JpegFrame> read_to_jpeg_frame(InputFile& input, std::string& bytes) {
  const auto have = [&](std::size_t count) {
    while (bytes.size() < count) {
      char chunk[4096];
      const std::size_t got = input.read_some(chunk, std::min(sizeof chunk, count - bytes.size()));
      if (got == 0) return false;
      bytes.append(chunk, got);
    }
    return true;
  };
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
  std::size_t position = 2;  // after SOI
  while (position < kJpegMarkerBytes && have(position + 2) && at(position) == 0xFF) {
    const unsigned marker = at(position + 1);
    if (marker == 0xFF) {  // fill byte
      ++position;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // TEM, RSTn: no length
      position += 2;
      continue;
    }
    if (!have(position + 4)) return std::nullopt;
    const std::size_t length = at(position + 2) << 8 | at(position + 3);
    const bool frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (frame) {
      if (length < 8 || !have(position + 10)) return std::nullopt;
      JpegFrame found{at(position + 7) << 8 | at(position + 8), at(position + 5) << 8 | at(position + 6),
                      at(position + 9)};
      if (!have(position + 10 + 3 * static_cast<std::size_t>(found.components))) return std::nullopt;
      found.blocks = count_blocks(found.width, std::max(found.height, 1LL),
                                  reinterpret_cast<const unsigned char*>(bytes.data()) + position + 10,
                                  found.components);
      return found;
    }
    if (marker == 0xDA || length < 2) return std::nullopt;  // a scan before any frame, or a broken length
    position += 2 + length;
  }
  return std::nullopt;
}

std::string read_jpeg_bytes(InputFile& input) {
  std::string bytes;
  const std::optional<JpegFrame> frame = read_to_jpeg_frame(input, bytes);
  if (!frame) return bytes;  // too broken to size: the decoder names the problem in what came
  // A height of 0 (defined later by a DNL marker) is refused by the decoder; the size check needs one.
  check_image_size(frame->width, std::max(frame->height, 1LL), frame->components == 1 ? 1 : 3, input.name());
  // The claim bounded by the bytes present, before anything is decoded: a 634-byte file whose frame
  // claims 16384x16384 would otherwise decode to 1 GB of filler.
  const std::uint64_t least = bytes.size() + (frame->blocks + 7) / 8;
  const auto too_small = [&](std::uint64_t size) {
    input.fail(fmt::format("bad JPEG: its {}x{} frame needs at least {} bytes (a bit per 8x8 block), the file has {}",
                           frame->width, frame->height, least, size));
  };
  if (const std::optional<std::uint64_t> left = input.bytes_left(); left && bytes.size() + *left < least)
    too_small(bytes.size() + *left);
  const std::uint64_t limit = kJpegMarkerBytes + bytes.size() + kJpegBytesPerSample * static_cast<std::uint64_t>(
                                                                    frame->width) * std::max(frame->height, 1LL) *
                                                                    std::max(frame->components, 1);
  std::string rest = input.read_rest(limit - bytes.size(),
                                     fmt::format("the most a {}x{} JPEG needs", frame->width, frame->height));
  if (bytes.size() + rest.size() < least) too_small(bytes.size() + rest.size());  // a stream that lied
  return bytes + rest;
}

#if CONVCOMPARE_WITH_TURBOJPEG
struct TurboJpegDestroyer {
  void operator()(void* handle) const { tjDestroy(handle); }
};

Image read_jpeg(InputFile& input) {
  const std::string bytes = read_jpeg_bytes(input);
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::unique_ptr<void, TurboJpegDestroyer> decoder(tjInitDecompress());
  if (!decoder) throw std::runtime_error(fmt::format("cannot start the JPEG decoder: {}", tjGetErrorStr2(nullptr)));
  const auto fail = [&] { input.fail(fmt::format("bad JPEG: {}", tjGetErrorStr2(decoder.get()))); };
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(decoder.get(), data, bytes.size(), &width, &height, &subsampling, &colorspace) != 0) fail();
  // A tables-only stream (or one that ends before its frame header) is "read" without any frame.
  if (width < 1 || height < 1) input.fail("bad JPEG: the data end before a frame header");
  const int channels = colorspace == TJCS_GRAY ? 1 : 3;
  const std::size_t pixel_bytes = static_cast<std::size_t>(width) * height * channels;
  check_decoded_size(input, width, height, channels, pixel_bytes);

  std::vector<unsigned char> pixels(pixel_bytes);
  // TJFLAG_LIMITSCANS: a hostile progressive file can demand thousands of scans, seconds each.
  // TJFLAG_STOPONWARNING: a warning (data cut short, corrupt entropy-coded data, stray bytes between
  // segments) means rows of decoder filler in place of pixels, so it is refused like any error.
  if (tjDecompress2(decoder.get(), data, bytes.size(), pixels.data(), width, 0, height,
                    channels == 1 ? TJPF_GRAY : TJPF_RGB, TJFLAG_LIMITSCANS | TJFLAG_STOPONWARNING) != 0)
    fail();
  return from_interleaved(pixels.data(), width, height, channels);
}
#else
// stb reports no warnings: a JPEG cut short still loads with filler rows here (docs/correctness.md).
Image read_jpeg(InputFile& input) {
  const std::string bytes = read_jpeg_bytes(input);
  int width = 0, height = 0, channels = 0;
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int size = static_cast<int>(bytes.size());
  if (!stbi_info_from_memory(data, size, &width, &height, &channels))
    input.fail(fmt::format("bad JPEG: {}", stbi_failure_reason()));
  check_decoded_size(input, width, height, channels, static_cast<std::uint64_t>(width) * height * channels);
  const std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load_from_memory(data, size, &width, &height, &channels, 0), stbi_image_free);
  if (!pixels) input.fail(fmt::format("bad JPEG: {}", stbi_failure_reason()));
  return from_interleaved(pixels.get(), width, height, channels);
}
#endif

bool recognise_jpeg(std::string_view magic) { return magic.size() >= 3 && magic.substr(0, 3) == "\xFF\xD8\xFF"; }

}  // namespace

const ImageReader kJpegReader{"JPEG", recognise_jpeg, read_jpeg};

}  // namespace cc::image_io
