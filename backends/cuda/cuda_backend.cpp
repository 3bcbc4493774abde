// cuda_backend.cpp: the CUDA backend: device discovery and limits, NVRTC modules, and each run through the shared plan and protocol.
#include "backends/cuda/cuda_backend.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_launchers.h"
#include "backends/cuda/cuda_peaks.h"
#include "backends/cuda/cuda_resources.h"
#include "backends/cuda/runtime_module.h"
#include "backends/embedded_sources.h"
#include "backends/launch_plan.h"
#include "backends/measure.h"
#include "common/domain/error.h"
#include "kernels_cuda/launchers.h"

namespace cc {

namespace {

// CUDA encodes versions as 1000 * major + 10 * minor.
std::string version_text(int version) { return fmt::format("{}.{}", version / 1000, version % 1000 / 10); }

// Why there is no device to run on, from cudaGetDeviceCount's failure.
std::string no_device_reason(cudaError_t status) {
  if (status == cudaErrorNoDevice) return "no CUDA device found";
  if (status == cudaErrorInsufficientDriver) {
    int driver = 0, runtime = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaGetLastError();
    if (driver == 0) return "no CUDA driver installed";
    return fmt::format("CUDA driver {} is older than the runtime {}", version_text(driver), version_text(runtime));
  }
  return fmt::format("cudaGetDeviceCount failed: {} ({})", cudaGetErrorName(status), cudaGetErrorString(status));
}

int attribute(cudaDeviceAttr which, int device) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, which, device) != cudaSuccess) cudaGetLastError();
  return value;
}

DeviceInfo describe(int ordinal, const cudaDeviceProp& properties, int driver, int runtime) {
  const auto kb = [](std::size_t bytes) { return fmt::format("{} KB", bytes / 1024); };
  DeviceInfo info;
  info.backend = "cuda";
  info.id = fmt::format("cuda:{}", ordinal);
  info.name = properties.name;
  info.properties = {
      {"compute capability", fmt::format("{}.{}", properties.major, properties.minor)},
      {"multiprocessors", std::to_string(properties.multiProcessorCount)},
      {"global memory", fmt::format("{:.1f} GB", static_cast<double>(properties.totalGlobalMem) / (1 << 30))},
      {"shared memory per block", kb(properties.sharedMemPerBlock)},
      {"shared memory per block (opt-in)", kb(properties.sharedMemPerBlockOptin)},
      {"constant memory", kb(properties.totalConstMem)},
      {"L2 cache", fmt::format("{:.1f} MB", cuda::megabytes(static_cast<std::size_t>(properties.l2CacheSize)))},
      {"largest 2D texture", fmt::format("{}x{}", properties.maxTexture2D[0], properties.maxTexture2D[1])},
      {"SM clock", fmt::format("{} MHz", attribute(cudaDevAttrClockRate, ordinal) / 1000)},
      {"memory clock", fmt::format("{} MHz", attribute(cudaDevAttrMemoryClockRate, ordinal) / 1000)},
      {"memory bus width", fmt::format("{} bits", attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal))},
      {"driver version", version_text(driver)},
      {"runtime version", version_text(runtime)},
  };
  info.compute_units = properties.multiProcessorCount;
  info.global_memory_bytes = static_cast<double>(properties.totalGlobalMem);
  info.cache_bytes = static_cast<double>(properties.l2CacheSize);
  return info;
}

// The limits the planning rule reads, in CUDA's words. Free memory is read again before each plan.
DeviceLimits read_limits(const cudaDeviceProp& properties) {
  DeviceLimits limits;
  limits.max_allocation = properties.totalGlobalMem;
  limits.on_chip_bytes = std::max(properties.sharedMemPerBlock, properties.sharedMemPerBlockOptin);
  limits.on_chip_default = properties.sharedMemPerBlock;
  // The constant-memory variants' own __constant__ bank (kernels_cuda/filter_in_constant.cuh), not the
  // device's total: that is what a filter must fit.
  limits.constant_bytes = cuda_kernels::kMaxConstantTaps * sizeof(float);
  limits.max_group = properties.maxThreadsPerBlock;
  limits.max_group_x = properties.maxThreadsDim[0];
  limits.max_group_y = properties.maxThreadsDim[1];
  limits.image_max_width = properties.maxTexture2D[0];
  limits.image_max_height = properties.maxTexture2D[1];
  limits.memory_name = "free";
  limits.allocation_name = "global memory";
  limits.on_chip_name = "shared memory";
  limits.constant_name = "the 64 KB of constant memory";
  limits.image_name = "the largest 2D texture";
  limits.group_name = "threads per block";
  return limits;
}

// What the compiler knew, for the report: NVRTC's options, NPP's prebuilt kernels, or nvcc's offline build.
std::string compile_time_text(const LaunchPlan& plan, const cuda::RuntimeModule* module) {
  if (module) return "radius: compile-time; NVRTC " + module->options_text();
  if (plan.variant->kind == VariantKind::Baseline) return "radius: run-time; NPP, prebuilt by NVIDIA";
  const std::string architectures = CONVCOMPARE_CUDA_ARCHITECTURES;
  const bool one_number = !architectures.empty() && std::ranges::all_of(architectures, [](char c) {
    return c >= '0' && c <= '9';
  });
  std::string text = fmt::format("radius: run-time; nvcc {} --fmad=true (offline)",
                                 one_number ? "-arch=sm_" + architectures : "for CUDA architectures " + architectures);
  if (plan.variant->kind == VariantKind::Fft)
    text += fmt::format("; cuFFT real-to-complex and back at {}", fft_shape_text(plan.fft));
  return text;
}

class CudaBackend final : public Backend {
 public:
  std::string_view name() const override { return "cuda"; }

  const std::vector<DeviceInfo>& devices() override {
    discover();
    return devices_;
  }

  std::string unavailable_reason() override {
    discover();
    return devices_.empty() ? reason_ : "";
  }

  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (const cuda::Launcher& launcher : cuda::launchers()) names.emplace_back(launcher.variant);
    return names;
  }

  BackendRun run(const Problem& problem, const Image& input, std::string_view variant, int device,
                 const RunOptions& options) override {
    Planned planned;
    if (std::string reason = plan(planned, problem, variant, device, 1); !reason.empty())
      return skipped(std::move(reason));
    cuda::CudaSession session(ordinals_[device]);
    BackendRun run = measure_run(session, prepare(planned, problem, device), problem, input,
                                 planned.plan.frame_bytes + planned.plan.filter_bytes, options);
    run.compile_time = compile_time_text(planned.plan, planned.module);
    if (planned.module) run.times.build_ms = planned.module->build_ms();
    return run;
  }

  StreamRun stream(const Problem& problem, const Image& input, std::string_view variant, int device, int frames,
                   const RunOptions& options) override {
    if (frames < 1) throw InputError(fmt::format("--stream needs at least 1 frame, got {}", frames));
    Planned planned;
    if (std::string reason = plan(planned, problem, variant, device, kStreamSlots); !reason.empty()) {
      StreamRun skip;
      skip.reason = std::move(reason);
      return skip;
    }
    cuda::CudaSession session(ordinals_[device]);
    return measure_stream(session, prepare(planned, problem, device), problem, input, frames, options);
  }

  DevicePeaks measure_peaks(int device) override {
    check_device(device);
    if (auto found = peaks_.find(device); found != peaks_.end()) return found->second;
    return peaks_[device] = cuda::measure_peaks(ordinals_[device]);
  }

 private:
  struct Planned {
    LaunchPlan plan;
    const cuda::Launcher* launcher = nullptr;
    const cuda::RuntimeModule* module = nullptr;  // variants with a compile-time radius
  };

  void check_device(int device) {
    discover();
    if (device < 0 || device >= static_cast<int>(devices_.size()))
      throw InputError(fmt::format("no CUDA device {} ({} found)", device, devices_.size()));
  }

  // The shared planning rule, with NVRTC as the build step; returns why the variant cannot run here,
  // or "". Bad requests throw InputError.
  std::string plan(Planned& planned, const Problem& problem, std::string_view variant, int device,
                   int frames_in_flight) {
    discover();
    if (devices_.empty()) return reason_;
    check_device(device);
    const auto all = cuda::launchers();
    const auto found = std::ranges::find(all, variant, &cuda::Launcher::variant);
    if (found == all.end())
      throw InputError(fmt::format("the cuda backend has no variant '{}' ({})", variant, fmt::join(variants(), ", ")));
    if (!found->missing.empty()) return std::string(found->missing);
    planned.launcher = &*found;
    const int ordinal = ordinals_[device];
    CC_CUDA_CHECK(cudaSetDevice(ordinal));
    DeviceLimits limits = limits_[device];
    limits.memory = cuda::free_device_memory();
    const VariantTraits& traits = *find_variant(variant);
    const auto build = [&](const LaunchPlan& plan) {
      KernelLimits kernel{.max_group = limits.max_group};
      if (traits.compile_time_radius) {
        planned.module = &runtime_module(ordinal, std::string(traits.name) + ".cu", plan.defines);
        // A cudaKernel_t passes as a function pointer (the runtime API's note on cudaKernel_t).
        const std::string kernel_name = "convolve_" + std::string(traits.name);
        cudaFuncAttributes attributes{};
        CC_CUDA_CHECK(cudaFuncGetAttributes(
            &attributes, reinterpret_cast<const void*>(planned.module->kernel(kernel_name.c_str()))));
        kernel.max_group = static_cast<std::size_t>(attributes.maxThreadsPerBlock);
      }
      return kernel;
    };
    std::string reason = plan_launch(planned.plan, traits, problem, limits, frames_in_flight, build);
    // A launcher may decline what the rule accepted: a vendor library's own limit (cuda_launchers.h).
    if (reason.empty() && found->declines) reason = found->declines(planned.plan, problem);
    return reason;
  }

  PrepareVariant prepare(const Planned& planned, const Problem& problem, int device) {
    return [&planned, &problem, this, device](DeviceQueue& queue) {
      const cuda::LauncherSetup setup{planned.plan, problem, limits_[device], planned.module};
      return planned.launcher->prepare(setup, static_cast<cuda::CudaQueue&>(queue).stream());
    };
  }

  // Once, on first use, and never throwing: a machine without CUDA is a reason, not an error.
  void discover() {
    if (discovered_) return;
    discovered_ = true;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      cudaGetLastError();
      reason_ = no_device_reason(status);
      return;
    }
    if (count == 0) {
      reason_ = "no CUDA device found";
      return;
    }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      cudaDeviceProp properties{};
      if (const cudaError_t error = cudaGetDeviceProperties(&properties, ordinal); error != cudaSuccess) {
        cudaGetLastError();
        reason_ = fmt::format("cuda:{}: cudaGetDeviceProperties failed: {}", ordinal, cudaGetErrorName(error));
        continue;
      }
      devices_.push_back(describe(ordinal, properties, driver, runtime));
      limits_.push_back(read_limits(properties));
      ordinals_.push_back(ordinal);
    }
  }

  // An embedded kernel file (fast.cu, separable.cu) compiled by NVRTC with these -D options, once per
  // (file, device, options), as the OpenCL backend caches its programs: later runs report the first build's time.
  const cuda::RuntimeModule& runtime_module(int ordinal, const std::string& file,
                                            const std::vector<std::string>& defines) {
    auto& module = runtime_modules_[{file, ordinal, defines}];
    if (!module) {
      const auto& sources = embedded_cuda_sources();
      const cuda::RuntimeSource source{
          file,
          embedded_source(sources, file),
          {{"common/geometry/conv_args.h", embedded_source(sources, "conv_args.h")},
           {"common/geometry/pixel.h", embedded_source(sources, "pixel.h")}}};
      module = std::make_unique<cuda::RuntimeModule>(source, defines);
    }
    return *module;
  }

  std::map<std::tuple<std::string, int, std::vector<std::string>>, std::unique_ptr<cuda::RuntimeModule>>
      runtime_modules_;
  std::map<int, DevicePeaks> peaks_;  // measured once per device
  bool discovered_ = false;
  std::vector<DeviceInfo> devices_;
  std::vector<DeviceLimits> limits_;  // parallel to devices_
  std::vector<int> ordinals_;         // CUDA device number of each entry of devices_
  std::string reason_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace cc
