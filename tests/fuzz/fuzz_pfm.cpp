// fuzz_pfm.cpp: libFuzzer target: cc::load_pfm, the hand-written PFM reader, on arbitrary bytes.
#include <cstddef>
#include <cstdint>

#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::InputFile file;
  try {
    const cc::Image image = cc::load_pfm(file.write(data, size));
    fuzz::check_image(image);
    fuzz::require(image.channels == 1 || image.channels == 3, "PFM image with neither 1 nor 3 channels");
    fuzz::require(!image.eight_bit, "PFM image marked 8-bit");
  } catch (const cc::InputError&) {
    // The expected outcome for bad input; any other exception escapes and is reported as a finding.
  }
  return 0;
}
