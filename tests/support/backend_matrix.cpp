// backend_matrix.cpp: the device-backend test matrix: random data and filters through every border, flip,
// size, radius and channel count, each result checked against the CPU reference by the tolerance rule.
#include "tests/support/backend_matrix.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "common/domain/error.h"
#include "common/domain/reference.h"
#include "common/domain/validate.h"

namespace cc::testing {

namespace {

constexpr unsigned kSeed = 20240611;
constexpr Border kBorders[] = {Border::Zero, Border::Clamp, Border::Mirror, Border::Wrap};

// Variants that take only rank-1 filters get column x row filters; the others get arbitrary ones.
bool needs_rank_one(std::string_view variant) {
  const VariantTraits* traits = find_variant(variant);
  return traits && traits->rank_one;
}

// What a variant may decline in this matrix without failing: a device without images, a filter the
// variant cannot take, or a library missing at build time. Every other skip (a limit the matrix never
// approaches) is a failure.
bool legitimate_skip(const std::string& reason) {
  return reason.find("not separable") != std::string::npos || reason.find("image support") != std::string::npos ||
         reason.find("not found at build time") != std::string::npos;
}

struct Case {
  int width = 0, height = 0, channels = 0, radius_x = 0, radius_y = 0;
  Border border = Border::Zero;
  bool flip = false;
  bool pinned = true;
};

// Pixels in [0, 255), not integers: the float path, not the integer-exact one.
Image random_image(const Case& c, std::mt19937& rng) {
  Image image(c.width, c.height, c.channels, true);
  std::uniform_real_distribution<float> pixel(0.0f, 255.0f);
  for (float& value : image.data) value = pixel(rng);
  return image;
}

// Weights in [-1, 1]; or a rank-1 filter, column x row with positive factors, as a gaussian is.
Filter random_filter(const Case& c, bool rank_one, std::mt19937& rng) {
  Filter filter;
  filter.width = 2 * c.radius_x + 1;
  filter.height = 2 * c.radius_y + 1;
  filter.spec = fmt::format("random {}{}x{}", rank_one ? "rank-1 " : "", filter.width, filter.height);
  if (rank_one) {
    std::uniform_real_distribution<double> factor(0.05, 1.0);
    std::vector<double> column(filter.height), row(filter.width);
    for (double& value : column) value = factor(rng);
    for (double& value : row) value = factor(rng);
    for (double down : column)
      for (double across : row) filter.weights.push_back(static_cast<float>(down * across));
  } else {
    std::uniform_real_distribution<float> weight(-1.0f, 1.0f);
    filter.weights.resize(filter.taps());
    for (float& value : filter.weights) value = weight(rng);
  }
  return filter;
}

// Runs one case and checks it; true when the variant ran.
bool run_case(Backend& backend, int device, std::string_view variant, const Case& c, const Image& input,
              const Filter& filter, bool require_exact) {
  INFO(fmt::format("{} {} on device {}: {}x{}x{} filter {} border {}{} {}", backend.name(), variant, device,
                   c.width, c.height, c.channels, filter.spec, to_string(c.border), c.flip ? " flip" : "",
                   c.pinned ? "pinned" : "pageable"));
  const Problem problem = make_problem(input, filter, c.border, c.flip);
  RunOptions options;
  options.repetitions = 1;
  options.warmup = 0;
  options.pinned = c.pinned;
  const BackendRun run = backend.run(problem, input, variant, device, options);
  if (run.status == Status::Skipped) {
    if (legitimate_skip(run.reason)) {
      MESSAGE("skipped: " << run.reason);
    } else {
      FAIL_CHECK("skipped: " << run.reason);
    }
    return false;
  }
  CHECK(run.status == Status::Ok);
  CHECK(run.memory == (c.pinned ? "pinned" : "pageable"));
  const Tolerance tolerance = tolerance_of(variant, problem, input);
  if (require_exact) CHECK(tolerance.exact);
  const Validation validation = validate(run.output, reference_convolve(input, problem), tolerance);
  CHECK_MESSAGE(validation.passed, validation.message());
  return true;
}

// Filter shapes: a square one per radius, plus wide, tall and one-dimensional ones.
std::vector<std::pair<int, int>> filter_radii(const std::vector<int>& radii) {
  std::vector<std::pair<int, int>> shapes;
  for (int r : radii) shapes.emplace_back(r, r);
  for (auto shape : {std::pair{2, 1}, std::pair{1, 3}, std::pair{4, 0}, std::pair{0, 2}}) shapes.push_back(shape);
  return shapes;
}

// Whether the trimmed matrix keeps a case. Small images (which hold every border effect, radii far
// larger than the image included) take the full product; medium ones every shape and border, with
// flip and channel count rotating over them; the largest only radius 1 (every border) and the largest
// radius once, since one of those runs costs more than all the small ones together.
bool keep_case(const Case& c, std::size_t shape, std::size_t channel, std::size_t border, int largest_radius,
               const MatrixOptions& options) {
  const long long pixels = static_cast<long long>(c.width) * c.height;
  if (!options.trim || pixels <= 1024) return true;
  const std::size_t turn = shape + border;
  if (c.flip != (turn % 2 == 1)) return false;
  if (pixels <= 65536) return channel == turn % options.channels.size();
  const bool radius_one = c.radius_x == 1 && c.radius_y == 1;
  const bool largest = c.radius_x == largest_radius && c.radius_y == largest_radius;
  return channel == 0 && (radius_one || (largest && border == 0));
}

std::vector<Case> matrix_cases(const MatrixOptions& options) {
  const auto shapes = filter_radii(options.radii);
  const int largest_radius = options.radii.empty() ? 0 : *std::max_element(options.radii.begin(), options.radii.end());
  std::vector<Case> cases;
  std::mt19937 coin(kSeed);  // pinned or pageable: a coin toss, so it lines up with no other factor
  for (auto [width, height] : options.sizes)
    for (std::size_t s = 0; s < shapes.size(); ++s)
      for (std::size_t ch = 0; ch < options.channels.size(); ++ch)
        for (std::size_t b = 0; b < std::size(kBorders); ++b)
          for (bool flip : {false, true}) {
            const Case c{width, height, options.channels[ch], shapes[s].first, shapes[s].second, kBorders[b], flip,
                         coin() % 2 == 0};
            if (keep_case(c, s, ch, b, largest_radius, options)) cases.push_back(c);
          }
  return cases;
}

}  // namespace

int check_variant_matrix(Backend& backend, int device, std::string_view variant, const MatrixOptions& options) {
  std::mt19937 rng(kSeed);
  int ran = 0;
  for (const Case& c : matrix_cases(options)) {
    const Image input = random_image(c, rng);
    const Filter filter = random_filter(c, needs_rank_one(variant), rng);
    ran += run_case(backend, device, variant, c, input, filter, false);
  }
  return ran;
}

int check_integer_exact(Backend& backend, int device, std::string_view variant) {
  std::mt19937 rng(kSeed);
  Case c{37, 23, 2, 2, 1};
  Image input(c.width, c.height, c.channels, true);
  std::uniform_int_distribution<int> pixel(0, 255);
  for (float& value : input.data) value = static_cast<float>(pixel(rng));

  Filter filter;
  filter.width = 2 * c.radius_x + 1;
  filter.height = 2 * c.radius_y + 1;
  filter.spec = "random integer";
  if (needs_rank_one(variant)) {
    // Column factors 1 or 2 with a 2 at the peak: whatever row a factorization divides by, the
    // quotients are halves, exact in float, so the two passes stay exact too.
    std::vector<int> column{1, 2, 1}, row(filter.width);
    std::uniform_int_distribution<int> weight(-3, 3);
    for (int& value : row) value = weight(rng);
    row[c.radius_x] = 3;
    for (int down : column)
      for (int across : row) filter.weights.push_back(static_cast<float>(down * across));
  } else {
    std::uniform_int_distribution<int> weight(-4, 4);
    for (int i = 0; i < filter.taps(); ++i) filter.weights.push_back(static_cast<float>(weight(rng)));
  }

  int ran = 0;
  for (Border border : kBorders)
    for (bool flip : {false, true}) {
      c.border = border;
      c.flip = flip;
      c.pinned = !flip;
      // An FFT is not exact even on integers (docs/correctness.md): fft is held to its own bound instead.
      ran += run_case(backend, device, variant, c, input, filter, find_variant(variant)->kind != VariantKind::Fft);
    }
  return ran;
}

Tolerance tolerance_of(std::string_view variant, const Problem& problem, const Image& input) {
  const VariantTraits* traits = find_variant(variant);
  REQUIRE_MESSAGE(traits, "no variant " << variant << " in the table");
  return tolerance_for_variant(*traits, problem, input);
}

std::unique_ptr<Backend> find_backend(std::string_view name) {
  for (std::unique_ptr<Backend>& backend : make_backends())
    if (backend->name() == name) return std::move(backend);
  return nullptr;
}

void check_measured_peaks(Backend& backend) {
  const auto& devices = backend.devices();
  for (int device = 0; device < static_cast<int>(devices.size()); ++device) {
    CAPTURE(devices[device].id);
    const auto start = std::chrono::steady_clock::now();
    const DevicePeaks peaks = backend.measure_peaks(device);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MESSAGE(fmt::format("{}: copy {:.1f} GB/s, FMA {:.1f} GFLOP/s, measured in {:.2f} s", devices[device].id,
                        peaks.copy_gb_per_s, peaks.fma_gflop_per_s, seconds));
    CHECK(std::isfinite(peaks.copy_gb_per_s));
    CHECK(peaks.copy_gb_per_s > 0);
    CHECK(std::isfinite(peaks.fma_gflop_per_s));
    CHECK(peaks.fma_gflop_per_s > 0);
    // Cached: the second call measures nothing and returns the same figures.
    const DevicePeaks again = backend.measure_peaks(device);
    CHECK(again.copy_gb_per_s == peaks.copy_gb_per_s);
    CHECK(again.fma_gflop_per_s == peaks.fma_gflop_per_s);
  }
  CHECK_THROWS_AS(backend.measure_peaks(static_cast<int>(devices.size())), InputError);
}

}  // namespace cc::testing
