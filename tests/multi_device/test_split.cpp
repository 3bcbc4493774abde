// test_split.cpp: --split and a dealt --stream over PoCL's devices: bit for bit against one device, every border, u8, tall radii, 3 devices, too many devices, halos device to device in one context.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "common/domain/reference.h"
#include "common/domain/validate.h"
#include "tests/multi_device/multi_device.h"
#include "tests/support/backend_matrix.h"
#include "tests/support/fixtures.h"

namespace {

using cc::Border;
using cc::testing::kBorders;
using cc::testing::two_samples;
constexpr const char* kVariants[] = {"global", "tiled", "texture", "fast"};
// PoCL's devices are of one platform: a split over them shares one context and copies its halo rows
// there (docs/multi-device.md, "How the halos cross").
constexpr std::string_view kOneContext = "halo rows device to device in one context, through page-locked staging: ";

// Small integers, and a filter of small integer weights: every sum is exact in float, so any two
// correct runs agree bit for bit whatever order they add in.
cc::Image integer_image(int width, int height, int channels) {
  cc::Image image(width, height, channels, true);
  for (std::size_t i = 0; i < image.data.size(); ++i) image.data[i] = static_cast<float>((i * 37) % 23);
  return image;
}

cc::Filter integer_filter(int radius_x, int radius_y) {
  cc::Filter filter;
  filter.spec = fmt::format("integers:{}x{}", radius_x, radius_y);
  filter.width = 2 * radius_x + 1;
  filter.height = 2 * radius_y + 1;
  for (int i = 0; i < filter.width * filter.height; ++i) filter.weights.push_back(static_cast<float>(1 + i % 3));
  return filter;
}


std::vector<int> first(int count) {
  std::vector<int> devices = cc::testing::pocl_devices();
  REQUIRE(devices.size() >= static_cast<std::size_t>(count));
  devices.resize(static_cast<std::size_t>(count));
  return devices;
}

// The split of `variant` over `devices` and the same variant on the first device alone.
struct Pair {
  cc::BackendRun split, single;
};
Pair run_both(const cc::Problem& problem, const cc::Image& input, const char* variant, const std::vector<int>& devices) {
  cc::Backend& backend = cc::testing::opencl_backend();
  return {backend.split(problem, input, variant, devices, two_samples()),
          backend.run(problem, input, variant, devices.front(), two_samples())};
}

}  // namespace

TEST_CASE("split: equals one device bit for bit in integer-exact cases, every border, 2 and 3 devices") {
  const cc::Image input = integer_image(37, 29, 2);
  for (const char* variant : kVariants)
    for (const Border border : kBorders)
      for (const int count : {2, 3}) {
        CAPTURE(variant);
        CAPTURE(cc::to_string(border));
        CAPTURE(count);
        const cc::Problem problem = cc::make_problem(input, integer_filter(2, 3), border, false);
        const Pair runs = run_both(problem, input, variant, first(count));
        if (runs.single.status == cc::Status::Skipped) {  // the device's own limit: the split says the same
          CHECK(runs.split.status == cc::Status::Skipped);
          continue;
        }
        REQUIRE_MESSAGE(runs.split.status == cc::Status::Ok, runs.split.reason);
        CHECK_MESSAGE(runs.split.memory_note.starts_with(kOneContext), runs.split.memory_note);
        CHECK(runs.split.output.data == runs.single.output.data);
        const cc::Image reference = cc::reference_convolve(input, problem);
        CHECK(runs.split.output.data == reference.data);
        CHECK(runs.split.times.kernel_ms.median > 0);
      }
}

TEST_CASE("split: a radius taller than a band, and u8, validate against the CPU reference, halos in one context") {
  // 12 rows over 3 devices: bands of 4, a radius of 6 reaching past the neighbour band on every side,
  // so each band's halo rows come from both other devices' (two copies a side for the middle one).
  const cc::Image input = integer_image(40, 12, 1);
  for (const char* variant : kVariants)
    for (const cc::PixelType pixel : {cc::PixelType::F32, cc::PixelType::U8})
      for (const Border border : kBorders) {
        CAPTURE(variant);
        CAPTURE(cc::to_string(pixel));
        CAPTURE(cc::to_string(border));
        cc::Filter filter = integer_filter(1, 6);
        for (float& weight : filter.weights) weight /= 60.0f;  // u8: sums in range, rounding exercised
        const cc::Problem problem = cc::make_problem(input, filter, border, false, pixel);
        cc::BackendRun split = cc::testing::opencl_backend().split(problem, input, variant, first(3), two_samples());
        REQUIRE_MESSAGE(split.status == cc::Status::Ok, split.reason);
        CHECK_MESSAGE(split.memory_note.starts_with(kOneContext), split.memory_note);
        const cc::Image reference = cc::reference_convolve(input, problem);
        const cc::Validation validation =
            cc::validate(split.output, reference, cc::tolerance_for_variant(*cc::find_variant(variant), problem, input));
        CHECK_MESSAGE(validation.passed, validation.message());
      }
}

TEST_CASE("split: after a split in one context, each device alone still runs in its own, and the split again") {
  // The shared context's programs and frames are cached apart from each device's own: running the
  // same variant alone, then split again, reuses neither in the wrong context.
  const cc::Image input = integer_image(24, 18, 1);
  const cc::Problem problem = cc::make_problem(input, integer_filter(2, 4), Border::Mirror, false);
  const cc::Image reference = cc::reference_convolve(input, problem);
  for (const char* variant : kVariants) {
    CAPTURE(variant);
    for (int round = 0; round < 2; ++round) {
      const Pair runs = run_both(problem, input, variant, first(2));
      REQUIRE_MESSAGE(runs.split.status == cc::Status::Ok, runs.split.reason);
      REQUIRE_MESSAGE(runs.single.status == cc::Status::Ok, runs.single.reason);
      CHECK(runs.split.memory_note.starts_with(kOneContext));
      CHECK(runs.single.memory_note.empty());
      CHECK(runs.split.output.data == reference.data);
      CHECK(runs.single.output.data == reference.data);
    }
  }
}

TEST_CASE("split: more devices than rows is skipped with the reason; mapped and managed frames too") {
  const cc::Image input = integer_image(16, 2, 1);
  const cc::Problem problem = cc::make_problem(input, integer_filter(1, 1), Border::Clamp, false);
  const cc::BackendRun run = cc::testing::opencl_backend().split(problem, input, "global", first(3), two_samples());
  CHECK(run.status == cc::Status::Skipped);
  CHECK(run.reason == "3 devices for 2 rows: a band needs at least one row of its own");
  // A band is copied between host and device; frames that are never copied cannot be cut into bands.
  const cc::Image tall = integer_image(16, 16, 1);
  const cc::Problem tall_problem = cc::make_problem(tall, integer_filter(1, 1), Border::Clamp, false);
  for (const cc::HostMemory memory : {cc::HostMemory::Mapped, cc::HostMemory::Managed, cc::HostMemory::ManagedFaults}) {
    CAPTURE(cc::to_string(memory));
    cc::RunOptions options = two_samples();
    options.memory = memory;
    const cc::BackendRun refused = cc::testing::opencl_backend().split(tall_problem, tall, "global", first(2), options);
    CHECK(refused.status == cc::Status::Skipped);
    CHECK(refused.reason.find("--memory " + std::string(cc::to_string(memory)) + " keeps a frame") != std::string::npos);
  }
}

TEST_CASE("stream over devices: frames dealt round robin, per-device counts summing to N, last frame valid") {
  const cc::Image input = integer_image(33, 21, 1);
  const cc::Problem problem = cc::make_problem(input, integer_filter(2, 2), Border::Mirror, false);
  const cc::Image reference = cc::reference_convolve(input, problem);
  for (const int count : {2, 3}) {
    CAPTURE(count);
    const cc::StreamRun run =
        cc::testing::opencl_backend().stream_over(problem, input, "global", first(count), 20, two_samples());
    REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
    REQUIRE(run.frames_per_device.size() == static_cast<std::size_t>(count));
    CHECK(std::accumulate(run.frames_per_device.begin(), run.frames_per_device.end(), 0) == 20);
    for (const int frames : run.frames_per_device) CHECK(frames >= 20 / count);
    CHECK(run.queues == 3 * count);
    CHECK(run.total_ms > 0);
    CHECK(run.last_output.data == reference.data);
  }
}
