// fixtures.h: the small inputs several suites share: the four borders, an H100's limits, planning a box, a ramp, a box, seeded random images and filters.
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "backends/launch_plan.h"
#include "common/domain/filter.h"
#include "common/domain/image.h"
#include "common/domain/problem.h"
#include "common/domain/variants.h"

namespace cc::testing {

inline constexpr Border kBorders[] = {Border::Zero, Border::Clamp, Border::Mirror, Border::Wrap};

// The H100's on-chip bytes as each API offers them (docs/memory-spaces.md): NVIDIA's OpenCL gives a
// work-group 48 KB, CUDA 227 KB to a kernel that opts in.
inline constexpr std::size_t kH100OpenClLocal = 48 * 1024;
inline constexpr std::size_t kH100CudaOptIn = 227 * 1024;

// The limits CUDA reports on the H100, for the plans that read them (clusters, TMA).
inline DeviceLimits h100_limits() {
  DeviceLimits limits;
  limits.memory = limits.max_allocation = 1ull << 34;
  limits.on_chip_bytes = 232448;
  limits.on_chip_default = 49152;
  limits.constant_bytes = 65536;
  limits.max_group = limits.max_group_x = limits.max_group_y = 1024;
  return limits;
}

// A box of weights 0.01, (2 radius_x + 1) x (2 radius_y + 1), over a blank image: a problem for the
// planning rule, which reads its shapes only.
inline Problem box_problem(int width, int height, int radius_x, int radius_y, Border border,
                           PixelType pixel = PixelType::F32, int channels = 1) {
  const Image image(width, height, channels, true);
  const int side_x = 2 * radius_x + 1, side_y = 2 * radius_y + 1;
  const Filter box{"box", side_x, side_y, std::vector<float>(static_cast<std::size_t>(side_x) * side_y, 0.01f)};
  return make_problem(image, box, border, false, pixel);
}

// `variant` planned on `limits` for one device, its built kernel taking 1024 work-items as on the H100:
// the plan's refusal, "" where it plans.
inline std::string plan_variant(LaunchPlan& launch, std::string_view variant, const Problem& problem,
                                const DeviceLimits& limits) {
  return plan_launch(launch, *find_variant(variant), problem, limits, 1,
                     [](const LaunchPlan&) { return KernelLimits{.max_group = 1024}; });
}

// A ramp of non-integer values in 0.25..250.25 (no two neighbours equal), 8-bit-sized.
inline Image ramp_image(int width, int height, int channels = 1) {
  Image image(width, height, channels, true);
  for (std::size_t i = 0; i < image.data.size(); ++i) image.data[i] = static_cast<float>((i * 37) % 251) + 0.25f;
  return image;
}

// The (2r+1) x (2r+1) mean, spelled as the command line does ("box:r=R").
inline Filter box_filter(int radius) {
  Filter filter{"box:r=" + std::to_string(radius), 2 * radius + 1, 2 * radius + 1, {}};
  filter.weights.assign(static_cast<std::size_t>(filter.width) * filter.height, 1.0f / static_cast<float>(filter.taps()));
  return filter;
}

// Values in -1..1 from `seed`.
inline Image random_image(int width, int height, int channels, unsigned seed) {
  Image image(width, height, channels);
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float& pixel : image.data) pixel = value(generator);
  return image;
}

// Weights in -1..1 from `seed`: no symmetry, so a flipped or transposed filter cannot pass by accident.
inline Filter random_filter(int width, int height, unsigned seed) {
  Filter filter{"random " + std::to_string(width) + "x" + std::to_string(height), width, height, {}};
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> weight(-1.0f, 1.0f);
  for (int i = 0; i < width * height; ++i) filter.weights.push_back(weight(generator));
  return filter;
}

}  // namespace cc::testing
