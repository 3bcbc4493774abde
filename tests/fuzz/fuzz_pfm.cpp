// fuzz_pfm.cpp: libFuzzer target: cc::load_pfm, the hand-written strict PFM reader, on arbitrary bytes from a regular file and from a pipe.
#include <cstddef>
#include <cstdint>

#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::InputFile file;
  // A regular file is checked by its size before anything is allocated, a pipe gathered as it comes:
  // both must end the same way.
  const fuzz::Outcome from_file = fuzz::outcome([&] { return cc::load_pfm(file.write(data, size)); });
  const fuzz::Outcome from_pipe = fuzz::outcome_from_pipe(data, size, [](const std::string& path) { return cc::load_pfm(path); });
  fuzz::require(from_file == from_pipe, "a file and a pipe with the same bytes load differently");
  if (from_file.image) {
    const cc::Image& image = *from_file.image;
    fuzz::check_image(image);
    fuzz::require(image.channels == 1 || image.channels == 3, "PFM image with neither 1 nor 3 channels");
    fuzz::require(!image.eight_bit, "PFM image marked 8-bit");
  }
  return 0;
}
