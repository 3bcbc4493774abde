// test_problem.cpp: border names, make_problem's filter as applied, the kernel arguments it produces, and the input values it refuses or notes.
#include <limits>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "common/domain/error.h"
#include "common/domain/problem.h"

TEST_CASE("border names round trip and match the CC_BORDER_* numbers") {
  CHECK(cc::to_string(cc::Border::Zero) == "zero");
  CHECK(cc::to_string(cc::Border::Clamp) == "clamp");
  CHECK(cc::to_string(cc::Border::Mirror) == "mirror");
  CHECK(cc::to_string(cc::Border::Wrap) == "wrap");
  for (cc::Border border : {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap})
    CHECK(cc::parse_border(cc::to_string(border)) == border);
  CHECK(static_cast<int>(cc::parse_border("mirror")) == CC_BORDER_MIRROR);
  CHECK_THROWS_WITH_AS(cc::parse_border("reflect"),
                       "unknown border 'reflect' (zero, clamp, mirror, wrap); did you mean 'mirror'?", cc::InputError);
  CHECK_THROWS_AS(cc::parse_border("Zero"), cc::InputError);
  CHECK_THROWS_AS(cc::parse_border(""), cc::InputError);
}

TEST_CASE("make_problem and conv_args") {
  const cc::Image image(37, 11, 3, true);
  const cc::Filter filter = cc::parse_filter_text("5 3  1 2 3 4 5  6 7 8 9 10  11 12 13 14 15", "wide");

  const cc::Problem problem = cc::make_problem(image, filter, cc::Border::Wrap, false);
  CHECK(problem.width == 37);
  CHECK(problem.height == 11);
  CHECK(problem.channels == 3);
  CHECK(problem.border == cc::Border::Wrap);
  CHECK_FALSE(problem.flip);
  CHECK(problem.correlation_filter.weights == filter.weights);
  // The device format, set once: f32 keeps a plane per channel; u8 pads 3 channels to one RGBA8 image.
  CHECK(problem.format.kernel == cc::KernelFormat::F32);
  CHECK(problem.format.units == 3);
  CHECK(problem.device_bytes_per_pixel() == 12);
  const cc::Problem eight_bit = cc::make_problem(image, filter, cc::Border::Wrap, false, cc::PixelType::U8);
  CHECK(eight_bit.format.kernel == cc::KernelFormat::U8x4);
  CHECK(eight_bit.format.units == 1);
  CHECK(eight_bit.device_channels() == 4);
  CHECK(eight_bit.device_bytes_per_pixel() == 4);

  const ConvArgs args = problem.conv_args();
  CHECK(args.width == 37);
  CHECK(args.height == 11);
  CHECK(args.pitch == 37);
  CHECK(args.filter_width == 5);
  CHECK(args.filter_height == 3);
  CHECK(args.radius_x == 2);
  CHECK(args.radius_y == 1);
  CHECK(args.border == CC_BORDER_WRAP);

  const cc::Problem flipped = cc::make_problem(image, filter, cc::Border::Clamp, true);
  CHECK(flipped.flip);
  CHECK(flipped.filter.weights == filter.weights);  // kept as the user gave it
  CHECK(flipped.correlation_filter.weights.front() == 15.0f);
  CHECK(flipped.correlation_filter.weights.back() == 1.0f);
  CHECK(flipped.conv_args().border == CC_BORDER_CLAMP);
}

TEST_CASE("problem: a non-finite input sample is noted (fft is skipped for it), and sums beyond float's range are refused") {
  cc::Image image(5, 4, 1);
  for (float& value : image.data) value = 2.0f;
  const cc::Filter box = cc::parse_filter_spec("box:r=1");
  CHECK(cc::make_problem(image, box, cc::Border::Clamp, false).input_finite);
  image.data[7] = std::numeric_limits<float>::infinity();
  CHECK_FALSE(cc::make_problem(image, box, cc::Border::Clamp, false).input_finite);
  image.data[7] = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(cc::make_problem(image, box, cc::Border::Clamp, false).input_finite);

  // One pass finds both facts: the largest finite magnitude (a NaN or infinity is not a magnitude) and
  // whether every sample is finite.
  image.data[3] = -7.5f;
  const cc::SampleFacts facts = cc::sample_facts(image);
  CHECK(facts.largest_magnitude == 7.5);
  CHECK_FALSE(facts.all_finite);
  CHECK_FALSE(cc::make_problem(image, facts, box, cc::Border::Clamp, false).input_finite);
  image.data[3] = 2.0f;

  image.data[7] = 2.0f;
  CHECK(cc::sample_facts(image).all_finite);
  CHECK(cc::sample_facts(image).largest_magnitude == 2.0);
  CHECK_NOTHROW(cc::check_sums_fit_float(cc::sample_facts(image), box));
  // 9 weights of 1e38 on pixels of 2: sums up to 1.8e39, past FLT_MAX (3.4e38), though every weight is finite.
  cc::Filter huge = box;
  for (float& weight : huge.weights) weight = 1e38f;
  CHECK_THROWS_AS(cc::check_sums_fit_float(cc::sample_facts(image), huge), cc::InputError);
  // The same weights on pixels of 1e-2 stay within range (9e36): the image is part of the bound.
  for (float& value : image.data) value = 1e-2f;
  CHECK_NOTHROW(cc::check_sums_fit_float(cc::sample_facts(image), huge));
}
