// fuzz_image.cpp: libFuzzer target: cc::load_image (JPEG, PNG, BMP and PFM) on arbitrary bytes, from a regular file and from a pipe.
#include <cstddef>
#include <cstdint>
#include <memory>

#include <spng.h>
#if !CONVCOMPARE_WITH_TURBOJPEG
// Declarations only: the implementation is compiled once, in common/domain/stb_impl.cpp (JPEG only).
#include <stb_image.h>
#endif

#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

// A PNG of a few bytes can inflate to a legal 16384x16384x4 image (and a JPEG decoded by stb can fill
// missing data with zeros): gigabytes and seconds per input, which would only slow the search down (and
// trip -malloc_limit_mb, set for a 1 GiB image). Such headers are skipped; headers over the caps are
// not, since the loader must refuse those before allocating anything. BMP needs every byte of its pixel
// array and a JPEG a bit per 8x8 block before anything is decoded, so neither is skipped.
constexpr long long kFuzzValueBudget = 1 << 22;  // width x height x channels

#if CONVCOMPARE_WITH_TURBOJPEG
constexpr bool kStbDecodesJpeg = false;
#else
constexpr bool kStbDecodesJpeg = true;
#endif

// The size a PNG's IHDR declares, through libspng (stb reads no PNG); 4 channels assumed.
bool png_info(const std::uint8_t* data, std::size_t size, int& width, int& height, int& channels) {
  const std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> context(spng_ctx_new(0), spng_ctx_free);
  spng_ihdr ihdr{};
  if (!context || spng_set_png_buffer(context.get(), data, size) != 0 || spng_get_ihdr(context.get(), &ihdr) != 0)
    return false;
  width = static_cast<int>(std::min<std::uint32_t>(ihdr.width, 1u << 30));
  height = static_cast<int>(std::min<std::uint32_t>(ihdr.height, 1u << 30));
  channels = 4;
  return true;
}

bool legal_but_too_big_to_fuzz(const std::uint8_t* data, std::size_t size) {
  int width = 0, height = 0, channels = 0;
#if CONVCOMPARE_WITH_TURBOJPEG
  const bool known = png_info(data, size, width, height, channels);
#else
  const bool known = stbi_info_from_memory(data, static_cast<int>(size), &width, &height, &channels) ||
                     png_info(data, size, width, height, channels);
#endif
  if (!known) return false;
  const long long w = width, h = height;
  if (w <= 0 || h <= 0 || w > cc::kMaxImageDimension || h > cc::kMaxImageDimension) return false;
  const long long pixels = w * h;
  return pixels <= static_cast<long long>(cc::kMaxImagePixels) && pixels * channels > kFuzzValueBudget;
}

// Debian 12's stb_image 2.27 writes past its Huffman tables on a JPEG whose DHT segment declares more
// than 256 codes, and has more known faults on corrupt JPEG data (nothings/stb#1289 and
// nothings/stb#1291, fixed in stb 2.28): the fuzzer finds them within seconds and would find nothing else. Where libjpeg-turbo
// decodes JPEG that reader is not built and JPEG is fuzzed; on a build with stb's reader, JPEG (every
// JPEG starts with 0xFF, and no other format does) is left out; docs/correctness.md has the details.
bool skip_jpeg(const std::uint8_t* data, std::size_t size) { return kStbDecodesJpeg && size > 0 && data[0] == 0xFF; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (skip_jpeg(data, size) || legal_but_too_big_to_fuzz(data, size)) return -1;  // -1: kept out of the corpus
  static fuzz::InputFile file;
  // The same bytes from a regular file (sizes known, checked up front) and from a pipe (read as they
  // come): the two paths of every reader must agree, image for image and refusal for refusal.
  const fuzz::Outcome from_file = fuzz::outcome([&] { return cc::load_image(file.write(data, size)); });
  const fuzz::Outcome from_pipe = fuzz::outcome_from_pipe(data, size, [](const std::string& path) { return cc::load_image(path); });
  fuzz::require(from_file == from_pipe, "a file and a pipe with the same bytes load differently");
  if (from_file.image) fuzz::check_image(*from_file.image);
  return 0;
}
