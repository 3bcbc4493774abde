// image_io.cpp: image readers bounded by their headers (PNG via libspng, JPEG via libjpeg-turbo, BMP via stb, PFM by hand), atomic writes, the default image.
#include "common/domain/image_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spng.h>
#include <stb_image.h>
#include <stb_image_write.h>
#if CONVCOMPARE_WITH_TURBOJPEG
#include <turbojpeg.h>
#endif

#include "common/domain/error.h"
#include "common/domain/input_file.h"
#include "common/domain/memory.h"
#include "common/domain/temporary_files.h"

namespace cc {

namespace {

std::uint32_t big_endian_32(const unsigned char* bytes) {
  return std::uint32_t{bytes[0]} << 24 | std::uint32_t{bytes[1]} << 16 | std::uint32_t{bytes[2]} << 8 | bytes[3];
}
std::uint32_t little_endian_32(const unsigned char* bytes) {
  return std::uint32_t{bytes[3]} << 24 | std::uint32_t{bytes[2]} << 16 | std::uint32_t{bytes[1]} << 8 | bytes[0];
}
unsigned little_endian_16(const unsigned char* bytes) { return unsigned{bytes[1]} << 8 | bytes[0]; }

// The size check every decoder makes once it knows the size, before it allocates anything: the pixel
// caps of image.h, then the host memory for the float image plus the decoder's own `extra` bytes.
void check_decoded_size(const InputFile& input, long long width, long long height, int channels,
                        std::uint64_t extra = 0) {
  check_image_size(width, height, channels, input.name());
  const std::uint64_t floats = static_cast<std::uint64_t>(width) * height * channels * sizeof(float);
  check_host_memory(floats + extra, fmt::format("decoding {} ({}x{}, {} channel{})", input.name(), width, height,
                                                channels, channels == 1 ? "" : "s"));
}

// Planar floats on the 0..255 scale from a decoder's interleaved 8-bit pixels, keeping `channels`
// of every `stride` bytes per pixel (an RGBA8 decode of a grey+alpha PNG keeps bytes 0 and 3).
Image from_interleaved(const unsigned char* interleaved, int width, int height, int channels, int stride = 0,
                       const int* picked = nullptr) {
  if (stride == 0) stride = channels;
  Image image(width, height, channels, true);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x, interleaved += stride)
      for (int c = 0; c < channels; ++c) image.at(c, y, x) = interleaved[picked ? picked[c] : c];
  return image;
}

// --- PFM -----------------------------------------------------------------------------------------
// The grammar (docs/correctness.md, "Input files"): "Pf" or "PF", '\n', WIDTH ' ' HEIGHT '\n', SCALE
// '\n', then exactly WIDTH x HEIGHT x channels little- or big-endian float32 values, rows bottom to
// top. Nothing else is accepted: another separator, a CR, a sign on a size, a scale of 0, NaN or Inf,
// missing or extra data are each refused with the reason.

constexpr std::size_t kPfmLineLimit = 40;  // "32768 32768" and any sane scale fit many times over

// One header line without its '\n'; the line is refused if it ends otherwise or runs too long.
std::string read_pfm_line(InputFile& input, std::string_view field) {
  std::string line;
  for (;;) {
    char c = 0;
    if (!input.read_exact(&c, 1))
      input.fail(fmt::format("truncated PFM header: the file ends in the {} line", field));
    if (c == '\n') return line;
    if (c == '\r') input.fail(fmt::format("PFM {} line ends in CR LF; PFM header lines end with a single LF", field));
    line += c;
    if (line.size() > kPfmLineLimit)
      input.fail(fmt::format("PFM {} line '{}...' is too long (a PFM header line ends with LF)", field, printable(line, 40)));
  }
}

bool all_of_chars(std::string_view text, std::string_view allowed) {
  return !text.empty() && text.find_first_not_of(allowed) == std::string_view::npos;
}

struct PfmHeader {
  int width = 0, height = 0, channels = 0;
  bool swap = false;  // file byte order differs from this machine's
};

PfmHeader read_pfm_header(InputFile& input) {
  PfmHeader header;
  char magic[3] = {};
  if (!input.read_exact(magic, 3) || magic[0] != 'P' || (magic[1] != 'f' && magic[1] != 'F') || magic[2] != '\n')
    input.fail("not a PFM file: it must start with \"Pf\" or \"PF\" and a line feed");
  header.channels = magic[1] == 'f' ? 1 : 3;

  const std::string size = read_pfm_line(input, "size");
  const std::size_t space = size.find(' ');
  const std::string_view width_text = std::string_view(size).substr(0, space);
  const std::string_view height_text = space == std::string::npos ? "" : std::string_view(size).substr(space + 1);
  long long width = 0, height = 0;
  const auto number = [](std::string_view digits, long long& value) {
    return all_of_chars(digits, "0123456789") && digits.size() <= 10 &&
           std::from_chars(digits.data(), digits.data() + digits.size(), value).ec == std::errc();
  };
  if (!number(width_text, width) || !number(height_text, height))
    input.fail(fmt::format("bad PFM size line '{}': expected WIDTH HEIGHT, two decimal numbers and one space",
                           printable(size, 40)));
  check_image_size(width, height, header.channels, input.name());
  header.width = static_cast<int>(width);
  header.height = static_cast<int>(height);

  const std::string scale_text = read_pfm_line(input, "scale");
  double scale = 0;
  if (!all_of_chars(scale_text, "0123456789.eE+-") ||
      std::from_chars(scale_text.data(), scale_text.data() + scale_text.size(), scale).ptr !=
          scale_text.data() + scale_text.size() ||
      !std::isfinite(scale) || scale == 0)
    input.fail(fmt::format("bad PFM scale '{}': a finite decimal number other than 0 is required (its sign gives "
                           "the byte order)",
                           printable(scale_text, 40)));
  header.swap = (scale < 0) != (std::endian::native == std::endian::little);
  return header;
}

// File rows [first, first + count) from `bytes` into the image (rows are stored bottom to top).
void store_pfm_rows(Image& image, const PfmHeader& header, int first, int count, const char* bytes) {
  for (int file_row = first; file_row < first + count; ++file_row) {
    const int y = image.height - 1 - file_row;
    for (int x = 0; x < header.width; ++x)
      for (int c = 0; c < header.channels; ++c, bytes += sizeof(std::uint32_t)) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, bytes, sizeof bits);
        if (header.swap) bits = __builtin_bswap32(bits);
        image.at(c, y, x) = std::bit_cast<float>(bits);
      }
  }
}

Image read_pfm(InputFile& input) {
  const PfmHeader header = read_pfm_header(input);
  const std::size_t row_bytes = static_cast<std::size_t>(header.width) * header.channels * sizeof(float);
  const std::uint64_t data_bytes = static_cast<std::uint64_t>(row_bytes) * header.height;
  const auto shape = fmt::format("{}x{}x{} floats", header.width, header.height, header.channels);

  if (const std::optional<std::uint64_t> left = input.bytes_left()) {
    // A regular file: its size must be exactly the header's, checked before anything is allocated.
    if (*left < data_bytes)
      input.fail(fmt::format("truncated PFM: {} need {} bytes of data, the file has {}", shape, data_bytes, *left));
    if (*left > data_bytes)
      input.fail(fmt::format("PFM has {} bytes after its {} ({} bytes of data)", *left - data_bytes, shape, data_bytes));
    check_decoded_size(input, header.width, header.height, header.channels, row_bytes);
    Image image(header.width, header.height, header.channels, false);
    std::vector<char> row(row_bytes);
    for (int file_row = 0; file_row < header.height; ++file_row) {
      if (!input.read_exact(row.data(), row.size()))
        input.fail(fmt::format("truncated PFM: the data end in row {} of {}", file_row, header.height));
      store_pfm_rows(image, header, file_row, 1, row.data());
    }
    return image;
  }

  // A stream has no size to check: the data are gathered in blocks of whole rows as they arrive, so a
  // header that lies costs no more memory than the bytes that really came, and the image is made last.
  constexpr std::size_t kBlockBytes = 16u << 20;
  const int rows_per_block = static_cast<int>(std::max<std::size_t>(1, kBlockBytes / row_bytes));
  std::vector<std::vector<char>> blocks;
  for (int file_row = 0; file_row < header.height; file_row += rows_per_block) {
    const int rows = std::min(rows_per_block, header.height - file_row);
    std::vector<char>& block = blocks.emplace_back();
    block.resize(row_bytes * rows);
    std::size_t got = 0;
    while (got < block.size()) {
      const std::size_t n = input.read_some(block.data() + got, block.size() - got);
      if (n == 0)
        input.fail(fmt::format("truncated PFM: {} need {} bytes of data, the stream ended after {}", shape,
                               data_bytes, static_cast<std::uint64_t>(file_row) * row_bytes + got));
      got += n;
    }
  }
  if (!input.at_end()) input.fail(fmt::format("PFM has more data after its {} ({} bytes)", shape, data_bytes));
  check_decoded_size(input, header.width, header.height, header.channels);
  Image image(header.width, header.height, header.channels, false);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const int first = static_cast<int>(b) * rows_per_block;
    store_pfm_rows(image, header, first, std::min(rows_per_block, header.height - first), blocks[b].data());
    std::vector<char>().swap(blocks[b]);  // freed as it is copied: the peak stays near one image
  }
  return image;
}

// --- PNG, through libspng ------------------------------------------------------------------------
// libspng rather than stb: it checks every chunk's CRC and the zlib stream's Adler-32 (stb checks
// neither, so a flipped byte loaded as a different pixel), reads a stream without seeking (stdin), and
// inflates only the rows the header declares (a 1.5 MB file inflating to 1.5 GB costs 1.5 MB).

constexpr std::uint64_t kPngMetadataBytes = 64u << 20;  // ancillary chunks a PNG may carry besides its pixels
constexpr std::size_t kPngChunkLimit = 16u << 20;       // one ancillary chunk (iCCP, text, EXIF) held in memory

struct PngStream {
  InputFile* input = nullptr;
  std::uint64_t limit = kPngMetadataBytes;  // raised by the pixel data's size once the header is known
  bool over_limit = false;
  std::exception_ptr error;  // an exception from the input, carried across the C library
};

int read_png_stream(spng_ctx*, void* user, void* destination, std::size_t length) {
  auto& stream = *static_cast<PngStream*>(user);
  try {
    if (stream.input->bytes_read() + length > stream.limit) {
      stream.over_limit = true;
      return SPNG_IO_ERROR;
    }
    return stream.input->read_exact(destination, length) ? 0 : SPNG_IO_EOF;
  } catch (...) {
    stream.error = std::current_exception();
    return SPNG_IO_ERROR;
  }
}

struct SpngFree {
  void operator()(spng_ctx* context) const { spng_ctx_free(context); }
};

Image read_png(InputFile& input) {
  // The size first, from the IHDR bytes themselves, so the message names it even where libspng would
  // stop at its own limit or at a bad CRC.
  if (const std::string_view header = input.peek(24); header.size() == 24 && header.substr(12, 4) == "IHDR") {
    const auto* bytes = reinterpret_cast<const unsigned char*>(header.data());
    check_image_size(big_endian_32(bytes + 16), big_endian_32(bytes + 20), 1, input.name());
  }
  const std::unique_ptr<spng_ctx, SpngFree> context(spng_ctx_new(0));
  if (!context) throw std::bad_alloc();
  PngStream stream;
  stream.input = &input;
  const auto check = [&](int status, std::string_view doing) {
    if (status == 0) return;
    if (stream.error) std::rethrow_exception(stream.error);
    if (stream.over_limit)
      input.fail(fmt::format("the PNG is longer than the {} its header justifies", describe_bytes(stream.limit)));
    if (status == SPNG_IO_EOF || status == SPNG_EIDAT_TOO_SHORT)
      input.fail(fmt::format("truncated PNG: the file ends while {}", doing));
    input.fail(fmt::format("bad PNG while {}: {}", doing, spng_strerror(status)));
  };
  // Every CRC checked, critical and ancillary chunks alike (a corrupt tRNS changes pixels too).
  check(spng_set_crc_action(context.get(), SPNG_CRC_ERROR, SPNG_CRC_ERROR), "setting up");
  check(spng_set_image_limits(context.get(), kMaxImageDimension, kMaxImageDimension), "setting up");
  check(spng_set_chunk_limits(context.get(), kPngChunkLimit, kPngMetadataBytes), "setting up");
  check(spng_set_png_stream(context.get(), read_png_stream, &stream), "setting up");

  spng_ihdr ihdr{};
  check(spng_get_ihdr(context.get(), &ihdr), "reading the header");
  // Channels as the file has them (a tRNS chunk adds alpha, as stb and libpng's expansion do).
  spng_trns trns{};
  const int trns_status = spng_get_trns(context.get(), &trns);
  if (trns_status != SPNG_ECHUNKAVAIL) check(trns_status, "reading the chunks before the image data");
  const bool transparency = trns_status == 0;
  int channels = 0;
  switch (ihdr.color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE: channels = transparency ? 2 : 1; break;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA: channels = 2; break;
    case SPNG_COLOR_TYPE_TRUECOLOR:
    case SPNG_COLOR_TYPE_INDEXED: channels = transparency ? 4 : 3; break;
    default: channels = 4; break;  // truecolour with alpha
  }
  // The decoder's output format: as narrow as the file allows; grey+alpha and 16-bit grey come through
  // RGBA8 (libspng's G8 and GA8 take grey of at most 8 bits and no alpha only).
  const bool grey = ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE || ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA;
  int format = SPNG_FMT_RGBA8, stride = 4;
  if (channels == 1 && ihdr.bit_depth <= 8) format = SPNG_FMT_G8, stride = 1;
  if (channels == 3) format = SPNG_FMT_RGB8, stride = 3;
  static constexpr int kGreyAlpha[] = {0, 3};  // R (= grey) and A of an RGBA8 pixel
  const int* picked = grey && channels == 2 ? kGreyAlpha : nullptr;

  std::size_t decoded_bytes = 0;
  check(spng_decoded_image_size(context.get(), format, &decoded_bytes), "sizing the image");
  if (decoded_bytes != static_cast<std::size_t>(ihdr.width) * ihdr.height * stride)
    input.fail(fmt::format("bad PNG: {}x{} decodes to {} bytes, not the {} its header gives", ihdr.width, ihdr.height,
                           decoded_bytes, static_cast<std::uint64_t>(ihdr.width) * ihdr.height * stride));
  check_decoded_size(input, ihdr.width, ihdr.height, channels, decoded_bytes);
  // The data may hold at most the filtered rows twice over (deflate's worst case is 0.03% above the
  // raw data; chunk framing and interlacing add little) besides the metadata.
  const std::uint64_t row_bytes = (static_cast<std::uint64_t>(ihdr.width) * 4 * ihdr.bit_depth + 7) / 8 + 1;
  stream.limit = kPngMetadataBytes + 2 * row_bytes * ihdr.height;

  std::vector<unsigned char> pixels(decoded_bytes);
  check(spng_decode_image(context.get(), pixels.data(), pixels.size(), format, SPNG_DECODE_TRNS), "decoding the image");
  return from_interleaved(pixels.data(), static_cast<int>(ihdr.width), static_cast<int>(ihdr.height), channels,
                          stride, picked);
}

// --- JPEG ----------------------------------------------------------------------------------------

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
};

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
      return JpegFrame{at(position + 7) << 8 | at(position + 8), at(position + 5) << 8 | at(position + 6),
                       at(position + 9)};
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
  const std::uint64_t limit = kJpegMarkerBytes + bytes.size() + kJpegBytesPerSample * static_cast<std::uint64_t>(
                                                                    frame->width) * std::max(frame->height, 1LL) *
                                                                    std::max(frame->components, 1);
  std::string rest = input.read_rest(limit - bytes.size(),
                                     fmt::format("the most a {}x{} JPEG needs", frame->width, frame->height));
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
  // Warnings (TJERR_WARNING: stray bytes between segments, data cut short) still yield a whole image, as
  // every viewer shows it; only fatal errors are refused.
  if (tjDecompress2(decoder.get(), data, bytes.size(), pixels.data(), width, 0, height,
                    channels == 1 ? TJPF_GRAY : TJPF_RGB, TJFLAG_LIMITSCANS) != 0 &&
      tjGetErrorCode(decoder.get()) == TJERR_FATAL)
    fail();
  return from_interleaved(pixels.data(), width, height, channels);
}
#endif

// --- BMP and (without libjpeg-turbo) JPEG, through stb from memory ----------------------------------

using StbPixels = std::unique_ptr<stbi_uc, void (*)(void*)>;

Image decode_with_stb(InputFile& input, const std::string& bytes) {
  int width = 0, height = 0, channels = 0;
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int size = static_cast<int>(bytes.size());
  if (!stbi_info_from_memory(data, size, &width, &height, &channels))
    input.fail(fmt::format("cannot decode: {}", stbi_failure_reason()));
  // stb hands a top-down BMP's negative height through; its decoder turns it around itself.
  check_decoded_size(input, width, std::abs(static_cast<long long>(height)), channels,
                     static_cast<std::uint64_t>(width) * std::abs(static_cast<long long>(height)) * channels);
  const StbPixels pixels(stbi_load_from_memory(data, size, &width, &height, &channels, 0), stbi_image_free);
  if (!pixels) input.fail(fmt::format("cannot decode: {}", stbi_failure_reason()));
  return from_interleaved(pixels.get(), width, height, channels);
}

// A BMP's pixel array lies at a stated offset and has a size its header fixes: the file is read that
// far and no further, and one too short for it is refused (stb would fill the missing rows with zeros).
Image read_bmp(InputFile& input) {
  const std::string_view header = input.peek(54);
  const auto* h = reinterpret_cast<const unsigned char*>(header.data());
  if (header.size() < 26) input.fail("truncated BMP header");
  const std::uint32_t offset = little_endian_32(h + 10), header_size = little_endian_32(h + 14);
  long long width = 0, height = 0;
  unsigned bits = 0, compression = 0;
  if (header_size == 12) {  // OS/2 BITMAPCOREHEADER: 16-bit sizes
    width = little_endian_16(h + 18), height = little_endian_16(h + 20), bits = little_endian_16(h + 24);
  } else {
    if (header.size() < 34) input.fail("truncated BMP header");
    width = static_cast<std::int32_t>(little_endian_32(h + 18));
    height = static_cast<std::int32_t>(little_endian_32(h + 22));  // negative: rows stored top to bottom
    bits = little_endian_16(h + 28), compression = little_endian_32(h + 30);
  }
  check_image_size(width, std::llabs(height), 1, input.name());
  // The pixel data follow the headers and the palette (at most 256 entries of 4 bytes).
  constexpr std::uint32_t kLargestOffset = 14 + 124 + 1024 + 4096;
  if (offset > kLargestOffset)
    input.fail(fmt::format("bad BMP: its pixel data start at byte {}, past any BMP header and palette", offset));
  // RLE and embedded JPEG/PNG are refused by stb once it has the header; for the rest the size is exact.
  const bool uncompressed = compression == 0 || compression == 3;
  const std::uint64_t row_bytes = (static_cast<std::uint64_t>(width) * bits + 31) / 32 * 4;
  const std::uint64_t needed = uncompressed ? offset + row_bytes * std::llabs(height) : kLargestOffset;
  if (const std::optional<std::uint64_t> left = input.bytes_left(); uncompressed && left && *left < needed)
    input.fail(fmt::format("truncated BMP: {}x{} pixels of {} bits need {} bytes, the file has {}", width,
                           std::llabs(height), bits, needed, *left));
  check_decoded_size(input, width, std::llabs(height), bits >= 32 ? 4 : 3,
                     needed + static_cast<std::uint64_t>(width) * std::llabs(height) * 4);
  // Read as it arrives, up to what the header needs: a stream that lies costs only what it sends.
  const std::string bytes = input.read_up_to(needed);
  if (bytes.size() < needed && uncompressed)
    input.fail(fmt::format("truncated BMP: {}x{} pixels of {} bits need {} bytes, the stream ended after {}", width,
                           std::llabs(height), bits, needed, bytes.size()));
  return decode_with_stb(input, bytes);
}

enum class Format { Pfm, Png, Jpeg, Bmp, Unknown };

Format recognise(InputFile& input) {
  static constexpr char kPngSignature[] = "\x89PNG\r\n\x1a\n";
  const std::string_view magic = input.peek(8);
  if (magic.empty()) input.fail("the file is empty");
  if (magic.size() >= 2 && magic[0] == 'P' && (magic[1] == 'f' || magic[1] == 'F')) return Format::Pfm;
  if (magic == std::string_view(kPngSignature, 8)) return Format::Png;
  if (magic.size() >= 3 && magic.substr(0, 3) == "\xFF\xD8\xFF") return Format::Jpeg;
  if (magic.size() >= 2 && magic.substr(0, 2) == "BM") return Format::Bmp;
  return Format::Unknown;
}

}  // namespace

Image load_image(const std::string& path) {
  InputFile input(path, "image");
  switch (recognise(input)) {
    case Format::Pfm: return read_pfm(input);
    case Format::Png: return read_png(input);
#if CONVCOMPARE_WITH_TURBOJPEG
    case Format::Jpeg: return read_jpeg(input);
#else
    case Format::Jpeg: return decode_with_stb(input, read_jpeg_bytes(input));
#endif
    case Format::Bmp: return read_bmp(input);
    case Format::Unknown: break;
  }
  input.fail("not a PNG, JPEG, BMP or PFM file");
}

Image load_pfm(const std::string& path) {
  InputFile input(path, "image");
  return read_pfm(input);
}

void save_png(const Image& image, const std::string& path) {
  check_image_size(image.width, image.height, image.channels, fmt::format("image for '{}'", path));
  std::vector<std::uint8_t> interleaved(image.plane_size() * image.channels);
  std::size_t i = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x)
      for (int c = 0; c < image.channels; ++c) {
        const float value = image.at(c, y, x);
        // NaN has no place on the 0..255 scale; it becomes 0 rather than undefined behaviour.
        const float clamped = std::isnan(value) ? 0.0f : std::clamp(value, 0.0f, 255.0f);
        interleaved[i++] = static_cast<std::uint8_t>(std::lround(clamped));
      }
  std::string bytes;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), size);
  };
  if (!stbi_write_png_to_func(append, &bytes, image.width, image.height, image.channels, interleaved.data(),
                              image.width * image.channels))
    throw InputError(fmt::format("cannot write '{}': PNG encoding failed", path));
  write_file_atomically(path, bytes);
}

void save_pfm(const Image& image, const std::string& path) {
  if (image.channels != 1 && image.channels != 3)
    throw InputError(
        fmt::format("cannot write '{}': PFM holds 1 or 3 channels, the image has {}", path, image.channels));
  check_image_size(image.width, image.height, image.channels, fmt::format("image for '{}'", path));
  std::string bytes =
      fmt::format("{}\n{} {}\n-1.0\n", image.channels == 1 ? "Pf" : "PF", image.width, image.height);
  const std::size_t header = bytes.size();
  bytes.resize(header + image.plane_size() * image.channels * sizeof(float));
  char* out = bytes.data() + header;
  for (int y = image.height - 1; y >= 0; --y)  // bottom row first
    for (int x = 0; x < image.width; ++x)
      for (int c = 0; c < image.channels; ++c) {
        std::uint32_t bits = std::bit_cast<std::uint32_t>(image.at(c, y, x));
        if constexpr (std::endian::native == std::endian::big) bits = __builtin_bswap32(bits);
        std::memcpy(out, &bits, sizeof bits);
        out += sizeof bits;
      }
  write_file_atomically(path, bytes);
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
  auto failure = [&path](int error) {
    return InputError(fmt::format("cannot write '{}': {}", path, std::strerror(error)));
  };
  // Writes everything, closes, and returns 0 or the first errno.
  auto write_and_close = [&bytes](int fd) {
    int error = 0;
    for (std::size_t written = 0; written < bytes.size() && error == 0;) {
      const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
      if (n > 0)
        written += static_cast<std::size_t>(n);
      else if (n == 0)
        error = EIO;  // no progress and no errno: give up rather than spin
      else if (errno != EINTR)
        error = errno;
    }
    if (::close(fd) != 0 && error == 0) error = errno;
    return error;
  };

  // A rename would replace a symlink or a device such as /dev/stdout (itself a symlink) with a plain
  // file: write through those instead; only regular files and new names get the atomic rename.
  std::error_code ignored;
  const std::filesystem::file_status status = std::filesystem::symlink_status(path, ignored);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    // O_NONBLOCK: opening a FIFO that no process reads fails (ENXIO) instead of waiting forever.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0666);
    if (fd < 0 && errno == ENXIO)
      throw InputError(fmt::format("cannot write '{}': it is a FIFO and no process is reading it", path));
    if (fd < 0) throw failure(errno);
    if (const int flags = ::fcntl(fd, F_GETFL); flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (const int error = write_and_close(fd); error != 0) throw failure(error);
    return;
  }

  // O_EXCL on a name unique to this process and call, rather than mkstemp, so the file gets the
  // usual umask permissions instead of mkstemp's 0600.
  static std::atomic<unsigned> counter{0};
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temp = fmt::format("{}.tmp-{}-{}", path, ::getpid(), counter++);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt == 100)) throw failure(errno);
  }
  const TemporaryFile removed_on_signals(temp);  // Ctrl-C while writing leaves no *.tmp-* behind
  int error = write_and_close(fd);
  std::error_code renamed;
  if (error == 0) {
    std::filesystem::rename(temp, path, renamed);
    error = renamed.value();
  }
  if (error != 0) {
    std::filesystem::remove(temp, ignored);
    throw failure(error);
  }
}

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
