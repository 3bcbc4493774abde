// fuzz_image.cpp: libFuzzer target: cc::load_image (JPEG, PNG, BMP and PFM) on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <memory>

// Declarations only: the implementation is compiled once, in common/domain/stb_impl.cpp.
#include <stb_image.h>
#if CONVCOMPARE_WITH_TURBOJPEG
#include <turbojpeg.h>
#endif

#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

// JPEG and BMP decoders fill missing data with zeros, so a 100-byte header can decode to a legal
// 16384x16384x4 image: gigabytes and seconds per input, which would only slow the search down (and
// trip -malloc_limit_mb, set for a 1 GiB image). Such headers are skipped; headers over the caps are
// not, since the loader must refuse those before allocating anything.
constexpr long long kFuzzValueBudget = 1 << 22;  // width x height x channels

#if CONVCOMPARE_WITH_TURBOJPEG
constexpr bool kStbDecodesJpeg = false;

// The size a JPEG header declares, through libjpeg-turbo (stb is built without JPEG then).
bool jpeg_info(const std::uint8_t* data, std::size_t size, int& width, int& height, int& channels) {
  static const std::unique_ptr<void, int (*)(tjhandle)> decoder(tjInitDecompress(), tjDestroy);
  int subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(decoder.get(), data, size, &width, &height, &subsampling, &colorspace) != 0) return false;
  channels = colorspace == TJCS_GRAY ? 1 : 3;
  return true;
}
#else
constexpr bool kStbDecodesJpeg = true;
#endif

bool legal_but_too_big_to_fuzz(const std::uint8_t* data, std::size_t size) {
  int width = 0, height = 0, channels = 0;
  bool known = stbi_info_from_memory(data, static_cast<int>(size), &width, &height, &channels);
#if CONVCOMPARE_WITH_TURBOJPEG
  known = known || jpeg_info(data, size, width, height, channels);
#endif
  if (!known) return false;
  if (width <= 0 || height <= 0 || width > cc::kMaxImageDimension || height > cc::kMaxImageDimension) return false;
  const long long pixels = static_cast<long long>(width) * height;
  return pixels <= static_cast<long long>(cc::kMaxImagePixels) && pixels * channels > kFuzzValueBudget;
}

// Debian 12's stb_image 2.27 writes past its Huffman tables on a JPEG whose DHT segment declares more
// than 256 codes, and has more known faults on corrupt JPEG data (stb issues 1289 and 1291, fixed in
// stb 2.28): the fuzzer finds them within seconds and would find nothing else. Where libjpeg-turbo
// decodes JPEG that reader is not built and JPEG is fuzzed; on a build with stb's reader, JPEG (every
// JPEG starts with 0xFF, and no other format does) is left out; docs/correctness.md has the details.
bool skip_jpeg(const std::uint8_t* data, std::size_t size) { return kStbDecodesJpeg && size > 0 && data[0] == 0xFF; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (skip_jpeg(data, size) || legal_but_too_big_to_fuzz(data, size)) return -1;  // -1: kept out of the corpus
  static fuzz::InputFile file;
  try {
    fuzz::check_image(cc::load_image(file.write(data, size)));
  } catch (const cc::InputError&) {
    // The expected outcome for bad input; any other exception escapes and is reported as a finding.
  }
  return 0;
}
