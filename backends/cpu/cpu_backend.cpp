// cpu_backend.cpp: the CPU backend: `naive` (the seeds' loop, one thread) and `fast` (padded rows, all cores).
#include "backends/cpu/cpu_backend.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <thread>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "common/domain/parallel.h"
#include "common/domain/variants.h"

namespace cc {

namespace {

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (!line.starts_with("model name")) continue;
    const auto colon = line.find(':');
    const auto start = line.find_first_not_of(" \t", colon + 1);
    if (colon != std::string::npos && start != std::string::npos) return line.substr(start);
  }
  return "CPU";
}

// --cold on the CPU: the same algorithm as the devices' (backends/measure.h), a write of twice the
// last-level cache (glibc's sysconf; 64 MB when it does not say) so no input or output line stays cached.
void flush_caches() {
  static std::vector<unsigned char> scratch = [] {
    const long reported = ::sysconf(_SC_LEVEL3_CACHE_SIZE) > 0 ? ::sysconf(_SC_LEVEL3_CACHE_SIZE) : ::sysconf(_SC_LEVEL2_CACHE_SIZE);
    const std::size_t cache = reported > 0 ? static_cast<std::size_t>(reported) : std::size_t{32} << 20;
    return std::vector<unsigned char>(2 * cache);
  }();
  static unsigned char value = 0;
  std::fill(scratch.begin(), scratch.end(), ++value);  // a new value each time: the stores cannot be elided
}

// The seeds' CPU loop: one output pixel at a time, every tap through the border rule, a float sum
// over filter rows, then columns, as a one-pixel-per-thread kernel does it. One thread on purpose:
// this is the baseline speed-ups are quoted against.
void convolve_naive(const Image& input, const Filter& filter, const ConvArgs& a, Image& output) {
  for (int c = 0; c < input.channels; ++c) {
    const float* in = input.plane(c);
    float* out = output.plane(c);
    for (int y = 0; y < a.height; ++y)
      for (int x = 0; x < a.width; ++x) {
        float sum = 0.0f;
        for (int fy = 0; fy < a.filter_height; ++fy)
          for (int fx = 0; fx < a.filter_width; ++fx) {
            const int sy = cc_border_index(y + fy - a.radius_y, a.height, a.border);
            const int sx = cc_border_index(x + fx - a.radius_x, a.width, a.border);
            if (sy < 0 || sx < 0) continue;  // a zero-border ghost cell
            sum += in[sy * a.width + sx] * filter.at(fy, fx);
          }
        out[y * a.width + x] = sum;
      }
  }
}

// Taps of one filter row applied to a whole output row: branch-free loops over contiguous,
// non-aliasing spans, which the compiler turns into SIMD multiplies and adds. Four taps per pass
// load and store the output once instead of four times; each pixel still adds its taps in order,
// so the result is the naive loop's to the bit.
void accumulate_filter_row(float* __restrict out, const float* __restrict source, const float* weights, int taps,
                           int width) {
  int t = 0;
  for (; t + 4 <= taps; t += 4) {
    const float w0 = weights[t], w1 = weights[t + 1], w2 = weights[t + 2], w3 = weights[t + 3];
    const float* __restrict s = source + t;
    for (int x = 0; x < width; ++x) out[x] = (((out[x] + w0 * s[x]) + w1 * s[x + 1]) + w2 * s[x + 2]) + w3 * s[x + 3];
  }
  for (; t < taps; ++t) {
    const float w = weights[t];
    const float* __restrict s = source + t;
    for (int x = 0; x < width; ++x) out[x] += w * s[x];
  }
}

// Pads each plane once with an apron filled by the border rule, so the inner loops never test a
// coordinate; then each output row sums whole shifted rows of the padded plane, row bands on all
// cores. The per-pixel tap order (filter row, then column) is the naive loop's.
void convolve_fast(const Image& input, const Filter& filter, const ConvArgs& a, Image& output) {
  const int padded_width = a.width + 2 * a.radius_x, padded_height = a.height + 2 * a.radius_y;
  std::vector<float> padded(static_cast<std::size_t>(padded_width) * padded_height);
  std::vector<int> source_x(padded_width);
  for (int px = 0; px < padded_width; ++px) source_x[px] = cc_border_index(px - a.radius_x, a.width, a.border);

  for (int c = 0; c < input.channels; ++c) {
    const float* in = input.plane(c);
    parallel_for_rows(padded_height, [&](int begin, int end) {
      for (int py = begin; py < end; ++py) {
        float* dst = padded.data() + static_cast<std::size_t>(py) * padded_width;
        const int sy = cc_border_index(py - a.radius_y, a.height, a.border);
        for (int px = 0; px < padded_width; ++px)
          dst[px] = sy < 0 || source_x[px] < 0 ? 0.0f : in[static_cast<std::size_t>(sy) * a.width + source_x[px]];
      }
    });
    float* out_plane = output.plane(c);
    parallel_for_rows(a.height, [&](int begin, int end) {
      for (int y = begin; y < end; ++y) {
        float* out = out_plane + static_cast<std::size_t>(y) * a.width;
        std::fill(out, out + a.width, 0.0f);
        for (int fy = 0; fy < a.filter_height; ++fy) {
          const float* row = padded.data() + static_cast<std::size_t>(y + fy) * padded_width;
          accumulate_filter_row(out, row, &filter.weights[static_cast<std::size_t>(fy) * a.filter_width], a.filter_width, a.width);
        }
      }
    });
  }
}

// The CPU's implementations of the table's variants, in table order.
struct CpuVariant {
  std::string_view name;
  void (*convolve)(const Image& input, const Filter& filter, const ConvArgs& args, Image& output);
};
constexpr CpuVariant kCpuVariants[] = {{"naive", convolve_naive}, {"fast", convolve_fast}};

class CpuBackend final : public Backend {
 public:
  CpuBackend() {
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    DeviceInfo cpu{"cpu", "cpu", cpu_model_name(), {{"threads", std::to_string(threads)}},
                   DevicePeaks{}};  // not measured: the CPU rows have no "% of bound"
    cpu.compute_units = static_cast<int>(threads);
    const long pages = ::sysconf(_SC_PHYS_PAGES), page_bytes = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_bytes > 0) cpu.global_memory_bytes = static_cast<double>(pages) * static_cast<double>(page_bytes);
    if (const long cache = ::sysconf(_SC_LEVEL3_CACHE_SIZE); cache > 0) cpu.cache_bytes = static_cast<double>(cache);
    devices_.push_back(std::move(cpu));
  }

  std::string_view name() const override { return "cpu"; }
  const std::vector<DeviceInfo>& devices() override { return devices_; }
  std::string unavailable_reason() override { return ""; }
  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (const CpuVariant& variant : kCpuVariants) names.emplace_back(variant.name);
    return names;
  }

  BackendRun run(const Problem& problem, const Image& input, const VariantTraits& traits, int device,
                 const RunOptions& options) override {
    const auto found = std::ranges::find(kCpuVariants, traits.name, &CpuVariant::name);
    if (found == std::end(kCpuVariants)) return skipped(fmt::format("cpu backend has no variant '{}'", traits.name));
    if (device != 0) return skipped(fmt::format("cpu backend has no device {}", device));
    if (!(traits.pixels & pixel_bit(problem.pixel)))
      return skipped(fmt::format("{} has no {} kernels (pixel types: {})", traits.name, to_string(problem.pixel),
                                 pixel_names(traits.pixels)));
    const ConvArgs args = problem.conv_args();
    const auto convolve = found->convolve;

    BackendRun result;
    result.output = Image(input.width, input.height, input.channels, input.eight_bit);
    // NaN before every launch, outside the timing, so a pixel a launch forgets fails validation.
    auto poison = [&] { std::fill(result.output.data.begin(), result.output.data.end(), std::numeric_limits<float>::quiet_NaN()); };

    // 8-bit storage: the float sums rounded to nearest and saturated, as a device kernel stores them.
    const bool eight_bit = problem.format.eight_bit();
    const auto launch = [&] {
      convolve(input, problem.correlation_filter, args, result.output);
      if (eight_bit)
        for (float& value : result.output.data) value = to_8bit(value);
    };
    // One budget for warm-ups and samples (RunBudget, backends/backend.h).
    RunBudget budget(options.time_budget_s);
    const RunOptions::WarmUp warm = options.warm_up(budget, launch);
    const SamplePlan plan = options.plan_samples(budget, warm.timed, warm.one_launch_s, 0);
    Sampling sampling = sample_until_stopped(plan.rule, plan.first_round, [&](int count) {
      std::vector<double> samples_ms;
      for (int i = 0; i < count; ++i) {
        poison();
        if (options.cold) flush_caches();
        const auto start = std::chrono::steady_clock::now();
        launch();
        samples_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      }
      return samples_ms;
    });

    result.status = Status::Ok;
    result.times.kernel_ms = summarize(sampling.samples_ms);
    result.times.kernel_samples_ms = std::move(sampling.samples_ms);
    result.times.stopped_by = to_string(sampling.stopped_by);
    result.times.cold = options.cold;
    result.compile_time = "radius: run-time";
    return result;
  }

 private:
  std::vector<DeviceInfo> devices_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace cc
