// reader.h: the one interface every image format's reader implements (image_io/*.cpp), and the size checks and pixel copy they share.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/domain/image.h"
#include "common/domain/input_file.h"

namespace cc::image_io {

// A format's reader: load_image (image_io.cpp) asks each in turn whether the file's first bytes are its
// signature, and the first that says yes reads the whole file or throws InputError with one line.
struct ImageReader {
  std::string_view format;                     // "PNG", for messages
  bool (*recognises)(std::string_view magic);  // the file's first 8 bytes (fewer for a shorter file)
  Image (*read)(InputFile& input);             // from the first byte, nothing consumed yet
};

extern const ImageReader kPfmReader;   // pfm.cpp: our own parser of the grammar in docs/correctness.md
extern const ImageReader kPngReader;   // png.cpp: libspng
extern const ImageReader kJpegReader;  // jpeg.cpp: libjpeg-turbo (stb_image without it)
extern const ImageReader kBmpReader;   // bmp.cpp: our own strict decoder

inline std::uint32_t big_endian_32(const unsigned char* bytes) {
  return std::uint32_t{bytes[0]} << 24 | std::uint32_t{bytes[1]} << 16 | std::uint32_t{bytes[2]} << 8 | bytes[3];
}
inline std::uint32_t little_endian_32(const unsigned char* bytes) {
  return std::uint32_t{bytes[3]} << 24 | std::uint32_t{bytes[2]} << 16 | std::uint32_t{bytes[1]} << 8 | bytes[0];
}
inline unsigned little_endian_16(const unsigned char* bytes) { return unsigned{bytes[1]} << 8 | bytes[0]; }

// The size check every decoder makes once it knows the size, before it allocates anything: the pixel
// caps of image.h, then the host memory for the float image plus the decoder's own `extra` bytes.
void check_decoded_size(const InputFile& input, long long width, long long height, int channels,
                        std::uint64_t extra = 0);

// Planar floats on the 0..255 scale from a decoder's interleaved 8-bit pixels, keeping `channels`
// of every `stride` bytes per pixel (an RGBA8 decode of a grey+alpha PNG keeps bytes 0 and 3).
Image from_interleaved(const unsigned char* interleaved, int width, int height, int channels, int stride = 0,
                       const int* picked = nullptr);

}  // namespace cc::image_io
