// opencl_backend.cpp: what only OpenCL says for the one GPU backend (gpu_backend.h): every platform's devices, contexts (a split's shared), programs built and cached per device and context, image formats.
#include "backends/opencl/opencl_backend.h"

#include <algorithm>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/build_cache.h"
#include "backends/build_text.h"
#include "backends/embedded_sources.h"
#include "backends/gpu_backend.h"
#include "backends/launch_plan.h"
#include "backends/device_watchdog.h"
#include "backends/opencl/cl_api.h"
#include "backends/opencl/cl_build.h"
#include "backends/opencl/cl_check.h"
#include "backends/opencl/cl_devices.h"
#include "backends/opencl/opencl_fft.h"
#include "backends/opencl/opencl_variants.h"
#include "backends/opencl/opencl_peaks.h"
#include "common/domain/error.h"
#include "common/geometry/pixel_format.h"

namespace cc::opencl {

namespace {

// OpenCL C 1.2 and no math flags (no -cl-mad-enable, no fast-math): the CUDA side gets no fast-math
// either, and the report prints these options next to the results.
constexpr const char* kBuildOptions = "-cl-std=CL1.2";
constexpr int kNeededCVersion = 120;

std::string embedded_cl_source(std::string_view name) { return embedded_source(embedded_cl_sources(), name); }

// A failed clBuildProgram in the two kinds that are not a broken kernel (docs/correctness.md, "Build
// failures"), each bad input for one line and exit 2: the compiler's first error in a --kernel-dir source
// (the user's file), and a failure with no diagnostic at all (an empty or garbage log, or the driver out of
// memory): the compiler never judged our source, so the environment failed (PoCL writes its kernel cache
// under POCL_CACHE_DIR: a file there, a full disk or `ulimit -f` ends every build so). A diagnostic for the
// embedded sources stays an ApiError: that is our kernel broken.
void refuse_build_failure(cl_int status, std::string_view file, const std::string& device, const std::string& log,
                          bool from_kernel_dir) {
  const std::optional<std::string> diagnostic = first_compiler_error(log);
  if (diagnostic && from_kernel_dir)
    throw InputError(fmt::format("--kernel-dir: OpenCL cannot compile {}: {}", file, *diagnostic));
  if (diagnostic && status != CL_OUT_OF_HOST_MEMORY && status != CL_OUT_OF_RESOURCES) return;
  const std::string said = first_log_line(log);  // as evidence
  throw InputError(fmt::format(
      "OpenCL on {} could not build {} ({}) and its compiler reported nothing about the source (build log: {}): "
      "the environment failed, not the kernel; check that POCL_CACHE_DIR (or the driver's cache directory) is a "
      "writable directory with free space, and the limits of ulimit -f and -v",
      device, file, error_name(status), said.empty() ? "empty" : "'" + said + "'"));
}

// A context's devices, sorted: one device's own, or a split's over several (docs/multi-device.md).
using DeviceSet = std::vector<int>;

// Made on a device's first run, not at discovery: listing a device must not depend on using it.
struct DeviceContext {
  cl::Context context;
  std::map<int, cl::CommandQueue> queues;  // per device, for planning (VkFFT); runs make their own queues
};
using BuiltProgram = CachedBuild<cl::Program>;  // the first build's time, reported again for cached uses

class OpenClApi;

// A variant's program built by clBuildProgram (cached per device, source and options), its kernels and
// fft's VkFFT plan, and its API variant.
class ClBuild final : public VariantBuild {
 public:
  ClBuild(OpenClApi& api, const ApiVariant& api_variant, int device, std::string file, std::string source,
          bool from_kernel_dir)
      : api_(api), traits_(*api_variant.traits), api_variant_(api_variant), device_(device), file_(std::move(file)),
        source_(std::move(source)), from_kernel_dir_(from_kernel_dir) {}

  KernelLimits build(const LaunchPlan& plan) override;

  std::string compile_time(const LaunchPlan& plan, const RunOptions& options) const override {
    std::string text = fmt::format("radius: {}; options: {}", traits_.compile_time_radius ? "compile-time" : "run-time",
                                   build_options_);
    if (!options.kernel_dir.empty()) text += "; sources: " + options.kernel_dir;
    if (fft_)
      text += fmt::format("; VkFFT {} at {}, generated at run time",
                          fft_->fused() ? "convolution (real-to-complex, product, back)"
                                        : "real-to-complex and back, the product separate (rows split)",
                          fft_shape_text(plan.fft));
    return text;
  }
  double build_ms() const override { return build_ms_; }

  std::unique_ptr<PreparedVariant> prepare(const LaunchPlan& plan, const Problem& problem,
                                           DeviceQueue& queue) const override;

 private:
  OpenClApi& api_;
  const VariantTraits& traits_;
  const ApiVariant& api_variant_;
  int device_;
  std::string file_;    // the variant's .cl, named once by make_build
  std::string source_;  // conv_args.h, pixel.h and the variant's .cl
  bool from_kernel_dir_;  // a compiler error in source_ is the user's (--kernel-dir), not ours
  cl::Program program_;
  std::vector<cl::Kernel> kernels_;
  std::string build_options_;
  double build_ms_ = 0;
  VkFftPlan* fft_ = nullptr;
};

class OpenClApi final : public GpuApi {
 public:
  OpenClApi() = default;
  OpenClApi(const OpenClApi&) = delete;
  OpenClApi& operator=(const OpenClApi&) = delete;
  // Once the device is abandoned (a build given up on or one the driver threw out of, cl_build.h), a
  // release may wait for a lock the stuck build holds: PoCL's clReleaseProgram of peak.cl's program did,
  // after a --kernel-dir source #included a FIFO and its build never returned, and the process hung here,
  // before its error line. The contexts, programs and VkFFT plans are then left to the
  // process's end (main ends it with _Exit), moved into storage never destroyed: no allocation here.
  ~OpenClApi() override {
    if (!device_stuck()) return;
    struct DriverObjects {
      decltype(contexts_) contexts;
      decltype(programs_) programs;
      decltype(fft_plans_) fft_plans;
    };
    leave_to_process_end(DriverObjects{std::move(contexts_), std::move(programs_), std::move(fft_plans_)});
  }

  std::string_view name() const override { return "opencl"; }
  std::string_view display_name() const override { return "OpenCL"; }

  GpuDiscovery discover() override {
    discovery_ = discover_devices();
    GpuDiscovery found;
    found.unavailable_reason = discovery_.unavailable_reason;
    for (const ClDevice& device : discovery_.devices) found.devices.push_back(device.info);
    return found;
  }

  std::span<const ApiVariant> variants() const override { return api_variants(); }

  std::string refuses(const ApiVariant&, int device) override {
    const ClDevice& cl_device = discovery_.devices[device];
    if (cl_device.c_version < kNeededCVersion)
      return fmt::format("the device's OpenCL C is {}.{}; the kernels need 1.2 (-cl-std=CL1.2)",
                         cl_device.c_version / 100, cl_device.c_version / 10 % 10);
    return "";
  }

  // The device's limits for a problem, with the image format texture would read its frame through
  // (opencl_variants.h's image_format) checked once per context and format: of them only CL_RGBA /
  // CL_UNORM_INT8 is among OpenCL 1.2's required formats, so ask. Asking needs a context.
  DeviceLimits limits(int device, const Problem& problem) override {
    DeviceLimits for_problem = discovery_.devices[device].limits;
    if (!for_problem.missing[Capability::Images].empty()) return for_problem;
    const ClImageFormat wanted = image_format(pixel_format(problem));
    const auto [found, added] = missing_image_formats_.try_emplace({context_devices(device), std::string(wanted.name)});
    if (added) {
      std::vector<cl::ImageFormat> formats;
      CC_CL(context(device).context.getSupportedImageFormats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, &formats));
      if (std::ranges::none_of(formats, [&](const cl::ImageFormat& format) {
            return format.image_channel_order == wanted.format.image_channel_order &&
                   format.image_channel_data_type == wanted.format.image_channel_data_type;
          }))
        found->second = fmt::format("device has no {} image2d format", wanted.name);
    }
    for_problem.missing[Capability::Images] = found->second;
    return for_problem;
  }

  std::unique_ptr<VariantBuild> make_build(const ApiVariant& variant, int device, const RunOptions& options) override {
    std::string file = std::string(variant.file) + ".cl";
    std::string source = program_source(embedded_cl_sources(), file, options.kernel_dir);
    return std::make_unique<ClBuild>(*this, variant, device, std::move(file), std::move(source),
                                     !options.kernel_dir.empty());
  }

  std::unique_ptr<DeviceSession> make_session(int device) override {
    return opencl::make_session(context(device).context, discovery_.devices[device].device);
  }

  // One context over a split's devices where they are of one platform and the driver makes it: one device's
  // commands may then wait on another's events, which orders opencl_variants.cpp's staged halo copies
  // (ClFrame::copy_rows_from). Else each keeps its own, and unshared_ says why for the halo route. Programs, plans
  // and frames made meanwhile are the shared context's, cached apart from the devices' own (keyed by DeviceSet).
  void share_devices(const std::vector<int>& devices) override {
    shared_.clear();
    unshared_.clear();
    const auto count = static_cast<int>(discovery_.devices.size());
    if (devices.size() < 2 || std::ranges::any_of(devices, [&](int d) { return d < 0 || d >= count; })) return;
    DeviceSet set = devices;
    std::ranges::sort(set);
    set.erase(std::unique(set.begin(), set.end()), set.end());
    if (contexts_.contains(set)) {
      shared_ = std::move(set);
      return;
    }
    const ClDevice& first = discovery_.devices[set.front()];
    std::vector<cl::Device> cl_devices;
    std::vector<std::string> ids;
    for (const int device : set) {
      const ClDevice& found = discovery_.devices[device];
      if (platform_of(found) != platform_of(first)) {
        unshared_ = fmt::format("{} and {} are on different platforms", first.info.id, found.info.id);
        return;
      }
      cl_devices.push_back(found.device);
      ids.push_back(found.info.id);
    }
    const std::string over = fmt::format("{}", fmt::join(ids, ", "));
    DriverStage::run("creating one OpenCL context over " + over, [&] {
      cl_int status = CL_SUCCESS;
      cl::Context made(cl_devices, nullptr, nullptr, nullptr, &status);
      if (status != CL_SUCCESS) {
        unshared_ = fmt::format("clCreateContext over {} failed: {}", over, error_name(status));
        return;
      }
      contexts_.emplace(set, DeviceContext{std::move(made), {}});
      shared_ = std::move(set);
    });
  }

  DevicePeaks measure_peaks(int device) override {
    const ClDevice& found = discovery_.devices[device];
    if (found.c_version < kNeededCVersion) return {};  // peak.cl needs 1.2 too
    return DriverStage::run("measuring the peaks of " + found.info.id, [&] {
      const BuiltProgram& cached =
          program_for(device, "peak.cl", "the peak measurement", embedded_cl_source("peak.cl"), kBuildOptions);
      ClQueue queue(context(device).context, found.device);
      return opencl::measure_peaks(found.device, context(device).context, queue, cached.built);
    });
  }

  const ClDevice& device(int index) const { return discovery_.devices[index]; }

  // Why a split's devices have a context each ("" where they share one, or outside a split).
  const std::string& unshared() const { return unshared_; }

  // The devices of the context `device` is used in now: the split's while it shares one, else its own.
  DeviceSet context_devices(int device) const {
    return std::ranges::find(shared_, device) != shared_.end() ? shared_ : DeviceSet{device};
  }

  DeviceContext& context(int device) {
    if (auto found = contexts_.find(context_devices(device)); found != contexts_.end()) return found->second;
    const cl::Device& cl_device = discovery_.devices[device].device;
    return DriverStage::run("creating an OpenCL context on " + discovery_.devices[device].info.id,
                            [&]() -> DeviceContext& {
                              DeviceContext made;
                              made.context = CC_CL_OUT(cl::Context(cl_device, nullptr, nullptr, nullptr, err));
                              return contexts_.emplace(DeviceSet{device}, std::move(made)).first->second;
                            });
  }

  // The device's planning queue in its context now (VkFFT's plans are made on it).
  const cl::CommandQueue& planning_queue(int device) {
    DeviceContext& made = context(device);
    cl::CommandQueue& queue = made.queues[device];
    if (!queue())
      queue = CC_CL_OUT(
          cl::CommandQueue(made.context, discovery_.devices[device].device, CL_QUEUE_PROFILING_ENABLE, err));
    return queue;
  }

  // `purpose` says what the program is for in an error ("'tiled'"). The build is watched (cl_build.h):
  // past its limit (CONVCOMPARE_BUILD_TIMEOUT), or when the driver throws out of it, the program is left to the driver unreleased.
  const BuiltProgram& program_for(int device, std::string_view file, std::string_view purpose,
                                  const std::string& source, const std::string& options, bool from_kernel_dir = false) {
    return programs_.get({device, context_devices(device), source, {options}}, [&] {
      return build_program_now(device, file, purpose, source, options, from_kernel_dir);
    });
  }

  VkFftPlan& fft_plan_for(int device, const FftShape& shape) {
    std::unique_ptr<VkFftPlan>& plan = fft_plans_[{context_devices(device), device, shape.transform_width,
                                                   shape.transform_height, shape.real_pitch, shape.circular}];
    if (!plan) {
      const cl::CommandQueue& queue = planning_queue(device);
      // A driver stage: VkFFT builds its kernels itself (unwatched), and the driver's words at a failure,
      // VkFFT's source dump among them, are held as a build's (device_watchdog.h).
      plan = DriverStage::run("planning VkFFT's kernels on " + discovery_.devices[device].info.id, [&] {
        return std::make_unique<VkFftPlan>(discovery_.devices[device].device, context(device).context, queue, shape);
      });
    }
    return *plan;
  }

 private:
  // program_for's build, on a miss of the cache.
  cl::Program build_program_now(int device, std::string_view file, std::string_view purpose,
                                 const std::string& source, const std::string& options, bool from_kernel_dir) {
    const cl::Device& cl_device = discovery_.devices[device].device;
    const std::string& device_id = discovery_.devices[device].info.id;
    const std::string what = fmt::format("{} for {} on {}", file, purpose, device_id);
    return DriverStage::run("building " + what, [&] {
      cl::Program program = CC_CL_OUT(cl::Program(context(device).context, source, false, err));
      cl_int status = CL_SUCCESS;
      try {
        status = build_program(program(), cl_device(), options, what);
      } catch (...) {  // DeviceStuckError, or std::bad_alloc while saying so (memory ran out)
        // Leaked on purpose once the driver is given up on (its release would wait for the driver's lock).
        if (device_stuck()) leave_to_process_end(std::move(program));
        throw;
      }
      if (status != CL_SUCCESS) {
        cl_int log_status = CL_SUCCESS;
        const std::string log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(cl_device, &log_status);
        // Clang's count ("2 errors generated."), printed by PoCL's compiler: the error carries the log itself.
        if (!log.empty())
          drop_driver_output_lines([](std::string_view line) { return line.ends_with(" generated."); });
        refuse_build_failure(status, file, device_id, log, from_kernel_dir);
        throw ApiError("OpenCL", status, std::string(error_name(status)),
                       fmt::format("clBuildProgram({}, \"{}\")", file, options), __FILE__, __LINE__,
                       summarize_build_log(log), log);
      }
      return program;
    });
  }

  static cl_platform_id platform_of(const ClDevice& device) {
    return CC_CL_OUT(device.device.getInfo<CL_DEVICE_PLATFORM>(err));
  }

  Discovery discovery_;
  // Why texture cannot read a frame through an image format in a context ("" where it can), per (the
  // context's devices, format name): a shared context's formats are those all its devices support.
  std::map<std::pair<DeviceSet, std::string>, std::string> missing_image_formats_;
  std::map<DeviceSet, DeviceContext> contexts_;  // each device's own, and each split's shared
  DeviceSet shared_;      // the split's devices while they share one context (share_devices)
  std::string unshared_;  // why the split's devices do not
  // Per (device, the context's devices, source, options): a program belongs to one context.
  BuildCache<cl::Program> programs_;
  // fft: VkFFT's plans, made once per (context's devices, device, transform width, height, real pitch,
  // unpadded) as programs are built once.
  std::map<std::tuple<DeviceSet, int, int, int, int, bool>, std::unique_ptr<VkFftPlan>> fft_plans_;
};

KernelLimits ClBuild::build(const LaunchPlan& plan) {
  build_options_ = kBuildOptions;
  for (const std::string& define : plan.defines) build_options_ += " " + define;
  const BuiltProgram& cached = api_.program_for(device_, file_, fmt::format("'{}'", traits_.name), source_,
                                              build_options_, from_kernel_dir_);
  program_ = cached.built;
  build_ms_ = cached.build_ms;
  if (traits_.geometry == Geometry::Fft) {  // VkFFT generates and builds its kernels too: counted as building
    fft_ = &api_.fft_plan_for(device_, plan.fft);
    build_ms_ += fft_->build_ms();
  }
  // Work-group limit: the smallest of the kernels'; local memory they declare: the largest.
  const ClDevice& cl_device = api_.device(device_);
  // The tile is passed at launch where the description has a __local argument; fast and separable
  // declare theirs, counted in CL_KERNEL_LOCAL_MEM_SIZE.
  const bool local_tile = api_variant_.description && api_variant_.description->args.has(ArgRole::LocalTile);
  KernelLimits kernel{.max_group = cl_device.limits.max_group, .on_chip_is_dynamic = local_tile};
  kernels_.clear();
  for (const std::string_view kernel_name : api_variant_.kernels) {
    const std::string name(kernel_name);
    // A --kernel-dir source that compiled but defines no kernel of this name is the user's input, as a
    // compile error in it is (refuse_build_failure): one line naming the file and the kernel, exit 2.
    cl_int made_status = CL_SUCCESS;
    cl::Kernel named(cached.built, name.c_str(), &made_status);
    if (made_status == CL_INVALID_KERNEL_NAME && from_kernel_dir_)
      throw InputError(fmt::format("--kernel-dir: {} defines no kernel '{}', which the '{}' variant launches", file_,
                                   name, traits_.name));
    if (made_status != CL_SUCCESS) named = CC_CL_OUT(cl::Kernel(cached.built, name.c_str(), err));
    const cl::Kernel& made = kernels_.emplace_back(std::move(named));
    kernel.max_group = std::min<std::size_t>(
        kernel.max_group, CC_CL_OUT(made.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl_device.device, err)));
    kernel.static_on_chip_bytes = std::max<std::size_t>(
        kernel.static_on_chip_bytes, CC_CL_OUT(made.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(cl_device.device, err)) /
                                         cl_device.kernel_local_memory_overstated);
  }
  return kernel;
}

std::unique_ptr<PreparedVariant> ClBuild::prepare(const LaunchPlan& plan, const Problem& problem,
                                                  DeviceQueue& queue) const {
  const ApiVariantSetup setup{
      {plan, problem, api_variant_.description}, api_.context(device_).context, program_, kernels_, fft_, api_.unshared()};
  return api_variant_.prepare(setup, queue);
}

}  // namespace

}  // namespace cc::opencl

namespace cc {
std::unique_ptr<Backend> make_opencl_backend() { return make_gpu_backend(std::make_unique<opencl::OpenClApi>()); }
}  // namespace cc
