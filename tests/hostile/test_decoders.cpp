// test_decoders.cpp: hostile and unusual files for the image decoders: BMP palettes read whole and indexes checked, JPEG warnings and claimed sizes, RLE BMP, a report's mode kept.
#include <sys/stat.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

// Declarations only: the implementation is compiled once, in common/domain/stb_impl.cpp.
#include <stb/stb_image_write.h>
#if CONVCOMPARE_WITH_TURBOJPEG
#include <turbojpeg.h>
#endif

#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "tests/hostile/hostile_support.h"
#include "tests/support/image_files.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace cc::hostile;
using cc::test::little_endian_bytes;
using cc::test::TempDir;
using cc::test::write_binary;

namespace {

using Rgb = std::array<int, 3>;

struct PaletteBmp {
  bool os2 = false;  // BITMAPCOREHEADER (12 bytes, 3-byte entries) instead of BITMAPINFOHEADER (40, 4-byte)
  int bits = 8;
  int width = 16, height = 16;
  std::vector<Rgb> palette;
  std::function<int(int, int)> index;  // palette index of pixel (x, y)
  std::uint32_t colours_used = 0;      // BITMAPINFOHEADER's biClrUsed
  std::uint32_t compression = 0;
};

// A palette BMP, bottom-up rows, indexes packed from the high bits, rows padded to 4 bytes.
std::string palette_bmp(const PaletteBmp& spec) {
  const int row_bytes = (spec.width * spec.bits + 31) / 32 * 4;
  std::string data;
  for (int row = 0; row < spec.height; ++row) {
    std::string bytes(row_bytes, '\0');
    for (int x = 0; x < spec.width; ++x) {
      const int bit = x * spec.bits;
      bytes[bit / 8] = static_cast<char>(bytes[bit / 8] | spec.index(x, spec.height - 1 - row) << (8 - spec.bits - bit % 8));
    }
    data += bytes;
  }
  std::string palette;
  for (const Rgb& entry : spec.palette) {
    palette += {static_cast<char>(entry[2]), static_cast<char>(entry[1]), static_cast<char>(entry[0])};
    if (!spec.os2) palette += '\0';
  }
  std::string header = spec.os2 ? little_endian_bytes(12) + little_endian_bytes(spec.width, 2) +
                                      little_endian_bytes(spec.height, 2) + little_endian_bytes(1, 2) +
                                      little_endian_bytes(spec.bits, 2)
                                : little_endian_bytes(40) + little_endian_bytes(spec.width) +
                                      little_endian_bytes(spec.height) + little_endian_bytes(1, 2) +
                                      little_endian_bytes(spec.bits, 2) + little_endian_bytes(spec.compression) +
                                      little_endian_bytes(static_cast<std::uint32_t>(data.size())) +
                                      little_endian_bytes(2835) + little_endian_bytes(2835) +
                                      little_endian_bytes(spec.colours_used) + little_endian_bytes(0);
  const auto offset = static_cast<std::uint32_t>(14 + header.size() + palette.size());
  return "BM" + little_endian_bytes(offset + static_cast<std::uint32_t>(data.size())) + little_endian_bytes(0) +
         little_endian_bytes(offset) + header + palette + data;
}

// A BMP of 16- or 32-bit pixels `value(x, y)`, bottom-up; with `masks` (red, green, blue[, alpha]) as
// BI_BITFIELDS after a BITMAPINFOHEADER, else BI_RGB.
std::string direct_bmp(int bits, int width, int height, const std::function<std::uint32_t(int, int)>& value,
                       const std::vector<std::uint32_t>& masks = {}) {
  const int row_bytes = (width * bits + 31) / 32 * 4;
  std::string data;
  for (int row = 0; row < height; ++row) {
    std::string bytes;
    for (int x = 0; x < width; ++x) bytes += little_endian_bytes(value(x, height - 1 - row), bits / 8);
    bytes.resize(row_bytes, '\0');
    data += bytes;
  }
  std::string fields;
  for (const std::uint32_t mask : masks) fields += little_endian_bytes(mask);
  const std::string header = little_endian_bytes(40) + little_endian_bytes(width) + little_endian_bytes(height) +
                             little_endian_bytes(1, 2) + little_endian_bytes(bits, 2) +
                             little_endian_bytes(masks.empty() ? 0 : masks.size() == 4 ? 6 : 3) +
                             little_endian_bytes(static_cast<std::uint32_t>(data.size())) + little_endian_bytes(2835) +
                             little_endian_bytes(2835) + little_endian_bytes(0) + little_endian_bytes(0);
  const auto offset = static_cast<std::uint32_t>(14 + header.size() + fields.size());
  return "BM" + little_endian_bytes(offset + static_cast<std::uint32_t>(data.size())) + little_endian_bytes(0) +
         little_endian_bytes(offset) + header + fields + data;
}

std::vector<Rgb> grey_palette() {
  std::vector<Rgb> palette;
  for (int i = 0; i < 256; ++i) palette.push_back({i, i, i});
  return palette;
}

// Runs the identity filter over `path`; the reference it wrote is the input as the binary loaded it.
cc::Image loaded_by_binary(const std::string& path, const TempDir& dir) {
  const CommandResult result =
      convcompare(run_args({"--image", path, "--filter", "identity", "--quiet", "--output-dir", dir / "out"}));
  check_validated(result);
  return cc::load_image(dir / "out/identity_zero_reference.png");
}

std::string stb_jpeg(int width, int height, int quality) {
  const cc::Image chart = cc::make_default_image(width, height, 3);
  std::vector<std::uint8_t> interleaved(chart.data.size());
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c)
        interleaved[(static_cast<std::size_t>(y) * width + x) * 3 + c] = static_cast<std::uint8_t>(chart.at(c, y, x));
  std::string jpeg;
  const auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), size);
  };
  REQUIRE(stbi_write_jpg_to_func(append, &jpeg, width, height, 3, interleaved.data(), quality));
  return jpeg;
}

// `jpeg` with its baseline frame header (SOF0) claiming width x height instead.
std::string claiming(std::string jpeg, int width, int height) {
  const std::size_t frame = jpeg.find("\xFF\xC0");
  REQUIRE(frame != std::string::npos);
  jpeg[frame + 5] = static_cast<char>(height >> 8), jpeg[frame + 6] = static_cast<char>(height);
  jpeg[frame + 7] = static_cast<char>(width >> 8), jpeg[frame + 8] = static_cast<char>(width);
  return jpeg;
}

}  // namespace

TEST_CASE("BMP: a valid OS/2 8-bit BMP with 256 grey entries loads every entry right, through the binary too") {
  TempDir dir("hostile");
  PaletteBmp spec{.os2 = true, .palette = grey_palette(), .index = [](int x, int y) { return (y * 16 + x) ^ 0x5a; }};
  write_binary(dir / "grey.bmp", palette_bmp(spec));
  const cc::Image direct = cc::load_image(dir / "grey.bmp");
  REQUIRE(direct.channels == 3);
  REQUIRE(direct.width == 16);
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x)
      for (int c = 0; c < 3; ++c) REQUIRE(direct.at(c, y, x) == spec.index(x, y));  // 252..255 included
  const cc::Image image = loaded_by_binary(dir / "grey.bmp", dir);
  REQUIRE(image.data.size() == direct.data.size());
  CHECK(image.data == direct.data);
}

TEST_CASE("BMP: a valid OS/2 1-bit BMP reads its two palette entries; 4-bit Windows too") {
  TempDir dir("hostile");
  const auto checker = [](int x, int y) { return (x / 3 + y) % 2; };
  PaletteBmp one_bit{.os2 = true, .bits = 1, .width = 13, .height = 5, .palette = {{10, 20, 30}, {200, 100, 50}},
                     .index = checker};
  write_binary(dir / "one.bmp", palette_bmp(one_bit));
  const cc::Image image = loaded_by_binary(dir / "one.bmp", dir);
  REQUIRE(image.channels == 3);
  REQUIRE(image.width == 13);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 13; ++x)
      for (int c = 0; c < 3; ++c) CHECK(image.at(c, y, x) == one_bit.palette[checker(x, y)][c]);

  PaletteBmp four_bit{.bits = 4, .width = 7, .height = 3, .palette = {}, .index = [](int x, int y) { return (x + 5 * y) % 16; }};
  for (int i = 0; i < 16; ++i) four_bit.palette.push_back({i * 16, 255 - i, i});
  write_binary(dir / "four.bmp", palette_bmp(four_bit));
  const cc::Image four = cc::load_image(dir / "four.bmp");
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 7; ++x)
      for (int c = 0; c < 3; ++c) CHECK(four.at(c, y, x) == four_bit.palette[four_bit.index(x, y)][c]);
}

TEST_CASE("BMP: a pixel indexing past its palette is refused, not loaded as memory contents") {
  TempDir dir("hostile");
  // Two entries and room for two (biClrUsed 0), indexes up to 255: stb loaded stack bytes.
  PaletteBmp spec{.palette = {{0, 0, 0}, {255, 255, 255}}, .index = [](int x, int y) { return (x * 16 + y) % 256; }};
  write_binary(dir / "room.bmp", palette_bmp(spec));
  check_refused(convcompare(run_args({"--image", dir / "room.bmp"})), {"bad BMP", "palette entry 15", "2-entry palette"});
  spec.colours_used = 2;
  spec.index = [](int x, int y) { return x == 15 && y == 15 ? 255 : 1; };
  write_binary(dir / "declared.bmp", palette_bmp(spec));
  check_refused(convcompare(run_args({"--image", dir / "declared.bmp"})), {"pixel (15, 15)", "palette entry 255"});
  // A palette declared longer than the bytes before the pixel data, or longer than the depth allows.
  spec.colours_used = 3;
  write_binary(dir / "short.bmp", palette_bmp(spec));
  check_refused(convcompare(run_args({"--image", dir / "short.bmp"})), {"3 palette entries", "do not fit"});
  PaletteBmp one_bit{.bits = 1, .palette = {{0, 0, 0}, {9, 9, 9}}, .index = [](int, int) { return 1; }, .colours_used = 3};
  write_binary(dir / "deep.bmp", palette_bmp(one_bit));
  check_refused(convcompare(run_args({"--image", dir / "deep.bmp"})), {"at most 2 palette entries"});
  PaletteBmp none{.bits = 8, .palette = {}, .index = [](int, int) { return 0; }};
  write_binary(dir / "none.bmp", palette_bmp(none));
  check_refused(convcompare(run_args({"--image", dir / "none.bmp"})), {"needs a palette"});
}

TEST_CASE("BMP: RLE and embedded JPEG/PNG are named as unsupported compressions, not 'unknown image type'") {
  TempDir dir("hostile");
  PaletteBmp spec{.palette = grey_palette(), .index = [](int, int) { return 7; }, .compression = 1};
  write_binary(dir / "rle8.bmp", palette_bmp(spec));
  check_refused(convcompare(run_args({"--image", dir / "rle8.bmp"})), {"RLE8-compressed BMP is not supported"});
  spec.bits = 4, spec.palette.resize(16), spec.compression = 2;
  write_binary(dir / "rle4.bmp", palette_bmp(spec));
  check_refused(convcompare(run_args({"--image", dir / "rle4.bmp"})), {"RLE4-compressed BMP"});
  spec.compression = 5;
  write_binary(dir / "png.bmp", palette_bmp(spec));
  check_refused(convcompare(run_args({"--image", dir / "png.bmp"})), {"holding a PNG"});
}

TEST_CASE("JPEG: a small file claiming a huge frame is refused at once, by the bytes it has") {
  TempDir dir("hostile");
  const std::string small = stb_jpeg(16, 16, 90);
  REQUIRE(small.size() < 1000);
  write_binary(dir / "huge.jpg", claiming(small, 16384, 16384));
  check_refused(convcompare(run_args({"--image", dir / "huge.jpg"})), {"bad JPEG", "16384x16384", "needs at least"}, 2);
  // A claim the bytes allow but the data do not fill: libjpeg-turbo's warning is the refusal.
  write_binary(dir / "filler.jpg", claiming(small, 64, 64));
  check_refused(convcompare(run_args({"--image", dir / "filler.jpg"})), {"bad JPEG"});
}

TEST_CASE("JPEG: a real JPEG cut short is refused, not loaded with rows of filler") {
  TempDir dir("hostile");
  const std::string whole = stb_jpeg(256, 256, 90);
  write_binary(dir / "whole.jpg", whole);
  write_binary(dir / "cut.jpg", whole.substr(0, whole.size() * 4 / 10));
  check_validated(convcompare(run_args({"--image", dir / "whole.jpg", "--filter", "identity"})));
  check_refused(convcompare(run_args({"--image", dir / "cut.jpg"})), {"bad JPEG"});
  // Through a pipe the same.
  check_refused(shell("cat " + shell_quoted(dir / "cut.jpg") + " | exec $CONVCOMPARE $RUN --image /dev/stdin"), {"bad JPEG"});
}

TEST_CASE("a report written over an existing 0600 file stays 0600 (and a new one gets the umask's mode)") {
  TempDir dir("hostile");
  write_binary(dir / "private.json", "{}");
  REQUIRE(::chmod((dir / "private.json").c_str(), 0600) == 0);
  check_validated(convcompare(run_args({"--size", "32x16", "--filter", "identity", "--quiet", "--json", dir / "private.json"})));
  struct stat info {};
  REQUIRE(::stat((dir / "private.json").c_str(), &info) == 0);
  CHECK((info.st_mode & 07777) == 0600);
  CHECK(info.st_size > 100);  // the report, not the old "{}"
}

TEST_CASE("BMP: 16- and 32-bit pixels, with and without bit fields, load with the values they hold") {
  TempDir dir("hostile");
  const auto rgba = [](int x, int y) { return static_cast<std::uint32_t>((x * 40) << 16 | (y * 50) << 8 | (x + y) * 9); };
  // 32-bit BI_RGB: 4 channels; a fourth byte that is 0 everywhere is no alpha (opaque), one that is used is.
  write_binary(dir / "x888.bmp", direct_bmp(32, 5, 3, rgba));
  const cc::Image opaque = cc::load_image(dir / "x888.bmp");
  REQUIRE(opaque.channels == 4);
  CHECK(opaque.at(0, 2, 4) == 160);
  CHECK(opaque.at(1, 2, 4) == 100);
  CHECK(opaque.at(2, 2, 4) == 54);
  CHECK(opaque.at(3, 1, 1) == 255);
  write_binary(dir / "8888.bmp", direct_bmp(32, 5, 3, [&](int x, int y) { return rgba(x, y) | (x * 60u) << 24; }));
  CHECK(cc::load_image(dir / "8888.bmp").at(3, 1, 3) == 180);
  // 16-bit BI_RGB is 5-5-5; BI_BITFIELDS 5-6-5; each field scaled to 0..255 (31 -> 255, 16 -> 132).
  write_binary(dir / "555.bmp", direct_bmp(16, 3, 2, [](int x, int) { return static_cast<std::uint32_t>(31 << 10 | 16 << 5 | x); }));
  const cc::Image five = cc::load_image(dir / "555.bmp");
  REQUIRE(five.channels == 3);
  CHECK(five.at(0, 0, 0) == 255);
  CHECK(five.at(1, 1, 2) == 132);
  CHECK(five.at(2, 1, 2) == 16);  // 2 of 31
  write_binary(dir / "565.bmp",
               direct_bmp(16, 3, 2, [](int, int) { return std::uint32_t{63 << 5 | 1}; }, {0xF800, 0x07E0, 0x001F}));
  const cc::Image six = cc::load_image(dir / "565.bmp");
  REQUIRE(six.channels == 3);
  CHECK(six.at(0, 1, 1) == 0);
  CHECK(six.at(1, 1, 1) == 255);
  CHECK(six.at(2, 1, 1) == 8);
  // Bit fields that are no run of bits, or a colour without a field, are refused.
  write_binary(dir / "gappy.bmp", direct_bmp(16, 3, 2, [](int, int) { return 0u; }, {0xF00F, 0x07E0, 0x001F}));
  check_refused(convcompare(run_args({"--image", dir / "gappy.bmp"})), {"bad BMP", "0xf00f", "one run of bits"});
  write_binary(dir / "blind.bmp", direct_bmp(32, 3, 2, [](int, int) { return 0u; }, {0xFF0000, 0, 0xFF, 0xFF000000}));
  check_refused(convcompare(run_args({"--image", dir / "blind.bmp"})), {"bad BMP", "mask is 0"});
}

#if CONVCOMPARE_WITH_TURBOJPEG
TEST_CASE("JPEG: the bound and the warnings refuse no valid file: flat progressive and baseline images as small as they come") {
  TempDir dir("hostile");
  // A flat image is the smallest a JPEG of its size can be: a progressive one spends about two bits
  // per block (the DC scan and its refinement), a baseline one six; both are over the one-bit bound.
  const std::vector<unsigned char> flat(1024 * 768 * 3, 77);
  for (const int flags : {0, TJFLAG_PROGRESSIVE}) {
    CAPTURE(flags);
    tjhandle encoder = tjInitCompress();
    REQUIRE(encoder != nullptr);
    unsigned char* jpeg = nullptr;
    unsigned long size = 0;
    const int status = tjCompress2(encoder, flat.data(), 1024, 0, 768, TJPF_RGB, &jpeg, &size, TJSAMP_420, 50, flags);
    tjDestroy(encoder);
    REQUIRE(status == 0);
    const std::string bytes(reinterpret_cast<const char*>(jpeg), size);
    tjFree(jpeg);
    write_binary(dir / "flat.jpg", bytes);
    const cc::Image image = cc::load_image(dir / "flat.jpg");
    REQUIRE(image.width == 1024);
    CHECK(std::abs(image.at(1, 767, 1023) - 77) <= 2);
    // Cut short (the last half of its scans gone), the same file is refused.
    write_binary(dir / "cut.jpg", bytes.substr(0, bytes.size() / 2));
    CHECK_THROWS_WITH_AS(cc::load_image(dir / "cut.jpg"), doctest::Contains("bad JPEG"), cc::InputError);
  }
}
#endif
