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

// The lowrank variant gets rank-2 filters (the sum of two rank-1 ones): the LoG and DoG case.
bool needs_low_rank(std::string_view variant) {
  const VariantTraits* traits = find_variant(variant);
  return traits && traits->low_rank;
}

// The reasons a device gives for lacking a capability (DeviceLimits::missing, set in cl_devices.cpp and
// cuda_backend.cpp), as the matrix sees them through Backend::run, which does not show the limits.
bool names_missing_capability(const std::string& reason) {
  return reason.find("image support") != std::string::npos ||                  // Images
         reason.find("image2d format") != std::string::npos ||                 // Images, for the pixel type
         reason.find("cannot link wait_group_events") != std::string::npos ||  // AsyncCopies: PoCL 5
         reason.find("no sub-group shuffle") != std::string::npos ||           // LaneShuffles
         reason.find("thread-block clusters need") != std::string::npos ||     // Clusters: CUDA before 9.0
         reason.find("accelerator (TMA) needs compute capability") != std::string::npos ||  // TensorMaps: the same
         reason.find("tensor-core matrix product") != std::string::npos ||  // TensorCores: OpenCL off NVIDIA
         reason.find("(mma.sync .tf32) need compute capability") != std::string::npos;  // TensorCores: before 8.0
}

// What a variant may decline in this matrix without failing: a capability the device lacks, where the
// variant's table line needs one (VariantTraits::needs); a filter the variant cannot take; a library
// missing at build time; the matrix's rows and float planes that are no multiple of 16 bytes, which TMA
// cannot describe (backends/cuda/tensor_map.cpp). Every other skip (a limit the matrix never approaches)
// is a failure.
bool legitimate_skip(const VariantTraits& variant, const std::string& reason) {
  if (!variant.needs.empty() && names_missing_capability(reason)) return true;
  return reason.find("not separable") != std::string::npos ||
         (variant.geometry == Geometry::Fast && reason.find("building fast's RGBA8 kernel") != std::string::npos) ||
         reason.find("not found at build time") != std::string::npos ||
         (variant.needs.has(Capability::TensorMaps) &&
          (reason.find("steps between rows in multiples of 16 bytes") != std::string::npos ||
           reason.find("reads from 16-byte aligned addresses") != std::string::npos));
}

struct Case {
  int width = 0, height = 0, channels = 0, radius_x = 0, radius_y = 0;
  Border border = Border::Zero;
  bool flip = false;
  bool pinned = true;
  PixelType pixel = PixelType::F32;
};

// What the 8-bit runs' references held: values that saturate at 0 and at 255 and values that round in
// between, so the matrix can show that its filters exercise all three.
struct EightBitCoverage {
  long long below = 0, above = 0, between = 0;
  void count(const Image& reference) {
    for (const float value : reference.data) {
      if (value < -0.5f) ++below;
      else if (value > 255.5f) ++above;
      else if (value != std::nearbyint(value)) ++between;
    }
  }
};

// Float pixels in [0, 255), not integers: the float path, not the integer-exact one. 8-bit: integers
// 0..255, as the device's 8-bit frame holds them.
Image random_image(const Case& c, std::mt19937& rng) {
  Image image(c.width, c.height, c.channels, true);
  if (c.pixel == PixelType::U8) {
    std::uniform_int_distribution<int> pixel(0, 255);
    for (float& value : image.data) value = static_cast<float>(pixel(rng));
    return image;
  }
  std::uniform_real_distribution<float> pixel(0.0f, 255.0f);
  for (float& value : image.data) value = pixel(rng);
  return image;
}

// Weights in [-1, 1]; or a rank-1 filter, column x row with positive factors, as a gaussian is.
// 8-bit: weights around 1 / taps (a blur) plus up to 3 / sqrt(taps) either way, so a sum's mean and its
// spread over 0..255 pixels are both of the order of the pixels, and results leave 0..255 at both ends
// as often as they land between integers; rank 1: a row factor of either sign, scaled to sum|w| = 2.
Filter random_filter(const Case& c, bool rank_one, std::mt19937& rng) {
  Filter filter;
  filter.width = 2 * c.radius_x + 1;
  filter.height = 2 * c.radius_y + 1;
  filter.spec = fmt::format("random {}{}x{}", rank_one ? "rank-1 " : "", filter.width, filter.height);
  const bool eight_bit = c.pixel == PixelType::U8;
  if (rank_one) {
    std::uniform_real_distribution<double> factor(0.05, 1.0), signed_factor(-0.5, 1.0);
    std::vector<double> column(filter.height), row(filter.width);
    for (double& value : column) value = factor(rng);
    for (double& value : row) value = eight_bit ? signed_factor(rng) : factor(rng);
    double scale = 1.0;
    if (eight_bit) {
      double column_sum = 0, row_sum = 0;
      for (double value : column) column_sum += std::fabs(value);
      for (double value : row) row_sum += std::fabs(value);
      scale = 2.0 / (column_sum * row_sum);
    }
    for (double down : column)
      for (double across : row) filter.weights.push_back(static_cast<float>(down * across * scale));
  } else if (eight_bit) {
    const double taps = filter.taps();
    std::uniform_real_distribution<double> spread(-3.0 / std::sqrt(taps), 3.0 / std::sqrt(taps));
    for (int i = 0; i < filter.taps(); ++i) filter.weights.push_back(static_cast<float>(1.0 / taps + spread(rng)));
  } else {
    std::uniform_real_distribution<float> weight(-1.0f, 1.0f);
    filter.weights.resize(filter.taps());
    for (float& value : filter.weights) value = weight(rng);
  }
  return filter;
}

// Runs one case and checks it; true when the variant ran. `coverage` counts an 8-bit reference's values.
bool run_case(Backend& backend, int device, std::string_view variant, const Case& c, const Image& input,
              const Filter& filter, bool require_exact, EightBitCoverage* coverage = nullptr) {
  INFO(fmt::format("{} {} on device {}: {}x{}x{} {} filter {} border {}{} {}", backend.name(), variant, device,
                   c.width, c.height, c.channels, to_string(c.pixel), filter.spec, to_string(c.border),
                   c.flip ? " flip" : "", c.pinned ? "pinned" : "pageable"));
  const Problem problem = make_problem(input, filter, c.border, c.flip, c.pixel);
  RunOptions options;
  options.repetitions = 1;
  options.warmup = 0;
  options.memory = c.pinned ? cc::HostMemory::Pinned : cc::HostMemory::Pageable;
  const BackendRun run = backend.run(problem, input, variant, device, options);
  if (run.status == Status::Skipped) {
    if (legitimate_skip(*find_variant(variant), run.reason)) {
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
  const Image reference = reference_convolve(input, problem);
  const Validation validation = validate(run.output, reference, tolerance);
  CHECK_MESSAGE(validation.passed, validation.message());
  if (coverage) coverage->count(reference);
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
// larger than the image included) take the full product but flip (MatrixOptions::small_images_every_flip);
// medium ones every shape and border, with
// flip and channel count rotating over them; the largest only radius 1 (every border) and the largest
// radius once, since one of those runs costs more than all the small ones together.
bool keep_case(const Case& c, std::size_t shape, std::size_t channel, std::size_t border, int largest_radius,
               const MatrixOptions& options) {
  const long long pixels = static_cast<long long>(c.width) * c.height;
  if (!options.trim) return true;
  const std::size_t turn = shape + border;
  if (pixels <= 1024) {
    if (!options.small_images_every_flip && c.flip != (turn % 2 == 1)) return false;
    return options.small_image_channels.empty() ||
           std::ranges::find(options.small_image_channels, c.channels) != options.small_image_channels.end();
  }
  if (c.flip != (turn % 2 == 1)) return false;
  if (pixels <= 65536) return channel == turn % options.channels.size();
  const bool radius_one = c.radius_x == 1 && c.radius_y == 1;
  const bool largest = c.radius_x == largest_radius && c.radius_y == largest_radius;
  return channel == 0 && (radius_one || (largest && border == 0 && options.largest_radius_on_largest_image));
}

std::vector<Case> matrix_cases(const MatrixOptions& options, const std::vector<SizeShapes>& sized_shapes) {
  int largest_radius = 0;  // of the square shapes
  for (const SizeShapes& entry : sized_shapes)
    for (const auto& [radius_x, radius_y] : entry.shapes)
      if (radius_x == radius_y) largest_radius = std::max(largest_radius, radius_x);
  std::vector<Case> cases;
  std::mt19937 coin(kSeed);  // pinned or pageable: a coin toss, so it lines up with no other factor
  for (const auto& [size, shapes] : sized_shapes)
    for (std::size_t s = 0; s < shapes.size(); ++s)
      for (std::size_t ch = 0; ch < options.channels.size(); ++ch)
        for (std::size_t b = 0; b < std::size(kBorders); ++b)
          for (bool flip : {false, true}) {
            const Case c{size.first,      size.second, options.channels[ch], shapes[s].first, shapes[s].second,
                         kBorders[b],     flip,        coin() % 2 == 0,     options.pixel};
            if (keep_case(c, s, ch, b, largest_radius, options)) cases.push_back(c);
          }
  return cases;
}

}  // namespace

MatrixOptions eight_bit_matrix() {
  MatrixOptions options;
  options.channels = {1, 3, 4};
  options.small_image_channels = {1, 4};
  options.compiled_shapes = {{1, 1}, {3, 2}, {2, 1}, {6, 5}};
  options.pass_compiled_shapes = {{3, 2}, {2, 1}};
  options.pixel = PixelType::U8;
  options.largest_radius_on_largest_image = false;
  return options;
}

int check_variant_matrix(Backend& backend, int device, std::string_view variant, const MatrixOptions& requested) {
  // The largest radius on the largest image is there for the tiled variants: many interior tiles, each
  // with a wide apron. A variant with no tile (one output per work-item) runs the same code at every
  // image size, which the medium images cover at that radius and the largest at radius 1; for it that
  // run is only the costliest of all (PoCL samples texture's 1089 taps a pixel in software: two minutes
  // of the test command).
  MatrixOptions options = requested;
  const VariantTraits* traits = find_variant(variant);
  if (traits && traits->geometry == Geometry::PerPixel) options.largest_radius_on_largest_image = false;
  std::mt19937 rng(kSeed);
  int ran = 0;
  EightBitCoverage coverage;
  // The filter shapes: the radii's, or where a variant compiles programs per filter size, the options' own;
  // every size takes them, but fft, whose sizes and shapes go together (MatrixOptions::fft_cases).
  std::vector<std::pair<int, int>> shapes = filter_radii(options.radii);
  if (needs_low_rank(variant) && !options.low_rank_radii.empty()) shapes = filter_radii(options.low_rank_radii);
  if (traits && traits->compile_time_radius && !options.compiled_shapes.empty()) shapes = options.compiled_shapes;
  if ((needs_rank_one(variant) || needs_low_rank(variant)) && traits->compile_time_radius &&
      !options.pass_compiled_shapes.empty())
    shapes = options.pass_compiled_shapes;
  std::vector<SizeShapes> sized_shapes;
  for (const auto& size : options.sizes) sized_shapes.push_back({size, shapes});
  if (traits && traits->kind == VariantKind::Fft && !options.fft_cases.empty()) sized_shapes = options.fft_cases;
  for (const Case& c : matrix_cases(options, sized_shapes)) {
    const Image input = random_image(c, rng);
    Filter filter = random_filter(c, needs_rank_one(variant) || needs_low_rank(variant), rng);
    if (needs_low_rank(variant)) {
      // A second rank-1 term of the other sign's row where 8-bit allows, half the first's size: rank 2.
      const Filter second = random_filter(c, true, rng);
      for (std::size_t i = 0; i < filter.weights.size(); ++i) filter.weights[i] -= 0.5f * second.weights[i];
      filter.spec = fmt::format("random rank-2 {}x{}", filter.width, filter.height);
    }
    ran += run_case(backend, device, variant, c, input, filter, false, &coverage);
  }
  if (options.pixel == PixelType::U8 && ran > 0) {
    INFO(fmt::format("{} {}: 8-bit references below 0: {}, above 255: {}, between integers: {}", backend.name(),
                     variant, coverage.below, coverage.above, coverage.between));
    CHECK(coverage.below > 0);
    CHECK(coverage.above > 0);
    CHECK(coverage.between > 0);
  }
  return ran;
}

int check_integer_exact(Backend& backend, int device, std::string_view variant, PixelType pixel) {
  std::mt19937 rng(kSeed);
  Case c{37, 23, 2, 2, 1};
  c.pixel = pixel;
  std::uniform_int_distribution<int> pixel_value(0, 255);
  // 8-bit runs both formats: 1 channel, and 2 padded to RGBA8.
  const auto integer_image = [&](int channels) {
    Image image(c.width, c.height, channels, true);
    for (float& value : image.data) value = static_cast<float>(pixel_value(rng));
    return image;
  };
  const Image input = integer_image(c.channels);

  Filter filter;
  filter.width = 2 * c.radius_x + 1;
  filter.height = 2 * c.radius_y + 1;
  filter.spec = "random integer";
  if (needs_rank_one(variant) || needs_low_rank(variant)) {
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

  const Image single = pixel == PixelType::U8 ? integer_image(1) : input;  // drawn last: f32's draws as they were
  int ran = 0;
  for (Border border : kBorders)
    for (bool flip : {false, true}) {
      c.border = border;
      c.flip = flip;
      c.pinned = !flip;
      const bool one_channel = pixel == PixelType::U8 && flip;
      c.channels = one_channel ? 1 : 2;
      // An FFT is not exact even on integers (docs/correctness.md): fft is held to its own bound instead.
      // Neither is a baseline's 8-bit rounding, which is its own (Tolerance::any_rounding), nor lowrank's
      // SVD factors, which are not integers (its residual and rounding bound, docs/correctness.md).
      const VariantTraits& traits = *find_variant(variant);
      const bool exact = traits.kind != VariantKind::Fft && !traits.low_rank &&
                         !(pixel == PixelType::U8 && traits.kind == VariantKind::Baseline);
      ran += run_case(backend, device, variant, c, one_channel ? single : input, filter, exact);
    }
  return ran;
}

RunOptions two_samples() {
  RunOptions options;
  options.repetitions = 2;
  options.warmup = 1;
  options.time_budget_s = 1e9;
  return options;
}

Tolerance tolerance_of(std::string_view variant, const Problem& problem, const Image& input) {
  const VariantTraits* traits = find_variant(variant);
  REQUIRE_MESSAGE(traits, "no variant " << variant << " in the table");
  return tolerance_for_variant(*traits, problem, input);
}

std::vector<std::string> table_variants(std::string_view backend) {
  std::vector<std::string> names;
  for (const VariantTraits& variant : all_variants())
    if (variant.implemented_by(backend) && variant.in_all()) names.emplace_back(variant.name);
  return names;
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
    if (!peaks.untimed.empty()) {  // made-up profiling timestamps (Rusticl over llvmpipe): no made-up ceilings
      MESSAGE(devices[device].id << ": peaks untimed: " << peaks.untimed);
      CHECK(peaks.untimed.find("profiling timestamps are not real") != std::string::npos);
      CHECK(std::isnan(peaks.copy_gb_per_s));
      CHECK(std::isnan(peaks.fma_gflop_per_s));
    } else {
      CHECK(std::isfinite(peaks.copy_gb_per_s));
      CHECK(peaks.copy_gb_per_s > 0);
      CHECK(std::isfinite(peaks.fma_gflop_per_s));
      CHECK(peaks.fma_gflop_per_s > 0);
    }
    // Cached: the second call measures nothing and returns the same figures.
    const DevicePeaks again = backend.measure_peaks(device);
    CHECK(again.untimed == peaks.untimed);
    if (peaks.untimed.empty()) {
      CHECK(again.copy_gb_per_s == peaks.copy_gb_per_s);
      CHECK(again.fma_gflop_per_s == peaks.fma_gflop_per_s);
    }
  }
  CHECK_THROWS_AS(backend.measure_peaks(static_cast<int>(devices.size())), InputError);
}

}  // namespace cc::testing
