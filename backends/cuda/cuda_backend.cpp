// cuda_backend.cpp: what only CUDA says for the one GPU backend (gpu_backend.h): discovery and limits, NVRTC modules, the API variants.
#include "backends/cuda/cuda_backend.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_fft.h"
#include "backends/cuda/cuda_libraries.h"
#include "backends/cuda/cuda_variants.h"
#include "backends/cuda/cuda_peaks.h"
#include "backends/cuda/cuda_resources.h"
#include "backends/cuda/runtime_module.h"
#include "backends/build_cache.h"
#include "backends/build_text.h"
#include "backends/compute_capability.h"
#include "backends/embedded_sources.h"
#include "backends/gpu_backend.h"
#include "backends/launch_plan.h"
#include "backends/watched_call.h"
#include "common/domain/error.h"
#include "common/geometry/tile_shape.h"
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
  // cudaDeviceProp::clusterLaunch is cudaDevAttrClusterLaunch: set from compute capability 9.0.
  if (!properties.clusterLaunch)
    limits.missing[Capability::Clusters] =
        fmt::format("thread-block clusters need compute capability 9.0 or later (cudaDevAttrClusterLaunch); "
                    "this device is {}.{}", properties.major, properties.minor);
  // Tensor maps (tma) and TF32 mma.sync (tensor) exist from a compute capability on; no attribute names them.
  for (const ComputeCapabilityRule& rule : kComputeCapabilityRules)
    limits.missing[rule.capability] = compute_capability_lacks(rule.capability, properties.major, properties.minor);
  limits.memory_name = "free";
  limits.allocation_name = "global memory";
  limits.on_chip_name = "shared memory";
  limits.constant_name = "the 64 KB of constant memory";
  limits.image_name = "the largest 2D texture";
  limits.group_name = "threads per block";
  // --memory mapped and managed (README.md, --memory), as the device says it can.
  if (properties.canMapHostMemory == 0)
    limits.no_mapped = "--memory mapped: the device cannot map host memory (canMapHostMemory is 0)";
  if (properties.managedMemory == 0) {
    limits.no_managed = "--memory managed: the device has no managed memory (managedMemory is 0)";
    limits.no_managed_faults = "--memory managed-faults: the device has no managed memory (managedMemory is 0)";
  }
  limits.mapped_note = "mapped: cudaHostAllocMapped, no upload or download; the kernel reads the input and writes "
                       "the output in host memory over the host link, so its time holds that traffic: not alike "
                       "with a device-resident kernel's";
  if (properties.concurrentManagedAccess == 0)
    limits.no_overlapped_managed = "--stream with managed memory: concurrentManagedAccess is 0, so the host may not touch "
                                   "managed memory while a kernel runs, and frames in flight overlap exactly that";
  limits.managed_note =
      properties.concurrentManagedAccess != 0
          ? "managed: cudaMallocManaged, prefetched to the device before the kernel (h2d) and to the host after (d2h)"
          : "managed: cudaMallocManaged without prefetch (concurrentManagedAccess is 0): pages migrate when the "
            "kernel starts, inside its time; no h2d / d2h";
  // managed-faults (docs/memory-spaces-evidence.md, "Managed memory without prefetch"): what the kernel's time holds.
  limits.managed_faults_note =
      properties.concurrentManagedAccess != 0
          ? "managed-faults: cudaMallocManaged, never prefetched to the device: each kernel sample starts with the "
            "frame on the host (sent back outside its span) and its first touches fault the pages over, so its "
            "time holds the page-fault migration: not alike with a device-resident kernel's; no h2d / d2h"
          : "managed-faults: cudaMallocManaged without prefetch (concurrentManagedAccess is 0): pages migrate when "
            "the kernel starts, inside its time; no h2d / d2h";
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
#ifdef CONVCOMPARE_WITH_CUFFT
  if (plan.variant->kind == VariantKind::Fft)  // fused, or why not (cuda_fft.h)
    text += fmt::format("; cuFFT real-to-complex and back at {}, {}", fft_shape_text(plan.fft),
                        cuda::fft_fusion_text(plan.fft));
#endif
  if (plan.cluster) text += fmt::format("; thread-block clusters of {}x{} blocks", plan.cluster->x, plan.cluster->y);
  if (plan.variant->needs.has(Capability::TensorMaps))  // the box one cp.async.bulk.tensor copies: the tile, rows padded to 16 bytes
    text += fmt::format("; TMA boxes of {}x{} pixels", tma_tile_pitch(plan.args.radius_x, plan.group.x, plan.pixel_bytes),
                        plan.group.y + 2 * static_cast<std::size_t>(plan.args.radius_y));
  return text;
}

// The NVRTC module of a kernel its description says NVRTC builds, or nvcc's offline kernels, and its API variant.
class CudaVariantBuild final : public VariantBuild {
 public:
  using Module = CachedBuild<std::unique_ptr<cuda::RuntimeModule>>;
  using ModuleFor = std::function<const Module&(std::string_view file, const std::vector<std::string>& defines)>;
  CudaVariantBuild(const ApiVariant& api_variant, const DeviceLimits& limits, ModuleFor module_for)
      : api_variant_(api_variant), limits_(limits), module_for_(std::move(module_for)) {}

  KernelLimits build(const LaunchPlan& plan) override {
    KernelLimits kernel{.max_group = limits_.max_group};
    if (api_variant_.description && api_variant_.description->cuda_build == CudaBuild::Nvrtc) {
      const Module& cached = module_for_(api_variant_.description->file, plan.defines);
      module_ = cached.built.get();
      build_ms_ = cached.build_ms;
      // A cudaKernel_t passes as a function pointer (the runtime API's note on cudaKernel_t).
      const std::string kernel_name(api_variant_.description->entry);
      cudaFuncAttributes attributes{};
      CC_CUDA_CHECK(
          cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(module_->kernel(kernel_name.c_str()))));
      kernel.max_group = static_cast<std::size_t>(attributes.maxThreadsPerBlock);
    }
    return kernel;
  }

  std::string compile_time(const LaunchPlan& plan, const RunOptions&) const override {
    return compile_time_text(plan, module_);
  }
  // NVRTC's compile and module load. Offline kernels (nvcc) have no build step to time: not measured, as
  // the report says (docs/json-schema.md).
  double build_ms() const override { return module_ ? build_ms_ : kNotMeasured; }

  std::unique_ptr<PreparedVariant> prepare(const LaunchPlan& plan, const Problem& problem,
                                           DeviceQueue& queue) const override {
    const cuda::ApiVariantSetup setup{{plan, problem, api_variant_.description}, limits_, module_};
    return api_variant_.prepare(setup, queue);
  }

 private:
  const ApiVariant& api_variant_;
  const DeviceLimits& limits_;  // as discovered: on_chip_default says when to opt in
  ModuleFor module_for_;
  const cuda::RuntimeModule* module_ = nullptr;  // variants with a compile-time radius
  double build_ms_ = 0;
};

class CudaApi final : public GpuApi {
 public:
  std::string_view name() const override { return "cuda"; }
  std::string_view display_name() const override { return "CUDA"; }

  std::span<const ApiVariant> variants() const override { return cuda::api_variants(); }

  // A library that did not load here (cuFFT, NVRTC: opened on this first ask).
  std::string refuses(const ApiVariant& variant, int) override { return cuda::missing_library(variant); }

  DeviceLimits limits(int device, const Problem&) override {
    CC_CUDA_CHECK(cudaSetDevice(ordinals_[device]));
    DeviceLimits limits = limits_[device];
    limits.memory = cuda::free_device_memory();
    return limits;
  }

  std::unique_ptr<VariantBuild> make_build(const ApiVariant& variant, int device, const RunOptions&) override {
    const int ordinal = ordinals_[device];
    return std::make_unique<CudaVariantBuild>(
        variant, limits_[device],
        [this, ordinal](std::string_view file, const std::vector<std::string>& defines) -> const CudaVariantBuild::Module& {
          return runtime_module(ordinal, std::string(file) + ".cu", defines);
        });
  }

  std::unique_ptr<DeviceSession> make_session(int device) override {
    return cuda::make_session(ordinals_[device]);
  }

  DevicePeaks measure_peaks(int device) override { return cuda::measure_peaks(ordinals_[device]); }

  GpuDiscovery discover() override {
    GpuDiscovery found;
    // The runtime's first call loads the driver and initialises it: on a thread of its own within
    // CONVCOMPARE_LOAD_TIMEOUT, as OpenCL's loader is (backends/watched_call.h), since a device fallen
    // off the bus or a hung kernel module never returns from it.
    struct Counted {
      int count = 0;
      cudaError_t status = cudaSuccess;
    };
    auto counted = std::make_shared<Counted>();
    run_watched("loading the CUDA driver (cudaGetDeviceCount)", load_limit(),
                [counted] { counted->status = cudaGetDeviceCount(&counted->count); });
    const int count = counted->count;
    const cudaError_t status = counted->status;
    if (status != cudaSuccess) {
      cudaGetLastError();
      found.unavailable_reason = no_device_reason(status);
      return found;
    }
    if (count == 0) {
      found.unavailable_reason = "no CUDA device found";
      return found;
    }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      cudaDeviceProp properties{};
      if (const cudaError_t error = cudaGetDeviceProperties(&properties, ordinal); error != cudaSuccess) {
        cudaGetLastError();
        found.unavailable_reason =
            fmt::format("cuda:{}: cudaGetDeviceProperties failed: {}", ordinal, cudaGetErrorName(error));
        continue;
      }
      found.devices.push_back(describe(ordinal, properties, driver, runtime));
      limits_.push_back(read_limits(properties));
      ordinals_.push_back(ordinal);
    }
    // Which other devices each can reach directly (cudaDeviceCanAccessPeer, per ordered pair): where
    // --split's halo rows may go device to device (cuda_peer.h asks again per pair; docs/multi-device.md).
    for (std::size_t i = 0; i < found.devices.size(); ++i) {
      std::vector<std::string> peers;
      for (std::size_t j = 0; j < found.devices.size(); ++j) {
        int can = 0;
        if (i != j && cudaDeviceCanAccessPeer(&can, ordinals_[i], ordinals_[j]) == cudaSuccess && can == 1)
          peers.push_back(found.devices[j].id);
      }
      cudaGetLastError();
      if (found.devices.size() > 1)
        found.devices[i].properties.emplace_back("peer access", peers.empty() ? "none" : fmt::format("{}", fmt::join(peers, ", ")));
    }
    return found;
  }

 private:
  // An embedded kernel file (fast.cu, separable.cu) compiled by NVRTC with these -D options, once per
  // (device, file, options) in the build cache both APIs use (backends/build_cache.h): later runs report
  // the first build's time.
  const CudaVariantBuild::Module& runtime_module(int ordinal, const std::string& file,
                                                const std::vector<std::string>& defines) {
    return runtime_modules_.get({ordinal, {ordinal}, file, defines}, [&] {
      const auto& sources = embedded_cuda_sources();
      const cuda::RuntimeSource source{file, embedded_source(sources, file), named_kernel_headers(sources)};
      return std::make_unique<cuda::RuntimeModule>(source, defines);
    });
  }

  BuildCache<std::unique_ptr<cuda::RuntimeModule>> runtime_modules_;
  std::vector<DeviceLimits> limits_;  // parallel to the discovered devices
  std::vector<int> ordinals_;         // CUDA device number of each discovered device
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return make_gpu_backend(std::make_unique<CudaApi>()); }

}  // namespace cc
