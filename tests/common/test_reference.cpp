// test_reference.cpp: the CPU reference against values worked out by hand, for every border rule.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "common/domain/reference.h"
#include "tests/support/fixtures.h"

namespace {

using cc::Border;
using cc::testing::kBorders;
cc::Image image_from(int width, int height, std::vector<float> values) {
  cc::Image image(width, height, 1);
  image.data = std::move(values);
  return image;
}

cc::Filter filter_from(int width, int height, std::vector<float> weights) {
  return cc::Filter{"test", width, height, std::move(weights)};
}

cc::Image convolve(const cc::Image& image, const cc::Filter& filter, Border border, bool flip = false) {
  return cc::reference_convolve(image, cc::make_problem(image, filter, border, flip));
}

// The 3x3 image 1..9, row by row, used by the hand-worked border cases.
const cc::Image kNine = image_from(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9});
const cc::Filter kBox3 = filter_from(3, 3, std::vector<float>(9, 1.0f));

}  // namespace

TEST_CASE("reference: a delta filter returns the input exactly under every border") {
  std::mt19937 random(7);
  std::uniform_real_distribution<float> value(-100.0f, 100.0f);
  cc::Image image(13, 6, 3);
  for (float& v : image.data) v = value(random);
  const cc::Filter delta = filter_from(3, 3, {0, 0, 0, 0, 1, 0, 0, 0, 0});
  for (Border border : kBorders) {
    CAPTURE(cc::to_string(border));
    const cc::Image out = convolve(image, delta, border);
    CHECK(out.width == 13);
    CHECK(out.height == 6);
    CHECK(out.channels == 3);
    CHECK(out.data == image.data);
  }
}

TEST_CASE("reference: 3x3 box at the corner of the 3x3 image 1..9, each border by hand") {
  // Pixel (0, 0) reads rows and columns -1, 0, 1; only the border rule decides what -1 means.
  // zero:   -1 reads 0:            1 + 2 + 4 + 5                                        = 12
  // clamp:  -1 -> 0: rows 0,0,1 x cols 0,0,1: (1+1+2) + (1+1+2) + (4+4+5)                = 21
  // mirror: -1 -> 1: rows 1,0,1 x cols 1,0,1: (5+4+5) + (2+1+2) + (5+4+5)                = 33
  // wrap:   -1 -> 2: rows 2,0,1 x cols 2,0,1: (9+7+8) + (3+1+2) + (6+4+5)                = 45
  CHECK(convolve(kNine, kBox3, Border::Zero).at(0, 0, 0) == 12);
  CHECK(convolve(kNine, kBox3, Border::Clamp).at(0, 0, 0) == 21);
  CHECK(convolve(kNine, kBox3, Border::Mirror).at(0, 0, 0) == 33);
  CHECK(convolve(kNine, kBox3, Border::Wrap).at(0, 0, 0) == 45);
  // The centre reads only inside pixels: 1 + ... + 9 = 45 whatever the border.
  for (Border border : kBorders) CHECK(convolve(kNine, kBox3, border).at(0, 1, 1) == 45);
  // Bottom-right corner, zero border: 5 + 6 + 8 + 9 = 28; wrap sees the whole periodic image: 45.
  CHECK(convolve(kNine, kBox3, Border::Zero).at(0, 2, 2) == 28);
  CHECK(convolve(kNine, kBox3, Border::Wrap).at(0, 2, 2) == 45);
}

TEST_CASE("reference: a 5x5 box on a 1x1 image, radius larger than the image") {
  const cc::Image one = image_from(1, 1, {7.0f});
  const cc::Filter box5 = filter_from(5, 5, std::vector<float>(25, 1.0f / 25));
  // Zero border: only the centre tap reads a pixel, 7/25. The others fold every tap onto the one
  // pixel: 25 * 7/25 = 7.
  CHECK(convolve(one, box5, Border::Zero).at(0, 0, 0) == doctest::Approx(7.0 / 25).epsilon(1e-6));
  for (Border border : {Border::Clamp, Border::Mirror, Border::Wrap})
    CHECK(convolve(one, box5, border).at(0, 0, 0) == doctest::Approx(7.0).epsilon(1e-6));
}

TEST_CASE("reference: 1-pixel-high and 1-pixel-wide images") {
  const cc::Filter f = filter_from(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  SUBCASE("1x5 row") {
    const cc::Image row = image_from(5, 1, {1, 2, 3, 4, 5});
    // zero: only the middle filter row (4 5 6) reads the image.
    const cc::Image zero = convolve(row, f, Border::Zero);
    CHECK(zero.at(0, 0, 0) == 5 * 1 + 6 * 2);          // 17
    CHECK(zero.at(0, 0, 2) == 4 * 2 + 5 * 3 + 6 * 4);  // 47
    CHECK(zero.at(0, 0, 4) == 4 * 4 + 5 * 5);          // 41
    // clamp: all three filter rows read the one row: column sums 12 15 18, and x = -1 reads x = 0.
    const cc::Image clamp = convolve(row, f, Border::Clamp);
    CHECK(clamp.at(0, 0, 0) == 12 * 1 + 15 * 1 + 18 * 2);  // 63
    CHECK(clamp.at(0, 0, 2) == 12 * 2 + 15 * 3 + 18 * 4);  // 141
    CHECK(clamp.at(0, 0, 4) == 12 * 4 + 15 * 5 + 18 * 5);  // 213
  }
  SUBCASE("5x1 column") {
    const cc::Image column = image_from(1, 5, {1, 2, 3, 4, 5});
    // zero: only the middle filter column (2 5 8, top to bottom) reads the image.
    const cc::Image zero = convolve(column, f, Border::Zero);
    CHECK(zero.at(0, 0, 0) == 5 * 1 + 8 * 2);          // 21
    CHECK(zero.at(0, 2, 0) == 2 * 2 + 5 * 3 + 8 * 4);  // 51
    CHECK(zero.at(0, 4, 0) == 2 * 4 + 5 * 5);          // 33
    // mirror: a 1-pixel line reflects onto itself, so each filter row contributes its sum (6 15 24);
    // vertically y = -1 reads y = 1 and y = 5 reads y = 3.
    const cc::Image mirror = convolve(column, f, Border::Mirror);
    CHECK(mirror.at(0, 0, 0) == 6 * 2 + 15 * 1 + 24 * 2);  // 75
    CHECK(mirror.at(0, 4, 0) == 6 * 4 + 15 * 5 + 24 * 4);  // 195
  }
}

TEST_CASE("reference: non-square 5x3 filter with distinct weights") {
  // Image (4 wide, 3 high): 10 * y + x.   Filter (5 wide, 3 high), weights 1..15 row by row:
  //    0  1  2  3                          1  2  3  4  5
  //   10 11 12 13                          6  7  8  9 10
  //   20 21 22 23                         11 12 13 14 15
  const cc::Image image = image_from(4, 3, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  std::vector<float> weights(15);
  for (int i = 0; i < 15; ++i) weights[i] = static_cast<float>(i + 1);
  const cc::Filter f = filter_from(5, 3, weights);
  const cc::Image out = convolve(image, f, Border::Zero);
  // (0, 0): filter row 0 falls above the image; row 1 reads image row 0 at columns 0..2 with
  // weights 8 9 10; row 2 reads image row 1 at columns 0..2 with weights 13 14 15.
  CHECK(out.at(0, 0, 0) == 8 * 0 + 9 * 1 + 10 * 2 + 13 * 10 + 14 * 11 + 15 * 12);  // 493
  // (3, 1): columns 1..3 are inside, filter columns 0..2.
  CHECK(out.at(0, 1, 3) == 1 * 1 + 2 * 2 + 3 * 3 + 6 * 11 + 7 * 12 + 8 * 13 + 11 * 21 + 12 * 22 + 13 * 23);  // 1062
  // Every pixel against a brute-force sum that tests bounds directly.
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x) {
      double sum = 0;
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 5; ++i) {
          const int sy = y + j - 1, sx = x + i - 2;
          if (sy >= 0 && sy < 3 && sx >= 0 && sx < 4) sum += f.at(j, i) * image.at(0, sy, sx);
        }
      CAPTURE(x);
      CAPTURE(y);
      CHECK(out.at(0, y, x) == sum);
    }
}

TEST_CASE("reference: flip applies the filter rotated by 180 degrees") {
  // A single 1 in the top-left corner: correlation reads the pixel up-left, convolution down-right.
  const cc::Filter corner = filter_from(3, 3, {1, 0, 0, 0, 0, 0, 0, 0, 0});
  const cc::Image correlated = convolve(kNine, corner, Border::Zero, false);
  const cc::Image convolved = convolve(kNine, corner, Border::Zero, true);
  CHECK(correlated.at(0, 1, 1) == 1);  // reads (0, 0)
  CHECK(convolved.at(0, 1, 1) == 9);   // reads (2, 2)
  CHECK(correlated.at(0, 0, 0) == 0);
  CHECK(convolved.at(0, 0, 0) == 5);

  // An asymmetric non-square filter: flip = correlation with the rotation written out by hand.
  const cc::Filter f = filter_from(5, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  const cc::Filter rotated = filter_from(5, 3, {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  std::mt19937 random(3);
  std::uniform_real_distribution<float> value(0.0f, 255.0f);
  cc::Image image(9, 7, 2);
  for (float& v : image.data) v = value(random);
  for (Border border : kBorders) {
    CAPTURE(cc::to_string(border));
    const cc::Image flipped_run = convolve(image, f, border, true);
    CHECK(flipped_run.data == convolve(image, rotated, border, false).data);
    CHECK(flipped_run.data != convolve(image, f, border, false).data);
  }
}

TEST_CASE("reference: mirror and wrap fold radii larger than the image by their period") {
  // Row 1 2 3 with a 9x1 box (radius 4). Column x + k, k = -4..4, reads:
  //   mirror (period 4): -4->0 -3->1 -2->2 -1->1 | 0 1 2 | 3->1 4->0 5->1 6->2
  //   wrap   (period 3): -4->2 -3->0 -2->1 -1->2 | 0 1 2 | 3->0 4->1 5->2 6->0
  const cc::Image row = image_from(3, 1, {1, 2, 3});
  const cc::Filter box9 = filter_from(9, 1, std::vector<float>(9, 1.0f));
  const cc::Image mirror = convolve(row, box9, Border::Mirror);
  CHECK(mirror.at(0, 0, 0) == 1 + 2 + 3 + 2 + 1 + 2 + 3 + 2 + 1);  // 17
  CHECK(mirror.at(0, 0, 2) == 3 + 2 + 1 + 2 + 3 + 2 + 1 + 2 + 3);  // x = 2: columns -2..6, 19
  const cc::Image wrap = convolve(row, box9, Border::Wrap);
  CHECK(wrap.at(0, 0, 0) == 3 + 1 + 2 + 3 + 1 + 2 + 3 + 1 + 2);  // 18
  CHECK(wrap.at(0, 0, 1) == 1 + 2 + 3 + 1 + 2 + 3 + 1 + 2 + 3);  // columns -3..5, 18
  CHECK(convolve(row, box9, Border::Clamp).at(0, 0, 0) == 4 * 1 + 1 + 2 + 3 + 2 * 3);  // 16
  CHECK(convolve(row, box9, Border::Zero).at(0, 0, 0) == 1 + 2 + 3);                   // 6
  // The same fold vertically: a 1x9 box down the column 1 2 3.
  const cc::Image column = image_from(1, 3, {1, 2, 3});
  const cc::Filter box9_tall = filter_from(1, 9, std::vector<float>(9, 1.0f));
  CHECK(convolve(column, box9_tall, Border::Mirror).at(0, 0, 0) == 17);
  CHECK(convolve(column, box9_tall, Border::Wrap).at(0, 0, 0) == 18);
}

TEST_CASE("reference: a NaN pixel spreads to exactly the outputs that read it") {
  cc::Image image(5, 5, 1);
  image.at(0, 2, 2) = std::numeric_limits<float>::quiet_NaN();
  image.at(0, 0, 0) = 4;
  const cc::Image out = convolve(image, kBox3, Border::Zero);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 5; ++x) {
      CAPTURE(x);
      CAPTURE(y);
      const bool reads_nan = std::abs(x - 2) <= 1 && std::abs(y - 2) <= 1;
      CHECK(std::isnan(out.at(0, y, x)) == reads_nan);
    }
  CHECK(out.at(0, 0, 0) == 4);
  CHECK(out.at(0, 0, 4) == 0);
}

TEST_CASE("reference: result does not depend on how rows are split between threads") {
  // Tall enough that every core gets rows, compared with a one-pixel-at-a-time double sum.
  std::mt19937 random(11);
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  cc::Image image(17, 211, 2);
  for (float& v : image.data) v = value(random);
  std::vector<float> weights(35);
  for (float& w : weights) w = value(random) - 0.5f;
  const cc::Filter f = filter_from(7, 5, weights);
  for (Border border : kBorders) {
    CAPTURE(cc::to_string(border));
    const cc::Image out = convolve(image, f, border);
    const int b = static_cast<int>(border);
    bool all_equal = true;
    for (int c = 0; c < 2; ++c)
      for (int y = 0; y < 211; ++y)
        for (int x = 0; x < 17; ++x) {
          double sum = 0;
          for (int j = 0; j < 5; ++j)
            for (int i = 0; i < 7; ++i) {
              const int sy = cc_border_index(y + j - 2, 211, b), sx = cc_border_index(x + i - 3, 17, b);
              if (sy >= 0 && sx >= 0) sum += f.at(j, i) * static_cast<double>(image.at(c, sy, sx));
            }
          all_equal &= out.at(c, y, x) == static_cast<float>(sum);
        }
    CHECK(all_equal);
  }
}
