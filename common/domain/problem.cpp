// problem.cpp: border names and building a Problem (and its kernel arguments) from an image and a filter.
#include "common/domain/problem.h"
#include "common/domain/suggest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/domain/error.h"

namespace cc {

std::string_view to_string(Border border) {
  switch (border) {
    case Border::Zero: return "zero";
    case Border::Clamp: return "clamp";
    case Border::Mirror: return "mirror";
    case Border::Wrap: return "wrap";
  }
  return "unknown";
}

Border parse_border(std::string_view name) {
  std::vector<std::string_view> known;
  for (Border border : {Border::Zero, Border::Clamp, Border::Mirror, Border::Wrap}) {
    if (name == to_string(border)) return border;
    known.push_back(to_string(border));
  }
  // Other libraries' names for the same borders (OpenCV, SciPy, NumPy): suggested, as the README names them.
  constexpr std::pair<std::string_view, std::string_view> kOtherNames[] = {
      {"constant", "zero"},   {"replicate", "clamp"}, {"edge", "clamp"},     {"nearest", "clamp"},
      {"reflect", "mirror"},  {"reflect101", "mirror"}, {"reflect-101", "mirror"}, {"symmetric", "mirror"},
      {"periodic", "wrap"},   {"circular", "wrap"},   {"repeat", "wrap"}};
  for (const auto& [other, ours] : kOtherNames)
    if (name == other)
      throw InputError(fmt::format("unknown border '{}' (zero, clamp, mirror, wrap); did you mean '{}'?", name, ours));
  throw InputError(fmt::format("unknown border '{}' (zero, clamp, mirror, wrap){}", name, did_you_mean(name, known)));
}

std::string_view to_string(PixelType pixel) { return pixel == PixelType::U8 ? "u8" : "f32"; }

PixelType parse_pixel(std::string_view name) {
  for (PixelType pixel : {PixelType::F32, PixelType::U8})
    if (name == to_string(pixel)) return pixel;
  throw InputError(fmt::format("unknown pixel type '{}' (f32, u8)", name));
}

DeviceFormat device_format(PixelType pixel, int channels) {
  if (pixel == PixelType::F32)
    return {.kernel = KernelFormat::F32, .units = channels, .device_channels = channels,
            .unit_pixel_bytes = static_cast<int>(sizeof(float)), .values = 1};
  // 8-bit: one channel, or RGBA8 with 2 and 3 channels padded to 4 (docs/architecture.md, "Adding a pixel type").
  if (channels == 1) return {.kernel = KernelFormat::U8, .units = 1, .device_channels = 1, .unit_pixel_bytes = 1, .values = 1};
  return {.kernel = KernelFormat::U8x4, .units = 1, .device_channels = 4, .unit_pixel_bytes = 4, .values = 4};
}

ConvArgs Problem::conv_args() const {
  ConvArgs args{};
  args.width = width;
  args.height = height;
  args.pitch = width;
  args.filter_width = filter.width;
  args.filter_height = filter.height;
  args.radius_x = radius_x();
  args.radius_y = radius_y();
  args.border = static_cast<int>(border);
  return args;
}

SampleFacts sample_facts(const Image& image) {
  SampleFacts facts;
  for (const float value : image.data) {
    if (std::isfinite(value))
      facts.largest_magnitude = std::max(facts.largest_magnitude, static_cast<double>(std::fabs(value)));
    else
      facts.all_finite = false;
  }
  return facts;
}

Problem make_problem(const Image& image, const Filter& filter, Border border, bool flip, PixelType pixel) {
  return make_problem(image, sample_facts(image), filter, border, flip, pixel);
}

Problem make_problem(const Image& image, const SampleFacts& facts, const Filter& filter, Border border, bool flip,
                     PixelType pixel) {
  Problem problem;
  problem.width = image.width;
  problem.height = image.height;
  problem.channels = image.channels;
  problem.filter = filter;
  problem.border = border;
  problem.flip = flip;
  problem.pixel = pixel;
  problem.format = device_format(pixel, image.channels);
  problem.correlation_filter = flip ? flipped(filter) : filter;
  problem.correlation_factors = separate(problem.correlation_filter);
  problem.correlation_low_rank = decompose(problem.correlation_filter);
  problem.input_finite = facts.all_finite;
  return problem;
}

void check_sums_fit_float(const SampleFacts& facts, const Filter& filter) {
  const double largest = facts.largest_magnitude;
  double weights = 0;
  for (const float weight : filter.weights) weights += std::fabs(static_cast<double>(weight));
  const double bound = largest * weights;
  if (bound > std::numeric_limits<float>::max())
    throw InputError(fmt::format("filter '{}' on this image can sum to {:.3g} (its weights' magnitudes add to {:.3g}, "
                                 "the largest pixel is {:.3g}), beyond float's {:.3g}: scale the filter or the image",
                                 printable(filter.spec), bound, weights, largest, std::numeric_limits<float>::max()));
}

}  // namespace cc
