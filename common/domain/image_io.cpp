// image_io.cpp: load_image, which hands a file to the format reader its first bytes name (image_io/*.cpp), and what those readers share.
#include "common/domain/image_io.h"

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "common/domain/error.h"
#include "common/domain/image_io/reader.h"
#include "common/domain/input_file.h"
#include "common/domain/memory.h"

namespace cc {

namespace image_io {

void check_decoded_size(const InputFile& input, long long width, long long height, int channels,
                        std::uint64_t extra) {
  check_image_size(width, height, channels, input.name());
  const std::uint64_t floats = static_cast<std::uint64_t>(width) * height * channels * sizeof(float);
  check_host_memory(floats + extra, fmt::format("decoding {} ({}x{}, {} channel{})", input.name(), width, height,
                                                channels, channels == 1 ? "" : "s"));
}

Image from_interleaved(const unsigned char* interleaved, int width, int height, int channels, int stride,
                       const int* picked) {
  if (stride == 0) stride = channels;
  Image image(width, height, channels, true);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x, interleaved += stride)
      for (int c = 0; c < channels; ++c) image.at(c, y, x) = interleaved[picked ? picked[c] : c];
  return image;
}

}  // namespace image_io

Image load_image(const std::string& path) {
  InputFile input(path, "image");
  const std::string_view magic = input.peek(8);
  if (magic.empty()) input.fail("the file is empty");
  // The format by its signature, not the file's name.
  for (const image_io::ImageReader* reader :
       {&image_io::kPfmReader, &image_io::kPngReader, &image_io::kJpegReader, &image_io::kBmpReader})
    if (reader->recognises(magic)) return reader->read(input);
  input.fail("not a PNG, JPEG, BMP or PFM file");
}

}  // namespace cc
