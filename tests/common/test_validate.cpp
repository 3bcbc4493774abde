// test_validate.cpp: the tolerance rule, exact mode, NaN/Inf handling and the first-failure report.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <limits>

#include "common/domain/reference.h"
#include "common/domain/validate.h"

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

cc::Problem problem_for(const cc::Image& image, int filter_side, float weight) {
  const cc::Filter f{"test", filter_side, filter_side,
                     std::vector<float>(static_cast<std::size_t>(filter_side) * filter_side, weight)};
  return cc::make_problem(image, f, cc::Border::Zero, false);
}

cc::Image filled(int width, int height, int channels, float value) {
  cc::Image image(width, height, channels);
  std::fill(image.data.begin(), image.data.end(), value);
  return image;
}

}  // namespace

TEST_CASE("tolerance: the formula c * FLT_EPSILON * sum|w| * max|x|, c = max(8, taps / 2 + 1)") {
  cc::Image image = filled(4, 4, 1, 1.5f);
  image.at(0, 2, 1) = -200.5f;  // max |x|, not an integer
  image.at(0, 3, 3) = kInf;     // not finite: does not count towards max |x|
  SUBCASE("9 taps: c = max(8, 5.5) = 8") {
    const cc::Tolerance t = cc::tolerance_for(problem_for(image, 3, 0.5f), image);
    CHECK_FALSE(t.exact);
    CHECK(t.value == doctest::Approx(8 * FLT_EPSILON * 4.5 * 200.5));
  }
  SUBCASE("49 taps: c = 49 / 2 + 1 = 25.5") {
    const cc::Tolerance t = cc::tolerance_for(problem_for(image, 7, -0.25f), image);
    CHECK_FALSE(t.exact);
    CHECK(t.value == doctest::Approx(25.5 * FLT_EPSILON * 12.25 * 200.5));
  }
}

TEST_CASE("tolerance: integer-exact mode needs integer weights, integer pixels and sums under 2^24") {
  cc::Image image = filled(5, 3, 2, 3.0f);
  image.at(1, 2, 4) = -255.0f;
  const cc::Tolerance exact = cc::tolerance_for(problem_for(image, 3, 2.0f), image);
  CHECK(exact.exact);
  CHECK(exact.value == 0);

  CHECK_FALSE(cc::tolerance_for(problem_for(image, 3, 0.5f), image).exact);  // fractional weights
  image.at(0, 0, 0) = 3.25f;
  CHECK_FALSE(cc::tolerance_for(problem_for(image, 3, 2.0f), image).exact);  // one fractional pixel
  image.at(0, 0, 0) = 40000.0f;  // 9 taps * 2 * 40000 = 720000 < 2^24: still exact
  CHECK(cc::tolerance_for(problem_for(image, 3, 2.0f), image).exact);
  // 81 taps * 300 * 40000 = 9.72e8 >= 2^24: partial sums could round in float.
  CHECK_FALSE(cc::tolerance_for(problem_for(image, 9, 300.0f), image).exact);
}

TEST_CASE("fft tolerance: looser than the direct bound and grows with the image") {
  const cc::Image small = filled(16, 16, 1, 100.5f), large = filled(1024, 1024, 1, 100.5f);
  const cc::Problem p_small = problem_for(small, 3, 0.5f), p_large = problem_for(large, 3, 0.5f);
  const cc::Tolerance fft_small = cc::fft_tolerance_for(p_small, small);
  CHECK_FALSE(fft_small.exact);
  CHECK(fft_small.value >= cc::tolerance_for(p_small, small).value);
  // 16 * log2(18 * 18) * FLT_EPSILON * 4.5 * 100.5
  CHECK(fft_small.value == doctest::Approx(16 * std::log2(18.0 * 18.0) * FLT_EPSILON * 4.5 * 100.5));
  CHECK(cc::fft_tolerance_for(p_large, large).value > fft_small.value);
  // Integer data gets no exact mode through an FFT.
  const cc::Image integers = filled(8, 8, 1, 7.0f);
  CHECK_FALSE(cc::fft_tolerance_for(problem_for(integers, 3, 1.0f), integers).exact);
}

TEST_CASE("validate: exact mode passes bit-identical results and fails on a 1-ulp change") {
  cc::Image image(6, 5, 1);
  for (std::size_t i = 0; i < image.data.size(); ++i) image.data[i] = static_cast<float>((i * 37) % 256);
  const cc::Problem problem = problem_for(image, 3, 3.0f);
  const cc::Tolerance tolerance = cc::tolerance_for(problem, image);
  REQUIRE(tolerance.exact);
  const cc::Image reference = cc::reference_convolve(image, problem);

  cc::Image result = reference;
  const cc::Validation same = cc::validate(result, reference, tolerance);
  CHECK(same.passed);
  CHECK(same.exact);
  CHECK(same.max_abs_error == 0);
  CHECK(same.rel_l2_error == 0);
  CHECK(same.message().empty());

  result.at(0, 3, 4) = std::nextafter(reference.at(0, 3, 4), 1e9f);
  const cc::Validation off = cc::validate(result, reference, tolerance);
  CHECK_FALSE(off.passed);
  CHECK(off.bad_x == 4);
  CHECK(off.bad_y == 3);
  CHECK(off.bad_channel == 0);
  CHECK(off.max_abs_error > 0);
  CHECK(off.message().find("pixel (4, 3) channel 0") == 0);
  CHECK(off.message().find("integer-exact") != std::string::npos);
}

TEST_CASE("validate: errors, the first failing pixel in channel, row, column order, and the message") {
  const cc::Image reference = filled(4, 3, 2, 2.0f);
  cc::Image result = reference;
  result.at(1, 2, 0) = 2.5f;  // fails, but later in plane order
  result.at(1, 0, 3) = 3.0f;  // the first failure: channel 1, row 0, column 3
  result.at(0, 1, 1) = 2.0625f;  // within tolerance
  const cc::Validation v = cc::validate(result, reference, cc::Tolerance{0.1, false});
  CHECK_FALSE(v.passed);
  CHECK(v.bad_channel == 1);
  CHECK(v.bad_y == 0);
  CHECK(v.bad_x == 3);
  CHECK(v.bad_value == 3.0);
  CHECK(v.bad_expected == 2.0);
  CHECK(v.max_abs_error == 1.0);
  CHECK(v.tolerance == 0.1);
  // ||diff|| = sqrt(1 + 0.25 + 0.0625^2), ||ref|| = sqrt(24 * 4)
  CHECK(v.rel_l2_error == doctest::Approx(std::sqrt((1 + 0.25 + 0.0625 * 0.0625) / 96.0)));
  CHECK(v.message() == "pixel (3, 0) channel 1: got 3, expected 2, |diff| 1 > tolerance 0.1");

  result.at(1, 0, 3) = 2.0f;
  result.at(1, 2, 0) = 2.0f;
  const cc::Validation ok = cc::validate(result, reference, cc::Tolerance{0.1, false});
  CHECK(ok.passed);
  CHECK(ok.max_abs_error == 0.0625);
  CHECK(ok.bad_channel == -1);
}

TEST_CASE("validate: relative L2 against an all-zero reference is the absolute norm") {
  const cc::Image reference = filled(2, 2, 1, 0.0f);
  cc::Image result = reference;
  CHECK(cc::validate(result, reference, cc::Tolerance{1, false}).rel_l2_error == 0);
  result.at(0, 0, 0) = 0.3f;
  result.at(0, 1, 1) = -0.4f;
  CHECK(cc::validate(result, reference, cc::Tolerance{1, false}).rel_l2_error == doctest::Approx(0.5));
}

TEST_CASE("validate: NaN and Inf") {
  cc::Image reference = filled(3, 2, 1, 1.0f);
  reference.at(0, 0, 1) = kNaN;
  reference.at(0, 1, 2) = -kInf;
  cc::Image result = reference;

  SUBCASE("matched NaN and Inf pass and are counted") {
    const cc::Validation v = cc::validate(result, reference, cc::Tolerance{0.01, false});
    CHECK(v.passed);
    CHECK(v.nonfinite_matched == 2);
    CHECK(v.max_abs_error == 0);
  }
  SUBCASE("a number where the reference has NaN fails") {
    result.at(0, 0, 1) = 1.0f;
    const cc::Validation v = cc::validate(result, reference, cc::Tolerance{0.01, false});
    CHECK_FALSE(v.passed);
    CHECK(v.bad_x == 1);
  }
  SUBCASE("the opposite infinity fails") {
    result.at(0, 1, 2) = kInf;
    const cc::Validation v = cc::validate(result, reference, cc::Tolerance{0.01, false});
    CHECK_FALSE(v.passed);
    CHECK(v.bad_x == 2);
    CHECK(v.bad_y == 1);
  }
  SUBCASE("NaN where the reference is finite fails, as a poisoned pixel would") {
    result.at(0, 1, 0) = kNaN;
    const cc::Validation v = cc::validate(result, reference, cc::Tolerance{1e30, false});
    CHECK_FALSE(v.passed);
    CHECK(v.bad_x == 0);
    CHECK(v.bad_y == 1);
    CHECK(std::isinf(v.max_abs_error));
    CHECK(v.message() == "pixel (0, 1) channel 0: got nan, expected 1 (non-finite mismatch)");
  }
}

TEST_CASE("validate: a result of another shape fails") {
  const cc::Image reference = filled(4, 4, 1, 1.0f);
  for (const cc::Image& result : {filled(4, 3, 1, 1.0f), filled(3, 4, 1, 1.0f), filled(4, 4, 3, 1.0f)}) {
    const cc::Validation v = cc::validate(result, reference, cc::Tolerance{1, false});
    CHECK_FALSE(v.passed);
    CHECK(v.message().find("shape") != std::string::npos);
  }
}

TEST_CASE("8-bit results: the rounded, saturated reference, either neighbour only near x.5") {
  cc::Image reference = filled(5, 1, 1, 0.0f);
  reference.at(0, 0, 0) = 10.2f;    // rounds to 10
  reference.at(0, 0, 1) = 10.5f;    // a boundary: 10 or 11
  reference.at(0, 0, 2) = 300.0f;   // saturates to 255
  reference.at(0, 0, 3) = -7.0f;    // saturates to 0
  reference.at(0, 0, 4) = 20.51f;   // 0.01 from a boundary
  cc::Image result = filled(5, 1, 1, 0.0f);
  for (const auto& [x, value] : {std::pair{0, 10.0f}, std::pair{1, 11.0f}, std::pair{2, 255.0f}, std::pair{3, 0.0f},
                                 std::pair{4, 21.0f}})
    result.at(0, 0, x) = value;
  const cc::Tolerance loose{0.02, false, true}, tight{0.001, false, true};
  CHECK_MESSAGE(cc::validate(result, reference, loose).passed, cc::validate(result, reference, loose).message());
  SUBCASE("the other neighbour passes within the bound of x.5, not beyond it") {
    result.at(0, 0, 4) = 20.0f;
    CHECK(cc::validate(result, reference, loose).passed);
    const cc::Validation v = cc::validate(result, reference, tight);
    CHECK_FALSE(v.passed);
    CHECK(v.bad_x == 4);
    CHECK(v.bad_expected == 21.0);
    CHECK(v.message().find("rounded to nearest") != std::string::npos);
  }
  SUBCASE("a value off by one level fails, far from any boundary") {
    result.at(0, 0, 0) = 11.0f;
    CHECK_FALSE(cc::validate(result, reference, loose).passed);
  }
  SUBCASE("saturation is not optional") {
    result.at(0, 0, 2) = 254.0f;
    CHECK_FALSE(cc::validate(result, reference, loose).passed);
  }
  SUBCASE("a pixel never written (NaN) fails") {
    result.at(0, 0, 3) = kNaN;
    CHECK_FALSE(cc::validate(result, reference, loose).passed);
  }
}

TEST_CASE("8-bit results: a bound over half a level allows every rounding within it") {
  // box:r=189 on a 1x1 clamp image: expected 240, got 239 with a bound of 2.05; sharpen at strength
  // 100000: expected 133, got 132 with 43.2. Neither is near x.5, yet both are correct float sums.
  cc::Image reference = filled(2, 1, 1, 0.0f);
  reference.at(0, 0, 0) = 239.8f;
  reference.at(0, 0, 1) = 133.1f;
  cc::Image result = filled(2, 1, 1, 0.0f);
  result.at(0, 0, 0) = 239.0f;
  result.at(0, 0, 1) = 132.0f;
  CHECK(cc::validate(result, reference, cc::Tolerance{2.05, false, true}).passed);
  SUBCASE("up to the rounding of exact + bound and exact - bound, not beyond") {
    result.at(0, 0, 0) = 237.0f;  // 239.8 - 2.05 = 237.75 rounds to 238
    const cc::Validation v = cc::validate(result, reference, cc::Tolerance{2.05, false, true});
    CHECK_FALSE(v.passed);
    CHECK(v.bad_x == 0);
    CHECK(v.bad_expected == 240.0);
    result.at(0, 0, 0) = 238.0f;
    CHECK(cc::validate(result, reference, cc::Tolerance{2.05, false, true}).passed);
    result.at(0, 0, 1) = 90.0f;  // 133.1 - 43.2 = 89.9 rounds to 90
    CHECK(cc::validate(result, reference, cc::Tolerance{43.2, false, true}).passed);
    result.at(0, 0, 1) = 89.0f;
    CHECK_FALSE(cc::validate(result, reference, cc::Tolerance{43.2, false, true}).passed);
  }
  SUBCASE("saturation still binds at the ends") {
    result.at(0, 0, 0) = 255.0f;  // 239.8 + 2.05 rounds to 242
    CHECK_FALSE(cc::validate(result, reference, cc::Tolerance{2.05, false, true}).passed);
    CHECK(cc::validate(result, reference, cc::Tolerance{20.0, false, true}).passed);
  }
}

TEST_CASE("8-bit results: max and relative L2 error against the saturated reference the verdict uses") {
  // sobel-x on a u8 image: exact sums far outside 0..255 saturate; a correct result equals the
  // saturated value, so its error is 0, not the distance to the unsaturated sum (980).
  cc::Image reference = filled(3, 1, 1, 0.0f);
  reference.at(0, 0, 0) = 1235.0f;
  reference.at(0, 0, 1) = -400.0f;
  reference.at(0, 0, 2) = 100.4f;
  cc::Image result = filled(3, 1, 1, 0.0f);
  result.at(0, 0, 0) = 255.0f;
  result.at(0, 0, 1) = 0.0f;
  result.at(0, 0, 2) = 100.0f;
  cc::Validation v = cc::validate(result, reference, cc::Tolerance{0.0, true, true});
  CHECK(v.passed);
  CHECK(v.max_abs_error == 0);
  CHECK(v.rel_l2_error == 0);
  result.at(0, 0, 2) = 101.0f;  // one level off: the error is 1 of the held-to 100
  v = cc::validate(result, reference, cc::Tolerance{0.0, true, true});
  CHECK_FALSE(v.passed);
  CHECK(v.max_abs_error == 1.0);
  CHECK(v.rel_l2_error == doctest::Approx(1.0 / std::sqrt(255.0 * 255.0 + 100.0 * 100.0)));
}

TEST_CASE("8-bit results: an integer-exact problem's reference is an integer, and only it passes") {
  cc::Image reference = filled(2, 1, 1, 12.0f);
  cc::Image result = reference;
  const cc::Tolerance exact{0.0, true, true};
  CHECK(cc::validate(result, reference, exact).passed);
  result.at(0, 0, 1) = 13.0f;
  CHECK_FALSE(cc::validate(result, reference, exact).passed);
}

TEST_CASE("to_8bit: rounds to nearest, ties to even, saturates, NaN to 0") {
  CHECK(cc::to_8bit(2.5f) == 2);
  CHECK(cc::to_8bit(3.5f) == 4);
  CHECK(cc::to_8bit(254.6f) == 255);
  CHECK(cc::to_8bit(1e9f) == 255);
  CHECK(cc::to_8bit(-0.4f) == 0);
  CHECK(cc::to_8bit(kNaN) == 0);
}

namespace {

// A float kernel as the backends write one: correlation, zero border, products summed in float.
cc::Image float_correlation(const cc::Image& image, const cc::Filter& filter) {
  cc::Image out(image.width, image.height, 1);
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      float sum = 0;
      for (int j = 0; j < filter.height; ++j)
        for (int i = 0; i < filter.width; ++i) {
          const int sx = x + i - filter.radius_x(), sy = y + j - filter.radius_y();
          if (sx >= 0 && sy >= 0 && sx < image.width && sy < image.height) sum += filter.at(j, i) * image.at(0, sy, sx);
        }
      out.at(0, y, x) = sum;
    }
  return out;
}

}  // namespace

TEST_CASE("tolerance: on subnormal data a correct float result passes (the underflow floor); a real error fails") {
  // Pixels of 1 to 101 times FLT_TRUE_MIN (deep subnormals) and non-integer weights: every product and
  // partial sum rounds to a multiple of FLT_TRUE_MIN, while the relative bound alone is ~1e-49.
  cc::Image image(17, 13, 1);
  for (std::size_t i = 0; i < image.data.size(); ++i)
    image.data[i] = static_cast<float>((i * 37) % 101 + 1) * FLT_TRUE_MIN;
  const cc::Filter filter{"test", 3, 3, {0.3f, -0.7f, 0.11f, 0.9f, 0.25f, -0.45f, 0.6f, 0.05f, -0.33f}};
  const cc::Problem problem = cc::make_problem(image, filter, cc::Border::Zero, false);
  const cc::Image reference = cc::reference_convolve(image, problem);
  const cc::Tolerance tolerance = cc::tolerance_for(problem, image);
  CHECK(cc::underflow_floor(filter) == doctest::Approx(10 * FLT_TRUE_MIN));

  const cc::Validation correct = cc::validate(float_correlation(image, filter), reference, tolerance);
  CHECK(correct.passed);
  CHECK(correct.max_abs_error > 0);  // float really did round: the floor is what lets it pass
  const cc::Tolerance relative_only{tolerance.value - cc::underflow_floor(filter), false};
  CHECK_FALSE(cc::validate(float_correlation(image, filter), reference, relative_only).passed);

  cc::Filter wrong_tap = filter;
  wrong_tap.weights[2] = 0.61f;  // one weight off by 0.5: up to 50 FLT_TRUE_MIN, five times the floor
  CHECK_FALSE(cc::validate(float_correlation(image, wrong_tap), reference, tolerance).passed);
}

TEST_CASE("8-bit baselines: within the bound of the exact value saturated, whichever way they round") {
  cc::Image reference = filled(4, 1, 1, 0.0f);
  reference.at(0, 0, 0) = 10.7f;   // nearest: 11, truncated: 10
  reference.at(0, 0, 1) = 300.0f;  // saturates to 255
  reference.at(0, 0, 2) = -7.0f;   // saturates to 0
  reference.at(0, 0, 3) = 3.0f;
  cc::Image result = filled(4, 1, 1, 0.0f);
  for (const auto& [x, value] : {std::pair{0, 10.0f}, std::pair{1, 255.0f}, std::pair{2, 0.0f}, std::pair{3, 3.0f}})
    result.at(0, 0, x) = value;
  cc::Tolerance baseline{1.001, false, true};
  baseline.any_rounding = true;
  CHECK_MESSAGE(cc::validate(result, reference, baseline).passed, cc::validate(result, reference, baseline).message());
  // The rounding rule, with a float bound, would not take the truncated 10.
  CHECK_FALSE(cc::validate(result, reference, cc::Tolerance{0.001, false, true}).passed);
  SUBCASE("two levels off fails") {
    result.at(0, 0, 3) = 5.0f;
    const cc::Validation v = cc::validate(result, reference, baseline);
    CHECK_FALSE(v.passed);
    CHECK(v.bad_x == 3);
    CHECK(v.message().find("8-bit baseline") != std::string::npos);
  }
  SUBCASE("saturation is compared, not the raw value: 254 for 300 fails by 1.0 only") {
    result.at(0, 0, 1) = 253.0f;
    CHECK_FALSE(cc::validate(result, reference, baseline).passed);
  }
}

TEST_CASE("8-bit tolerance by traits: kernels by the rounding rule; NPP within 1, plus sum|w| for two 8-bit passes") {
  cc::Image image(9, 7, 1, true);
  for (std::size_t i = 0; i < image.data.size(); ++i) image.data[i] = static_cast<float>((i * 37) % 256);
  const cc::Filter box{"box", 3, 3, std::vector<float>(9, 2.0f)};  // integer: exact
  const cc::Problem problem = cc::make_problem(image, box, cc::Border::Clamp, false, cc::PixelType::U8);
  const cc::Tolerance tiled = cc::tolerance_for_variant(*cc::find_variant("tiled"), problem, image);
  CHECK(tiled.eight_bit);
  CHECK(tiled.exact);
  CHECK_FALSE(tiled.any_rounding);
  const cc::Tolerance npp = cc::tolerance_for_variant(*cc::find_variant("npp"), problem, image);
  CHECK(npp.any_rounding);
  CHECK_FALSE(npp.exact);
  CHECK(npp.value == doctest::Approx(1.0));
  const cc::Tolerance two_passes = cc::tolerance_for_variant(*cc::find_variant("npp-separable"), problem, image);
  CHECK(two_passes.any_rounding);
  CHECK(two_passes.value == doctest::Approx(1.0 + 18.0));  // sum|w| = 9 x 2
  const cc::Problem floats = cc::make_problem(image, box, cc::Border::Clamp, false);
  CHECK_FALSE(cc::tolerance_for_variant(*cc::find_variant("npp"), floats, image).any_rounding);
}

TEST_CASE("8-bit results: the tolerance is in levels from the reference rounded, max_abs_error's scale") {
  // The float bound (0.005) reaches a rounding tie only at the pixel whose exact sum is 100.498: there
  // either neighbour passes, so the widest a pixel may differ from the rounded reference is one level.
  cc::Image reference = filled(2, 1, 1, 0.0f);
  reference.at(0, 0, 0) = 50.2f;
  reference.at(0, 0, 1) = 100.498f;
  cc::Image result = filled(2, 1, 1, 0.0f);
  result.at(0, 0, 0) = 50.0f;
  result.at(0, 0, 1) = 101.0f;
  const cc::Tolerance bound{0.005, false, true};
  cc::Validation v = cc::validate(result, reference, bound);
  CHECK(v.passed);
  CHECK(v.max_abs_error == 1.0);
  CHECK(v.tolerance == 1.0);
  CHECK(v.float_bound == 0.005);
  CHECK(v.max_abs_error <= v.tolerance);

  // No pixel near a tie: each must be the reference rounded, so the tolerance is 0 levels.
  reference.at(0, 0, 1) = 100.3f;
  result.at(0, 0, 1) = 100.0f;
  v = cc::validate(result, reference, bound);
  CHECK(v.passed);
  CHECK(v.max_abs_error == 0);
  CHECK(v.tolerance == 0);
  result.at(0, 0, 1) = 101.0f;
  v = cc::validate(result, reference, bound);
  CHECK_FALSE(v.passed);
  CHECK(v.max_abs_error > v.tolerance);
  CHECK(v.message().find("within 0.005 of it") != std::string::npos);  // the rule's float bound, named

  // A bound wider than a level (a huge box) allows every level it reaches: 100.3 + 3.4 rounds to 104,
  // 4 levels over the rounded reference (100.3 - 3.4 to 97, 3 under).
  const cc::Validation wide = cc::validate(result, reference, cc::Tolerance{3.4, false, true});
  CHECK(wide.tolerance == 4.0);
  CHECK(wide.passed);

  // Float results keep the float bound.
  CHECK(cc::validate(result, reference, cc::Tolerance{0.25, false}).tolerance == 0.25);
}
