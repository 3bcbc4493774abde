// opencl_backend.cpp: the OpenCL backend: every platform's devices, programs built and cached per device, each run through the shared plan and protocol.
#include "backends/opencl/opencl_backend.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/embedded_sources.h"
#include "backends/launch_plan.h"
#include "backends/measure.h"
#include "backends/opencl/cl_api.h"
#include "backends/opencl/cl_check.h"
#include "backends/opencl/cl_devices.h"
#include "backends/opencl/opencl_fft.h"
#include "backends/opencl/opencl_launchers.h"
#include "backends/opencl/opencl_peaks.h"
#include "common/domain/error.h"
#include "common/domain/input_file.h"
#include "common/geometry/pixel_format.h"

namespace cc::opencl {

namespace {

// OpenCL C 1.2 and no math flags (no -cl-mad-enable, no fast-math): the CUDA side gets no fast-math
// either, and the report prints these options next to the results.
constexpr const char* kBuildOptions = "-cl-std=CL1.2";
constexpr int kNeededCVersion = 120;

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string embedded_cl_source(std::string_view name) { return embedded_source(embedded_cl_sources(), name); }

// Through the one input opener (common/domain/input_file.h): a FIFO or /dev/zero named in --kernel-dir
// is refused, not read forever. nullopt only when the file does not exist.
std::optional<std::string> read_text_file(const std::filesystem::path& path) {
  if (!input_exists(path.string(), "kernel source")) return std::nullopt;
  return read_input_file(path.string(), "kernel source", 16u << 20, "far more than any kernel source needs");
}

// The headers every kernel reads, conv_args.h then pixel.h, followed by the variant's .cl: the .cl files do
// not #include them, so a program needs no include path and the same text works from the embedded copies or
// from --kernel-dir (where a header found in the directory replaces the embedded one).
std::string program_source(std::string_view file, const std::string& kernel_dir) {
  constexpr std::string_view kHeaders[] = {"conv_args.h", "pixel.h"};
  std::string source;
  if (kernel_dir.empty()) {
    for (std::string_view header : kHeaders) source += embedded_cl_source(header) + "\n";
    return source + embedded_cl_source(file);
  }
  const std::filesystem::path dir(kernel_dir);
  const std::optional<std::string> kernel = read_text_file(dir / file);
  if (!kernel) throw InputError(fmt::format("--kernel-dir {}: cannot read {}", kernel_dir, file));
  for (std::string_view header : kHeaders)
    source += read_text_file(dir / header).value_or(embedded_cl_source(header)) + "\n";
  return source + *kernel;
}

// The build log's error lines (or its first line), for what(); the whole log goes in build_log().
std::string summarize_build_log(const std::string& log) {
  std::istringstream lines(log);
  std::vector<std::string> errors;
  std::string first, line;
  while (std::getline(lines, line) && errors.size() < 3) {
    if (first.empty()) first = line;
    if (line.find("error") != std::string::npos) errors.push_back(line);
  }
  if (errors.empty()) return first.empty() ? "empty build log" : first;
  return fmt::format("{}", fmt::join(errors, " | "));
}

class OpenClBackend final : public Backend {
 public:
  std::string_view name() const override { return "opencl"; }

  const std::vector<DeviceInfo>& devices() override {
    discover();
    return infos_;
  }

  std::string unavailable_reason() override {
    discover();
    return discovery_.unavailable_reason;
  }

  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (const Launcher& launcher : launchers()) names.emplace_back(launcher.variant);
    return names;
  }

  BackendRun run(const Problem& problem, const Image& input, std::string_view variant, int device,
                 const RunOptions& options) override {
    Planned planned;
    if (std::string reason = plan(planned, problem, variant, device, options, 1); !reason.empty())
      return skipped(std::move(reason));
    ClSession session(context(device).context, discovery_.devices[device].device);
    BackendRun run = measure_run(session, prepare(planned, problem, device), problem, input,
                                 planned.plan.frame_bytes + planned.plan.filter_bytes, options);
    run.times.build_ms = planned.build_ms;
    run.compile_time = fmt::format("radius: {}; options: {}", planned.plan.variant->compile_time_radius ? "compile-time" : "run-time",
                                   planned.build_options);
    if (!options.kernel_dir.empty()) run.compile_time += "; sources: " + options.kernel_dir;
    if (planned.fft)
      run.compile_time += fmt::format("; VkFFT real-to-complex and back at {}, generated at run time",
                                      fft_shape_text(planned.plan.fft));
    return run;
  }

  StreamRun stream(const Problem& problem, const Image& input, std::string_view variant, int device, int frames,
                   const RunOptions& options) override {
    if (frames < 1) throw InputError(fmt::format("--stream needs at least 1 frame, got {}", frames));
    Planned planned;
    if (std::string reason = plan(planned, problem, variant, device, options, kStreamSlots); !reason.empty()) {
      StreamRun skip;
      skip.reason = std::move(reason);
      return skip;
    }
    ClSession session(context(device).context, discovery_.devices[device].device);
    return measure_stream(session, prepare(planned, problem, device), problem, input, frames, options);
  }

  DevicePeaks measure_peaks(int device) override {
    check_device(device);
    if (auto found = peaks_.find(device); found != peaks_.end()) return found->second;
    const ClDevice& found = discovery_.devices[device];
    if (found.c_version < kNeededCVersion) return peaks_[device] = DevicePeaks{};  // peak.cl needs 1.2 too
    const BuiltProgram& built = program_for(device, "peak.cl", embedded_cl_source("peak.cl"), kBuildOptions);
    ClQueue queue(context(device).context, found.device);
    return peaks_[device] = opencl::measure_peaks(found.device, context(device).context, queue, built.program);
  }

 private:
  // Made on a device's first run, not at discovery: listing a device must not depend on using it.
  struct DeviceContext {
    cl::Context context;
    cl::CommandQueue queue;  // for building and planning (VkFFT); runs make their own queues
  };
  struct BuiltProgram {
    cl::Program program;
    double build_ms = 0;  // the first build's time, reported again for cached uses
  };
  struct Planned {
    LaunchPlan plan;
    const Launcher* launcher = nullptr;
    cl::Program program;
    std::vector<cl::Kernel> kernels;
    std::string build_options;
    double build_ms = 0;
    VkFftPlan* fft = nullptr;
  };

  void discover() {
    if (discovered_) return;
    discovered_ = true;
    discovery_ = discover_devices();
    for (const ClDevice& device : discovery_.devices) infos_.push_back(device.info);
  }

  void check_device(int device) {
    discover();
    if (device < 0 || device >= static_cast<int>(discovery_.devices.size()))
      throw InputError(fmt::format("no OpenCL device {} ({} found)", device, discovery_.devices.size()));
  }

  DeviceContext& context(int device) {
    if (auto found = contexts_.find(device); found != contexts_.end()) return found->second;
    const cl::Device& cl_device = discovery_.devices[device].device;
    DeviceContext made;
    made.context = CC_CL_OUT(cl::Context(cl_device, nullptr, nullptr, nullptr, err));
    made.queue = CC_CL_OUT(cl::CommandQueue(made.context, cl_device, CL_QUEUE_PROFILING_ENABLE, err));
    return contexts_.emplace(device, std::move(made)).first->second;
  }

  // The device's limits for a problem, with the image format texture would read its frame through
  // (opencl_launchers.h's image_format) checked once per device and format: of them only CL_RGBA /
  // CL_UNORM_INT8 is among OpenCL 1.2's required formats, so ask. Asking needs a context.
  DeviceLimits limits(int device, const Problem& problem) {
    DeviceLimits for_problem = discovery_.devices[device].limits;
    if (!for_problem.no_images.empty()) return for_problem;
    const ClImageFormat wanted = image_format(pixel_format(problem));
    const auto [found, added] = missing_image_formats_.try_emplace({device, std::string(wanted.name)});
    if (added) {
      std::vector<cl::ImageFormat> formats;
      CC_CL(context(device).context.getSupportedImageFormats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, &formats));
      if (std::ranges::none_of(formats, [&](const cl::ImageFormat& format) {
            return format.image_channel_order == wanted.format.image_channel_order &&
                   format.image_channel_data_type == wanted.format.image_channel_data_type;
          }))
        found->second = fmt::format("device has no {} image2d format", wanted.name);
    }
    for_problem.no_images = found->second;
    return for_problem;
  }

  const BuiltProgram& program_for(int device, std::string_view file, const std::string& source,
                                  const std::string& options) {
    const auto key = std::make_tuple(source, options, device);
    if (auto found = programs_.find(key); found != programs_.end()) return found->second;
    const cl::Device& cl_device = discovery_.devices[device].device;
    const auto start = Clock::now();
    cl::Program program = CC_CL_OUT(cl::Program(context(device).context, source, false, err));
    const cl_int status = program.build(std::vector<cl::Device>{cl_device}, options.c_str());
    if (status != CL_SUCCESS) {
      cl_int log_status = CL_SUCCESS;
      const std::string log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(cl_device, &log_status);
      throw ApiError("OpenCL", status, std::string(error_name(status)),
                     fmt::format("clBuildProgram({}, \"{}\")", file, options), __FILE__, __LINE__,
                     summarize_build_log(log), log);
    }
    return programs_.emplace(key, BuiltProgram{program, ms_since(start)}).first->second;
  }

  VkFftPlan& fft_plan_for(int device, const FftShape& shape) {
    std::unique_ptr<VkFftPlan>& plan =
        fft_plans_[{device, shape.transform_width, shape.transform_height, shape.real_pitch, shape.circular}];
    if (!plan) {
      const DeviceContext& made = context(device);
      plan = std::make_unique<VkFftPlan>(discovery_.devices[device].device, made.context, made.queue, shape);
    }
    return *plan;
  }

  // The shared planning rule, with clBuildProgram as the build step; returns why the variant cannot
  // run here, or "". Bad requests throw InputError.
  std::string plan(Planned& planned, const Problem& problem, std::string_view variant, int device,
                   const RunOptions& options, int frames_in_flight) {
    discover();
    const auto all = launchers();
    const auto found = std::ranges::find(all, variant, &Launcher::variant);
    if (found == all.end())
      throw InputError(fmt::format("the opencl backend has no variant '{}' ({})", variant, fmt::join(variants(), ", ")));
    check_device(device);
    if (!found->missing.empty()) return std::string(found->missing);
    const ClDevice& cl_device = discovery_.devices[device];
    if (cl_device.c_version < kNeededCVersion)
      return fmt::format("the device's OpenCL C is {}.{}; the kernels need 1.2 (-cl-std=CL1.2)",
                         cl_device.c_version / 100, cl_device.c_version / 10 % 10);
    planned.launcher = &*found;
    const VariantTraits& traits = *find_variant(variant);
    const std::string file = std::string(variant) + ".cl";
    const std::string source = program_source(file, options.kernel_dir);
    const DeviceLimits device_limits = limits(device, problem);
    return plan_launch(planned.plan, traits, problem, device_limits, frames_in_flight, [&](const LaunchPlan& plan) {
      planned.build_options = kBuildOptions;
      for (const std::string& define : plan.defines) planned.build_options += " " + define;
      const BuiltProgram& built = program_for(device, file, source, planned.build_options);
      planned.program = built.program;
      planned.build_ms = built.build_ms;
      if (traits.geometry == Geometry::Fft) {  // VkFFT generates and builds its kernels too: counted as building
        planned.fft = &fft_plan_for(device, plan.fft);
        planned.build_ms += planned.fft->build_ms();
      }
      // Work-group limit: the smallest of the kernels'; local memory they declare: the largest.
      KernelLimits kernel{.max_group = discovery_.devices[device].limits.max_group,
                          .on_chip_is_dynamic = traits.geometry == Geometry::Tile};
      planned.kernels.clear();
      for (const std::string& name : found->kernel_names()) {
        const cl::Kernel& made = planned.kernels.emplace_back(CC_CL_OUT(cl::Kernel(built.program, name.c_str(), err)));
        kernel.max_group = std::min<std::size_t>(
            kernel.max_group, CC_CL_OUT(made.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(cl_device.device, err)));
        kernel.static_on_chip_bytes = std::max<std::size_t>(
            kernel.static_on_chip_bytes, CC_CL_OUT(made.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(cl_device.device, err)) /
                                             cl_device.kernel_local_memory_overstated);
      }
      return kernel;
    });
  }

  PrepareVariant prepare(const Planned& planned, const Problem& problem, int device) {
    return [&planned, &problem, this, device](DeviceQueue& queue) {
      const LauncherSetup setup{planned.plan, problem, context(device).context, planned.program, planned.kernels,
                                planned.fft};
      return planned.launcher->prepare(setup, static_cast<ClQueue&>(queue).get());
    };
  }

  bool discovered_ = false;
  Discovery discovery_;
  std::vector<DeviceInfo> infos_;
  // Why texture cannot read a frame through an image format on a device ("" where it can), per (device, format name).
  std::map<std::pair<int, std::string>, std::string> missing_image_formats_;
  std::map<int, DeviceContext> contexts_;
  std::map<int, DevicePeaks> peaks_;  // measured once per device
  std::map<std::tuple<std::string, std::string, int>, BuiltProgram> programs_;  // (source, options, device)
  // fft: VkFFT's plans, made once per (device, transform width, height, real pitch, unpadded) as
  // programs are built once.
  std::map<std::tuple<int, int, int, int, bool>, std::unique_ptr<VkFftPlan>> fft_plans_;
};

}  // namespace

}  // namespace cc::opencl

namespace cc {
std::unique_ptr<Backend> make_opencl_backend() { return std::make_unique<opencl::OpenClBackend>(); }
}  // namespace cc
