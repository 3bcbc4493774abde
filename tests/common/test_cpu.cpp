// test_cpu.cpp: the cpu backend's naive and fast variants against the reference, every border, flip and shape.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <thread>

#include "backends/cpu/cpu_backend.h"
#include "common/domain/reference.h"
#include "common/domain/validate.h"
#include "tests/support/fixtures.h"

namespace {

using cc::Border;
using cc::testing::kBorders;
cc::RunOptions quick_options() {
  cc::RunOptions options;
  options.repetitions = 1;
  options.warmup = 0;
  return options;
}

// Random pixels and weights from a fixed seed; `integers` draws whole numbers (an integer-exact
// problem), otherwise pixels are non-integer values in 0..255 and weights in -1..1, asymmetric so a
// wrong flip shows.
struct Case {
  cc::Image image;
  cc::Filter filter;
};

Case random_case(int width, int height, int channels, int filter_width, int filter_height, bool integers,
                 unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> pixel(0.0f, 255.0f), weight(-1.0f, 1.0f);
  std::uniform_int_distribution<int> int_pixel(0, 255), int_weight(-3, 3);
  Case c{cc::Image(width, height, channels), cc::Filter{"random", filter_width, filter_height, {}}};
  for (float& v : c.image.data) v = integers ? static_cast<float>(int_pixel(random)) : pixel(random);
  c.filter.weights.resize(static_cast<std::size_t>(filter_width) * filter_height);
  for (float& w : c.filter.weights) w = integers ? static_cast<float>(int_weight(random)) : weight(random);
  return c;
}

// Runs one variant and validates it with the project's rule; returns whether it passed.
bool run_and_validate(cc::Backend& cpu, std::string_view variant, const Case& c, Border border, bool flip,
                      bool expect_exact) {
  const cc::Problem problem = cc::make_problem(c.image, c.filter, border, flip);
  const cc::BackendRun run = cpu.run(problem, c.image, variant, 0, quick_options());
  REQUIRE(run.status == cc::Status::Ok);
  const cc::Tolerance tolerance = cc::tolerance_for(problem, c.image);
  CHECK(tolerance.exact == expect_exact);
  const cc::Validation v = cc::validate(run.output, cc::reference_convolve(c.image, problem), tolerance);
  CAPTURE(v.message());
  CHECK(v.passed);
  return v.passed;
}

}  // namespace

TEST_CASE("cpu backend: device, variants, unknown variant") {
  const auto cpu = cc::make_cpu_backend();
  CHECK(cpu->name() == "cpu");
  CHECK(cpu->unavailable_reason().empty());
  REQUIRE(cpu->devices().size() == 1);
  const cc::DeviceInfo& device = cpu->devices()[0];
  CHECK(device.backend == "cpu");
  CHECK(device.id == "cpu");
  CHECK_FALSE(device.name.empty());
  REQUIRE(device.properties.size() == 1);
  CHECK(device.properties[0].first == "threads");
  CHECK(std::stoi(device.properties[0].second) >= 1);
  CHECK(cpu->variants() == std::vector<std::string>{"naive", "fast"});

  const Case c = random_case(8, 8, 1, 3, 3, false, 1);
  const cc::Problem problem = cc::make_problem(c.image, c.filter, Border::Zero, false);
  const cc::BackendRun tiled = cpu->run(problem, c.image, "tiled", 0, quick_options());
  CHECK(tiled.status == cc::Status::Skipped);
  CHECK(tiled.reason == "cpu backend has no variant 'tiled'");
}

TEST_CASE("cpu backend: timing fields") {
  const auto cpu = cc::make_cpu_backend();
  const Case c = random_case(64, 32, 1, 5, 5, false, 2);
  const cc::Problem problem = cc::make_problem(c.image, c.filter, Border::Clamp, false);
  cc::RunOptions options;
  options.repetitions = 4;
  options.warmup = 5;
  for (const char* variant : {"naive", "fast"}) {
    CAPTURE(variant);
    const cc::BackendRun run = cpu->run(problem, c.image, variant, 0, options);
    REQUIRE(run.status == cc::Status::Ok);
    CHECK(run.times.kernel_ms.samples == 4);
    CHECK(run.times.kernel_ms.median > 0);
    CHECK(run.times.kernel_ms.min <= run.times.kernel_ms.median);
    CHECK(std::isnan(run.times.h2d_ms));
    CHECK(std::isnan(run.times.build_ms));
    CHECK(run.compile_time == "radius: run-time");
    CHECK(run.memory.empty());
  }
  // A zero budget still gives --min-samples (default 5; here --repetitions 4, the most), and with
  // --min-samples 1 one sample.
  options.time_budget_s = 0;
  CHECK(cpu->run(problem, c.image, "naive", 0, options).times.kernel_ms.samples == 4);
  options.repetitions = 10;
  CHECK(cpu->run(problem, c.image, "naive", 0, options).times.kernel_ms.samples == 5);
  options.min_samples = 1;
  CHECK(cpu->run(problem, c.image, "naive", 0, options).times.kernel_ms.samples == 1);
}

TEST_CASE("time budget: launches timed follow the first warm-up's time, between 1 and repetitions") {
  cc::RunOptions options;
  options.repetitions = 10;
  options.time_budget_s = 2.0;
  CHECK(options.timed_launches(0.5) == 4);
  CHECK(options.timed_launches(0.3) == 6);    // what fits, rounded down
  CHECK(options.timed_launches(0.01) == 10);  // no more than asked for
  CHECK(options.timed_launches(0.0) == 10);   // faster than the clock can see
  CHECK(options.timed_launches(11.0) == 1);   // slower than the budget: still one
  options.time_budget_s = 0;
  CHECK(options.timed_launches(0.0) == 1);

  // warm_up counts the launches it makes; each takes at least a millisecond.
  int launches = 0;
  const auto launch = [&] {
    ++launches;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  const auto warm_up = [&] {
    cc::RunBudget budget(options.time_budget_s);
    return options.warm_up(budget, launch).timed;
  };
  options.warmup = 5;
  options.time_budget_s = 1e-6;  // one launch blows it: no warm-up beyond the first and the estimating one
  CHECK(warm_up() == 1);
  CHECK(launches == 2);
  launches = 0;
  options.time_budget_s = 1e6;
  options.repetitions = 3;  // warm-ups stop at the launches they prepare
  CHECK(warm_up() == 3);
  CHECK(launches == 3);
  launches = 0;
  options.repetitions = 10;
  CHECK(warm_up() == 10);
  CHECK(launches == 5);
  launches = 0;
  // --warmup 0 still makes the one first launch, which then estimates, so the budget holds (timing every
  // repetition, --repetitions 1000000 --warmup 0 would run for hours whatever --time-budget said).
  options.warmup = 0;
  options.time_budget_s = 1e-6;
  CHECK(warm_up() == 1);
  CHECK(launches == 1);
  launches = 0;
  options.time_budget_s = 1e6;
  CHECK(warm_up() == 10);
  CHECK(launches == 1);
}

TEST_CASE("time budget: the first launch (a JIT, first touch, threads starting) is not the budget's") {
  cc::RunOptions options;
  options.repetitions = 10;
  options.warmup = 2;
  options.time_budget_s = 0.5;
  int launches = 0;
  // A first launch of 0.6 s, past the whole budget (PoCL compiling the kernel for its arguments); then 1 ms.
  const auto launch = [&] {
    std::this_thread::sleep_for(launches++ == 0 ? std::chrono::milliseconds(600) : std::chrono::milliseconds(1));
  };
  cc::RunBudget budget(options.time_budget_s);
  const cc::RunOptions::WarmUp warm = options.warm_up(budget, launch);
  CHECK(launches == 2);
  CHECK(warm.one_launch_s < 0.3);  // the second launch's time, not the first's
  CHECK(warm.timed == 10);
  CHECK(budget.left_s() > 0.3);  // the 0.6 s first launch left the budget almost whole
}

TEST_CASE("cpu backend: naive and fast match the reference, every border x flip x size x radius x channels") {
  const auto cpu = cc::make_cpu_backend();
  const std::pair<int, int> sizes[] = {{1, 1}, {7, 5}, {33, 17}, {257, 131}};
  // Square filters of radius 0, 1, 2, 3, 8, and one non-square (7 wide, 3 high).
  const std::pair<int, int> filters[] = {{1, 1}, {3, 3}, {5, 5}, {7, 7}, {17, 17}, {7, 3}};
  int passed = 0, total = 0;
  unsigned seed = 100;
  for (const auto& [width, height] : sizes)
    for (const auto& [filter_width, filter_height] : filters)
      for (int channels : {1, 3}) {
        const Case c = random_case(width, height, channels, filter_width, filter_height, false, seed++);
        for (Border border : kBorders)
          for (bool flip : {false, true})
            for (const char* variant : {"naive", "fast"}) {
              CAPTURE(variant);
              CAPTURE(width);
              CAPTURE(height);
              CAPTURE(filter_width);
              CAPTURE(filter_height);
              CAPTURE(channels);
              CAPTURE(cc::to_string(border));
              CAPTURE(flip);
              passed += run_and_validate(*cpu, variant, c, border, flip, false);
              ++total;
            }
      }
  CHECK(total == 4 * 6 * 2 * 4 * 2 * 2);
  CHECK(passed == total);
}

TEST_CASE("cpu backend: an integer-exact problem matches the reference bit for bit") {
  const auto cpu = cc::make_cpu_backend();
  for (const auto& [width, height] : {std::pair{33, 17}, std::pair{5, 1}, std::pair{1, 9}})
    for (int radius : {1, 3, 8}) {
      const Case c = random_case(width, height, 3, 2 * radius + 1, 2 * radius + 1, true, 7u + radius);
      for (Border border : kBorders)
        for (bool flip : {false, true})
          for (const char* variant : {"naive", "fast"}) {
            CAPTURE(variant);
            CAPTURE(width);
            CAPTURE(radius);
            CAPTURE(cc::to_string(border));
            CAPTURE(flip);
            run_and_validate(*cpu, variant, c, border, flip, true);
          }
    }
}

TEST_CASE("cpu backend: NaN in the input propagates as in the reference") {
  const auto cpu = cc::make_cpu_backend();
  Case c = random_case(9, 6, 1, 3, 3, false, 5);
  c.image.at(0, 3, 4) = std::numeric_limits<float>::quiet_NaN();
  for (const char* variant : {"naive", "fast"}) {
    CAPTURE(variant);
    const cc::Problem problem = cc::make_problem(c.image, c.filter, Border::Wrap, false);
    const cc::BackendRun run = cpu->run(problem, c.image, variant, 0, quick_options());
    const cc::Validation v =
        cc::validate(run.output, cc::reference_convolve(c.image, problem), cc::tolerance_for(problem, c.image));
    CHECK(v.passed);
    CHECK(v.nonfinite_matched == 9);
  }
}

TEST_CASE("cpu backend: long sums of equal terms, the worst case for float rounding, stay within tolerance") {
  // A flat image under a 65x65 box: every tap adds the same product, so roundings pile up instead of
  // cancelling (a sqrt(taps) tolerance fails this correct float result).
  const auto cpu = cc::make_cpu_backend();
  cc::Image flat(70, 40, 1);
  std::fill(flat.data.begin(), flat.data.end(), 200.98f);
  const cc::Filter box{"box:r=32", 65, 65, std::vector<float>(65 * 65, 1.0f / (65 * 65))};
  const cc::Problem problem = cc::make_problem(flat, box, Border::Clamp, false);
  const cc::Image reference = cc::reference_convolve(flat, problem);
  for (const char* variant : {"naive", "fast"}) {
    CAPTURE(variant);
    const cc::BackendRun run = cpu->run(problem, flat, variant, 0, quick_options());
    const cc::Validation v = cc::validate(run.output, reference, cc::tolerance_for(problem, flat));
    CAPTURE(v.message());
    CHECK(v.passed);
    CHECK(v.max_abs_error > 0);  // the float sum does round: this is not a trivially exact case
  }
}

TEST_CASE("cpu backend: fast adds each pixel's taps in the naive order, so the two agree to the bit") {
  const auto cpu = cc::make_cpu_backend();
  const Case c = random_case(41, 23, 2, 9, 5, false, 21);
  for (Border border : kBorders) {
    CAPTURE(cc::to_string(border));
    const cc::Problem problem = cc::make_problem(c.image, c.filter, border, true);
    const cc::BackendRun naive = cpu->run(problem, c.image, "naive", 0, quick_options());
    const cc::BackendRun fast = cpu->run(problem, c.image, "fast", 0, quick_options());
    CHECK(naive.output.data == fast.output.data);
  }
}
