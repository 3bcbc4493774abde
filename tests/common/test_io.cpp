// test_io.cpp: image files: PNG/PFM round trips, JPEG and BMP reads, the default chart, and every bad input.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <doctest/doctest.h>
// Declarations only: the implementation is compiled once, in common/domain/stb_impl.cpp.
#include <stb/stb_image_write.h>
#if CONVCOMPARE_WITH_TURBOJPEG
#include <turbojpeg.h>
#endif

#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "common/domain/temporary_files.h"
#include "tests/support/image_files.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;

using cc::test::TempDir;

namespace {

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string little_endian(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  return {char(bits & 0xff), char(bits >> 8 & 0xff), char(bits >> 16 & 0xff), char(bits >> 24)};
}

std::string big_endian(float value) {
  const std::string le = little_endian(value);
  return {le.rbegin(), le.rend()};
}

std::string be32(std::uint32_t v) {
  return {char(v >> 24), char(v >> 16 & 0xff), char(v >> 8 & 0xff), char(v & 0xff)};
}

// A PNG signature and an IHDR claiming width x height, 8-bit grey; no pixel data, CRC not valid.
std::string png_header(std::uint32_t width, std::uint32_t height) {
  return std::string("\x89PNG\r\n\x1a\n", 8) + be32(13) + "IHDR" + be32(width) + be32(height) +
         std::string("\x08\x00\x00\x00\x00", 5) + be32(0xdeadbeef);
}

cc::Image byte_ramp(int width, int height, int channels) {
  cc::Image image(width, height, channels, true);
  for (int c = 0; c < channels; ++c)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) image.at(c, y, x) = static_cast<float>((x * 37 + y * 11 + c * 50) % 256);
  return image;
}

void write_with_stb(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data), size);
}

std::string error_of(const std::string& path) {
  try {
    cc::load_image(path);
  } catch (const cc::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("check_image_size accepts the limits and names what it refuses") {
  CHECK_NOTHROW(cc::check_image_size(1, 1, 1, "x"));
  CHECK_NOTHROW(cc::check_image_size(16384, 16384, 4, "x"));
  CHECK_NOTHROW(cc::check_image_size(32768, 8192, 1, "x"));
  CHECK_THROWS_WITH_AS(cc::check_image_size(0, 5, 1, "image 'a.png'"), doctest::Contains("image 'a.png'"),
                       cc::InputError);
  CHECK_THROWS_AS(cc::check_image_size(5, -1, 1, "x"), cc::InputError);
  CHECK_THROWS_WITH_AS(cc::check_image_size(5, 5, 5, "x"), doctest::Contains("5 channels"), cc::InputError);
  CHECK_THROWS_AS(cc::check_image_size(5, 5, 0, "x"), cc::InputError);
  CHECK_THROWS_WITH_AS(cc::check_image_size(32769, 1, 1, "x"), doctest::Contains("32769x1"), cc::InputError);
  CHECK_THROWS_WITH_AS(cc::check_image_size(16385, 16384, 1, "x"), doctest::Contains("16385x16384"),
                       cc::InputError);
  CHECK_THROWS_AS(cc::Image(-1, 3, 1), cc::InputError);
  const cc::Image image(3, 2, 2, true);
  CHECK(image.data == std::vector<float>(12, 0.0f));
  CHECK(image.eight_bit);
}

TEST_CASE("PNG round trip keeps integer 0..255 values exactly, for 1 to 4 channels") {
  TempDir dir("io");
  for (int channels = 1; channels <= 4; ++channels) {
    CAPTURE(channels);
    const cc::Image original = byte_ramp(13, 7, channels);
    const std::string path = dir.file("ramp" + std::to_string(channels) + ".png");
    cc::save_png(original, path);
    const cc::Image loaded = cc::load_image(path);
    CHECK(loaded.width == 13);
    CHECK(loaded.height == 7);
    CHECK(loaded.channels == channels);
    CHECK(loaded.eight_bit);
    CHECK(loaded.data == original.data);
  }
  // Atomic writes leave nothing but the finished files behind.
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 4);
}

TEST_CASE("save_png rounds to nearest and clamps to 0..255") {
  TempDir dir("io");
  cc::Image image(6, 1, 1);
  image.data = {12.4f, 12.6f, -5.0f, 300.0f, 254.5f, std::numeric_limits<float>::quiet_NaN()};
  cc::save_png(image, dir.file("rounded.png"));
  CHECK(cc::load_image(dir.file("rounded.png")).data == std::vector<float>{12, 13, 0, 255, 255, 0});
}

TEST_CASE("PFM round trip keeps every float bit, 1 and 3 channels") {
  TempDir dir("io");
  const std::vector<float> special = {0.1f,
                                      -0.0f,
                                      1e30f,
                                      -3.5e-20f,
                                      1e-42f /* subnormal */,
                                      std::numeric_limits<float>::infinity(),
                                      std::numeric_limits<float>::quiet_NaN()};
  for (int channels : {1, 3}) {
    CAPTURE(channels);
    cc::Image original(5, 3, channels);
    for (std::size_t i = 0; i < original.data.size(); ++i)
      original.data[i] = i < special.size() ? special[i] : static_cast<float>(i) / 7.0f - 1.0f;
    const std::string path = dir.file("float.pfm");
    cc::save_pfm(original, path);
    const cc::Image loaded = cc::load_image(path);
    REQUIRE(loaded.data.size() == original.data.size());
    CHECK(loaded.width == 5);
    CHECK(loaded.height == 3);
    CHECK(loaded.channels == channels);
    CHECK_FALSE(loaded.eight_bit);
    for (std::size_t i = 0; i < original.data.size(); ++i)
      CHECK(std::bit_cast<std::uint32_t>(loaded.data[i]) == std::bit_cast<std::uint32_t>(original.data[i]));
  }
  CHECK(read_bytes(dir.file("float.pfm")).substr(0, 12) == "PF\n5 3\n-1.0\n");
}

TEST_CASE("PFM rows are stored bottom to top and RGB is interleaved") {
  TempDir dir("io");
  // 2x2 grey: the file's first row is the image's bottom row.
  write_bytes(dir.file("grey.pfm"),
              "Pf\n2 2\n-1.0\n" + little_endian(1) + little_endian(2) + little_endian(3) + little_endian(4));
  const cc::Image grey = cc::load_pfm(dir.file("grey.pfm"));
  CHECK(grey.at(0, 0, 0) == 3.0f);
  CHECK(grey.at(0, 0, 1) == 4.0f);
  CHECK(grey.at(0, 1, 0) == 1.0f);
  CHECK(grey.at(0, 1, 1) == 2.0f);

  write_bytes(dir.file("rgb.pfm"), "PF\n2 1\n-1\n" + little_endian(10) + little_endian(20) + little_endian(30) +
                                       little_endian(-1) + little_endian(-2) + little_endian(-3));
  const cc::Image rgb = cc::load_image(dir.file("rgb.pfm"));
  CHECK(rgb.channels == 3);
  CHECK(rgb.data == std::vector<float>{10, -1, 20, -2, 30, -3});  // planar: R plane, G plane, B plane
}

TEST_CASE("PFM: big endian, and exactly one line feed after the scale before the data") {
  TempDir dir("io");
  write_bytes(dir.file("be.pfm"), "Pf\n2 1\n1.0\n" + big_endian(1.5f) + big_endian(-2.25f));
  CHECK(cc::load_image(dir.file("be.pfm")).data == std::vector<float>{1.5f, -2.25f});

  // The first data byte is '\n' (0x0a); a reader that skips all whitespace after the scale would lose it.
  const float tricky = std::bit_cast<float>(std::uint32_t{0x3f80000a});
  write_bytes(dir.file("tricky.pfm"), "Pf\n2 1\n-4.0\n" + little_endian(tricky) + little_endian(7));
  const cc::Image loaded = cc::load_image(dir.file("tricky.pfm"));
  CHECK(std::bit_cast<std::uint32_t>(loaded.data[0]) == 0x3f80000a);
  CHECK(loaded.data[1] == 7.0f);
}

TEST_CASE("JPEG files are read through libjpeg-turbo (stb without it), BMP files by our own decoder") {
  TempDir dir("io");
  // A flat JPEG decodes to (almost exactly) its colour. stb_image_write always writes YCbCr, so
  // this one comes back with 3 channels.
  std::string jpeg;
  std::vector<std::uint8_t> flat(16 * 8 * 3);
  for (std::size_t i = 0; i < flat.size(); ++i) flat[i] = i % 3 == 0 ? 100 : i % 3 == 1 ? 150 : 40;
  REQUIRE(stbi_write_jpg_to_func(write_with_stb, &jpeg, 16, 8, 3, flat.data(), 95));
  write_bytes(dir.file("flat.jpg"), jpeg);
  const cc::Image colour = cc::load_image(dir.file("flat.jpg"));
  CHECK(colour.width == 16);
  CHECK(colour.height == 8);
  REQUIRE(colour.channels == 3);
  CHECK(colour.eight_bit);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 16; ++x) CHECK(std::fabs(colour.at(c, y, x) - flat[c]) <= 3);

  // BMP is lossless: an odd width (row padding) with distinct values comes back exactly.
  std::vector<std::uint8_t> pixels(5 * 3 * 3);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 5);
  std::string bmp;
  REQUIRE(stbi_write_bmp_to_func(write_with_stb, &bmp, 5, 3, 3, pixels.data()));
  write_bytes(dir.file("odd.bmp"), bmp);
  const cc::Image loaded = cc::load_image(dir.file("odd.bmp"));
  REQUIRE(loaded.channels == 3);
  CHECK(loaded.at(0, 0, 0) == 0);    // pixel (0,0) red
  CHECK(loaded.at(2, 0, 1) == 25);   // pixel (1,0) blue = byte 5
  CHECK(loaded.at(1, 2, 4) == 215);  // pixel (4,2) green = byte (2*5+4)*3+1 = 43
}

TEST_CASE("bad image files are InputErrors with one line naming the file") {
  TempDir dir("io");
  const std::string missing = dir.file("missing.png");
  CHECK(error_of(missing) == "cannot open image '" + missing + "': No such file or directory");
  CHECK(error_of(dir.path.string()) == "cannot open image '" + dir.path.string() + "': it is a directory");

  write_bytes(dir.file("empty.png"), "");
  CHECK(error_of(dir.file("empty.png")) == "image '" + dir.file("empty.png") + "': the file is empty");

  write_bytes(dir.file("text.png"), "hello, not an image\n");
  CHECK(error_of(dir.file("text.png")) == "image '" + dir.file("text.png") + "': not a PNG, JPEG, BMP or PFM file");

  cc::save_png(cc::make_default_image(64, 64, 3), dir.file("whole.png"));
  const std::string png = read_bytes(dir.file("whole.png"));
  write_bytes(dir.file("half.png"), png.substr(0, png.size() / 2));
  CHECK(error_of(dir.file("half.png")) ==
        "image '" + dir.file("half.png") + "': truncated PNG: the file ends while decoding the image");

  write_bytes(dir.file("corrupt.jpg"), std::string("\xff\xd8\xff\xe0", 4) + std::string(200, '\x5a'));
#if CONVCOMPARE_WITH_TURBOJPEG
  CHECK(error_of(dir.file("corrupt.jpg")) ==
        "image '" + dir.file("corrupt.jpg") + "': bad JPEG: the data end before a frame header");
#else
  CHECK(error_of(dir.file("corrupt.jpg")).find("image '" + dir.file("corrupt.jpg") + "': ") == 0);
#endif
  // A valid JPEG whose entropy-coded data is cut off.
  std::string jpeg;
  const cc::Image chart = cc::make_default_image(32, 32, 3);
  std::vector<std::uint8_t> pixels(chart.data.size());
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(chart.data[i]);
  REQUIRE(stbi_write_jpg_to_func(write_with_stb, &jpeg, 32, 32, 3, pixels.data(), 90));
  write_bytes(dir.file("cut.jpg"), jpeg.substr(0, 200));
  CHECK(error_of(dir.file("cut.jpg")) != "(no error)");

  const std::string error = error_of(dir.file("half.png"));
  CHECK(error.find('\n') == std::string::npos);
}

#if CONVCOMPARE_WITH_TURBOJPEG
// stb 2.27 writes past its Huffman tables on this file (a DHT segment declaring more than 256 codes), already
// in stbi_info; under ASan that is an abort. stb's JPEG reader is not built when libjpeg-turbo is there.
TEST_CASE("the 9-byte JPEG that overflows stb 2.27's Huffman tables is an InputError") {
  TempDir dir("io");
  write_bytes(dir.file("dht.jpg"), std::string("\xFF\xD8\xFF\xC4\x01\x01\x01\xFF\xFF", 9));
  CHECK(error_of(dir.file("dht.jpg")) == "image '" + dir.file("dht.jpg") + "': bad JPEG: Bogus Huffman table definition");
}

TEST_CASE("a greyscale JPEG comes back with one channel") {
  TempDir dir("io");
  std::vector<unsigned char> grey(8 * 8);
  for (std::size_t i = 0; i < grey.size(); ++i) grey[i] = i < 32 ? 60 : 200;  // top half dark, bottom bright
  tjhandle encoder = tjInitCompress();
  REQUIRE(encoder != nullptr);
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  const int status = tjCompress2(encoder, grey.data(), 8, 0, 8, TJPF_GRAY, &jpeg, &size, TJSAMP_GRAY, 95, 0);
  tjDestroy(encoder);
  REQUIRE(status == 0);
  write_bytes(dir.file("grey.jpg"), std::string(reinterpret_cast<const char*>(jpeg), size));
  tjFree(jpeg);
  const cc::Image image = cc::load_image(dir.file("grey.jpg"));
  REQUIRE(image.channels == 1);
  CHECK(image.eight_bit);
  CHECK(std::fabs(image.at(0, 0, 0) - 60) <= 3);
  CHECK(std::fabs(image.at(0, 7, 7) - 200) <= 3);
}
#endif

TEST_CASE("headers claiming huge sizes are refused before any pixel memory is allocated") {
  TempDir dir("io");
  const auto start = std::chrono::steady_clock::now();
  // Over the per-side cap: refused from the IHDR bytes, before libspng reads the chunk.
  write_bytes(dir.file("wide.png"), png_header(100000, 100000));
  CHECK(error_of(dir.file("wide.png")) ==
        "image '" + dir.file("wide.png") + "' is 100000x100000: each side must be at most 32768 pixels");
  // Each side legal, the pixel count not: refused by check_image_size, which names the size.
  write_bytes(dir.file("many.png"), png_header(20000, 20000));
  CHECK(error_of(dir.file("many.png")).find("20000x20000") != std::string::npos);
#if CONVCOMPARE_WITH_TURBOJPEG
  // The same for a JPEG: SOI, a 20000x20000 grey frame header and an empty scan header.
  write_bytes(dir.file("many.jpg"), std::string("\xFF\xD8\xFF\xC0\x00\x0B\x08\x4E\x20\x4E\x20\x01\x01\x11\x00"
                                                "\xFF\xDA\x00\x08\x01\x01\x00\x00\x3F\x00", 25));
  CHECK(error_of(dir.file("many.jpg")).find("20000x20000") != std::string::npos);
#endif

  write_bytes(dir.file("huge.pfm"), "Pf\n100000 100000\n-1.0\n" + little_endian(1));
  CHECK(error_of(dir.file("huge.pfm")).find("100000x100000") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
}

TEST_CASE("bad PFM files: anything but the exact grammar, and data of any other length, are refused") {
  TempDir dir("io");
  auto pfm_error = [&](const std::string& bytes) {
    write_bytes(dir.file("bad.pfm"), bytes);
    return error_of(dir.file("bad.pfm"));
  };
  const std::string one = little_endian(1);
  const std::string name = "image '" + dir.file("bad.pfm") + "': ";
  CHECK(pfm_error("Pf\n2 2\n-1.0\n" + one + one + one) ==
        name + "truncated PFM: 2x2x1 floats need 16 bytes of data, the file has 12");
  CHECK(pfm_error("Pf\n1 1\n-1.0\n" + one + one) == name + "PFM has 4 bytes after its 1x1x1 floats (4 bytes of data)");
  CHECK(pfm_error("Pf\n2 2\n-1.0") == name + "truncated PFM header: the file ends in the scale line");
  for (const char* scale : {"0", "-0.0", "nan", "inf", "-inf", "abc", "1e999", "", "1 ", " 1", "0x1p3", "1,5"}) {
    CAPTURE(scale);
    CHECK(pfm_error("Pf\n1 1\n" + std::string(scale) + "\n" + one).find(name + "bad PFM scale") == 0);
  }
  for (const char* size : {"-3 1", "3x 1", "1 1.5", "1  1", " 1 1", "1 1 ", "1\t1", "+1 1", "1", "1 1 1", "99999999999 1"}) {
    CAPTURE(size);
    CHECK(pfm_error("Pf\n" + std::string(size) + "\n-1\n" + one).find(name + "bad PFM size line") == 0);
  }
  CHECK(pfm_error("Pf\n0 1\n-1\n") == name.substr(0, name.size() - 2) + " has an empty size 0x1");
  CHECK(pfm_error("Pf\r\n1 1\n-1\n" + one) == name + "not a PFM file: it must start with \"Pf\" or \"PF\" and a line feed");
  CHECK(pfm_error("Pf 1 1 -1\n" + one) == name + "not a PFM file: it must start with \"Pf\" or \"PF\" and a line feed");
  CHECK(pfm_error("Pf\n1 1\r\n-1\n" + one) == name + "PFM size line ends in CR LF; PFM header lines end with a single LF");
  CHECK(pfm_error("Pf\n1 1\n-1\r\n" + one).find(name + "PFM scale line ends in CR LF") == 0);
  CHECK(pfm_error("Pf\n" + std::string(100000, '1')).find("is too long") != std::string::npos);
  CHECK(pfm_error("PG\n1 1\n-1\n" + one) == name + "not a PNG, JPEG, BMP or PFM file");

  write_bytes(dir.file("p6.pfm"), "P6\n1 1\n255\nabc");
  CHECK_THROWS_WITH_AS(cc::load_pfm(dir.file("p6.pfm")), doctest::Contains("not a PFM file"), cc::InputError);
}

TEST_CASE("saving: PFM channel counts and unwritable paths") {
  TempDir dir("io");
  CHECK_THROWS_WITH_AS(cc::save_pfm(cc::Image(2, 2, 2), dir.file("two.pfm")), doctest::Contains("1 or 3 channels"),
                       cc::InputError);
  CHECK_THROWS_WITH_AS(cc::save_pfm(cc::Image(2, 2, 4), dir.file("four.pfm")),
                       doctest::Contains("1 or 3 channels"), cc::InputError);
  const std::string nowhere = dir.file("no/such/dir/out.png");
  CHECK_THROWS_WITH_AS(cc::save_png(cc::Image(2, 2, 1), nowhere),
                       ("cannot write '" + nowhere + "': No such file or directory").c_str(), cc::InputError);
  // Replacing an existing file works, and leaves no temporary behind.
  cc::write_file_atomically(dir.file("a.txt"), "first");
  cc::write_file_atomically(dir.file("a.txt"), "second");
  CHECK(read_bytes(dir.file("a.txt")) == "second");
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
  // The replaced file's mode stays (a 0600 report stays 0600, not 0644); a hard link keeps the old file.
  fs::permissions(dir.file("a.txt"), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  fs::create_hard_link(dir.file("a.txt"), dir.file("b.txt"));
  cc::write_file_atomically(dir.file("a.txt"), "third");
  CHECK((fs::status(dir.file("a.txt")).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  CHECK(read_bytes(dir.file("a.txt")) == "third");
  CHECK(read_bytes(dir.file("b.txt")) == "second");
}

TEST_CASE("writing to a symlink writes through it: the link stays, its target changes (think /dev/stdout)") {
  TempDir dir("io");
  cc::write_file_atomically(dir.file("target.txt"), "old contents, longer than the new");
  fs::create_symlink(dir.file("target.txt"), dir.file("link.txt"));
  cc::write_file_atomically(dir.file("link.txt"), "new");
  CHECK(fs::is_symlink(dir.file("link.txt")));
  CHECK(fs::read_symlink(dir.file("link.txt")) == dir.file("target.txt"));
  CHECK(read_bytes(dir.file("target.txt")) == "new");
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 2);  // no temporary left
  // A dangling link gets its target created; a link to a directory is an error naming the path.
  fs::create_symlink(dir.file("created.txt"), dir.file("dangling.txt"));
  cc::write_file_atomically(dir.file("dangling.txt"), "made");
  CHECK(fs::is_symlink(dir.file("dangling.txt")));
  CHECK(read_bytes(dir.file("created.txt")) == "made");
  fs::create_directory(dir.file("sub"));
  fs::create_directory_symlink(dir.file("sub"), dir.file("sub-link"));
  CHECK_THROWS_WITH_AS(cc::write_file_atomically(dir.file("sub-link"), "x"),
                       ("cannot write '" + dir.file("sub-link") + "': Is a directory").c_str(), cc::InputError);
}

TEST_CASE("the default image is a deterministic 8-bit test chart of any size") {
  const cc::Image chart = cc::make_default_image(256, 192, 3);
  CHECK(chart.width == 256);
  CHECK(chart.height == 192);
  CHECK(chart.channels == 3);
  CHECK(chart.eight_bit);
  CHECK(chart.data == cc::make_default_image(256, 192, 3).data);
  CHECK(std::all_of(chart.data.begin(), chart.data.end(),
                    [](float v) { return v == std::round(v) && v >= 0 && v <= 255; }));
  CHECK(*std::min_element(chart.data.begin(), chart.data.end()) == 0);
  CHECK(*std::max_element(chart.data.begin(), chart.data.end()) == 255);
  CHECK(chart.at(0, 48, 192) == 232);                     // the disc's centre, channel 0
  CHECK(chart.at(1, 48, 192) == 48);                      // ... with another colour in channel 1
  CHECK(chart.at(0, 100, 150) != chart.at(0, 100, 151));  // the 1-pixel checkerboard
  CHECK(chart.at(0, 100, 150) == chart.at(0, 101, 151));

  const cc::Image grey = cc::make_default_image();
  CHECK(grey.width == 2048);
  CHECK(grey.height == 2048);
  CHECK(grey.channels == 1);

  for (int w : {1, 2, 3, 7})
    for (int h : {1, 2, 5})
      for (int c = 1; c <= 4; ++c) {
        CAPTURE(w);
        CAPTURE(h);
        CHECK(cc::make_default_image(w, h, c).data.size() == static_cast<std::size_t>(w * h * c));
      }
  CHECK_THROWS_AS(cc::make_default_image(0, 5, 1), cc::InputError);
  CHECK_THROWS_AS(cc::make_default_image(5, 5, 5), cc::InputError);
}

TEST_CASE("PNG through libspng: every colour type comes back with the channels and values it holds") {
  TempDir dir("io");
  const auto value = [](int x, int y, int s) { return (x * 40 + y * 7 + s * 60) % 256; };
  struct Case {
    int colour_type, samples, channels;
  };
  for (const Case& c : {Case{0, 1, 1}, Case{4, 2, 2}, Case{2, 3, 3}, Case{6, 4, 4}}) {
    CAPTURE(c.colour_type);
    cc::test::PngSpec spec{5, 3, 8, c.colour_type, cc::test::png_rows(5, 3, c.samples, value)};
    cc::test::write_binary(dir / "p.png", cc::test::png_file(spec));
    const cc::Image image = cc::load_image(dir / "p.png");
    REQUIRE(image.channels == c.channels);
    CHECK(image.eight_bit);
    for (int ch = 0; ch < c.channels; ++ch)
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 5; ++x) CHECK(image.at(ch, y, x) == value(x, y, ch));
  }
  // 16-bit grey: the high byte, as 8-bit readers do.
  cc::test::PngSpec deep{2, 1, 16, 0, std::string("\0\x12\x34\xfe\x01", 5)};
  cc::test::write_binary(dir / "deep.png", cc::test::png_file(deep));
  CHECK(cc::load_image(dir / "deep.png").data == std::vector<float>{0x12, 0xfe});
  // A palette with a tRNS chunk: RGBA, the alpha from tRNS.
  cc::test::PngSpec palette{2, 1, 8, 3, std::string("\0\x01\x00", 3)};
  palette.before_idat = cc::test::png_chunk("PLTE", std::string("\x0a\x14\x1e\x28\x32\x3c", 6)) +
                        cc::test::png_chunk("tRNS", std::string("\x80", 1));
  cc::test::write_binary(dir / "palette.png", cc::test::png_file(palette));
  const cc::Image rgba = cc::load_image(dir / "palette.png");
  REQUIRE(rgba.channels == 4);
  CHECK(rgba.data == std::vector<float>{40, 10, 50, 20, 60, 30, 255, 128});  // planes R, G, B, A; pixel 0 is index 1
}

TEST_CASE("PNG checksums are verified: a flipped byte is refused, not loaded as another pixel") {
  TempDir dir("io");
  cc::test::PngSpec spec{16, 16, 8, 0, cc::test::png_rows(16, 16, 1, [](int x, int y, int) { return x * 16 + y; })};
  const std::string zlib_stream = cc::test::zlib_compress(spec.rows);
  const std::string good = cc::test::png_file(spec, zlib_stream);
  const std::size_t idat = good.find("IDAT") + 4;
  REQUIRE(cc::load_image((cc::test::write_binary(dir / "good.png", good), dir / "good.png")).width == 16);

  std::string flipped = good;  // one bit of the compressed data: the chunk CRC no longer matches
  flipped[idat + zlib_stream.size() / 2] ^= 0x04;
  cc::test::write_binary(dir / "crc.png", flipped);
  CHECK(error_of(dir / "crc.png").find("image '" + dir.file("crc.png") + "': bad PNG") == 0);

  // The same bit with the chunk CRC made right again: the zlib stream's Adler-32 (or its structure)
  // still catches it.
  std::string stream = zlib_stream;
  stream[stream.size() - 6] ^= 0x04;
  cc::test::write_binary(dir / "adler.png", cc::test::png_file(spec, stream));
  CHECK(error_of(dir / "adler.png").find("image '" + dir.file("adler.png") + "': bad PNG") == 0);

  std::string header = good;  // a flipped byte in IHDR (the colour type)
  header[8 + 8 + 9] ^= 0x02;
  cc::test::write_binary(dir / "ihdr.png", header);
  CHECK(error_of(dir / "ihdr.png").find("bad PNG while reading the chunks before the image data: invalid chunk checksum") !=
        std::string::npos);
}

TEST_CASE("PNG bounds: an inflate bomb decodes only the declared rows; lying sizes and short data are refused") {
  TempDir dir("io");
  // 64x48 whose zlib stream goes on for 256 MB of zeros past the rows (a 250 KB file).
  cc::test::PngSpec bomb{64, 48, 8, 0, cc::test::png_rows(64, 48, 1, [](int x, int y, int) { return x + y; })};
  const std::string rows = bomb.rows;
  bomb.rows += std::string(256u << 20, '\0');
  cc::test::write_binary(dir / "bomb.png", cc::test::png_file(bomb));
  bomb.rows.clear();
  const auto start = std::chrono::steady_clock::now();
  const cc::Image image = cc::load_image(dir / "bomb.png");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  CHECK(image.width == 64);
  CHECK(image.at(0, 47, 63) == 63 + 47);

  // The header claims more rows than the data hold.
  cc::test::PngSpec short_data{64, 480, 8, 0, rows};
  cc::test::write_binary(dir / "short.png", cc::test::png_file(short_data));
  CHECK(error_of(dir / "short.png") == "image '" + dir.file("short.png") + "': truncated PNG: the file ends while decoding the image");
  // Each side under the cap, the pixel count over it: refused from the header alone.
  cc::test::PngSpec many{20000, 20000, 8, 0, rows};
  cc::test::write_binary(dir / "many.png", cc::test::png_file(many));
  CHECK(error_of(dir / "many.png") == "image '" + dir.file("many.png") + "' is 20000x20000 = 400000000 pixels: at most 268435456 are supported");
}

TEST_CASE("BMP: top-down (negative height) and bottom-up files give the same image; short data are refused") {
  TempDir dir("io");
  const auto rgb = [](int x, int y, int c) { return x * 50 + y * 20 + c * 3; };
  cc::test::write_binary(dir / "down.bmp", cc::test::bmp_file(5, 3, true, rgb));
  cc::test::write_binary(dir / "up.bmp", cc::test::bmp_file(5, 3, false, rgb));
  const cc::Image down = cc::load_image(dir / "down.bmp"), up = cc::load_image(dir / "up.bmp");
  REQUIRE(down.channels == 3);
  CHECK(down.height == 3);
  CHECK(down.data == up.data);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x) CHECK(down.at(c, y, x) == rgb(x, y, c));

  const std::string whole = cc::test::bmp_file(5, 3, true, rgb);
  cc::test::write_binary(dir / "short.bmp", whole.substr(0, whole.size() - 7));
  CHECK(error_of(dir / "short.bmp") ==
        "image '" + dir.file("short.bmp") + "': truncated BMP: 5x3 pixels of 24 bits need 102 bytes, the file has 95");
}

TEST_CASE("JPEG: a file far longer than its frame header justifies is refused without reading it all") {
  TempDir dir("io");
  // A 64x48 frame header, then 40 MB: no 64x48 JPEG needs more than the markers' 16 MB and 4 bytes a sample.
  const std::string path = dir / "long.jpg";
  cc::test::write_binary(path, cc::test::jpeg_header(64, 48));
  fs::resize_file(path, 40u << 20);
  CHECK(error_of(path).find("image '" + path + "': it holds 40 MB, over the 16 MB limit (the most a 64x48 JPEG needs)") == 0);
}

TEST_CASE("a registered temporary file is removed when SIGTERM or SIGINT ends the process; others stay") {
  for (const int signal_number : {SIGTERM, SIGINT}) {
    CAPTURE(signal_number);
    TempDir dir("io");
    cc::test::write_binary(dir / "report.json.tmp-1", "half written");
    cc::test::write_binary(dir / "input.png", "kept");
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      cc::remove_temporaries_on_signals();
      const cc::TemporaryFile temporary(dir / "report.json.tmp-1");
      raise(signal_number);
      _exit(0);  // not reached: the handler ends the process by the signal
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == signal_number);
    CHECK_FALSE(fs::exists(dir / "report.json.tmp-1"));
    CHECK(fs::exists(dir / "input.png"));
  }
}
