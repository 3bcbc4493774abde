// png.cpp: the PNG reader (libspng: every CRC checked, only the declared rows inflated, a stream read without seeking) and the PNG writer (stb_image_write).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spng.h>
#include <stb_image_write.h>

#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "common/domain/image_io/reader.h"

namespace cc {
namespace image_io {

namespace {

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

bool recognise_png(std::string_view magic) { return magic == std::string_view("\x89PNG\r\n\x1a\n", 8); }

}  // namespace

const ImageReader kPngReader{"PNG", recognise_png, read_png};

}  // namespace image_io

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

}  // namespace cc
