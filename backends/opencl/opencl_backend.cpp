// opencl_backend.cpp: the OpenCL backend: programs built and cached per device, and each variant set up,
// launched once per plane and timed with profiling events the way the CUDA backend times (DESIGN.md 4).
#include "backends/opencl/opencl_backend.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/opencl/cl_check.h"
#include "backends/opencl/cl_devices.h"
#include "backends/embedded_sources.h"
#include "common/error.h"
#include "common/fast_shape.h"
#include "common/filter.h"

namespace cc {

namespace {

using opencl::ClDevice;
using opencl::DeviceLimits;

constexpr std::string_view kVariantNames[] = {"global", "constant", "tiled", "texture", "separable", "fast"};

// OpenCL C 1.2 and no math flags (no -cl-mad-enable, no fast-math): the CUDA side gets no fast-math
// either, and the report prints these options next to the results.
constexpr const char* kBuildOptions = "-cl-std=CL1.2";

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double megabytes(double bytes) { return bytes / (1024.0 * 1024.0); }

// Device time from the start of `first` to the end of `last` (profiling counters are nanoseconds).
double event_span_ms(const cl::Event& first, const cl::Event& last) {
  const cl_ulong start = CC_CL_OUT(first.getProfilingInfo<CL_PROFILING_COMMAND_START>(err));
  const cl_ulong end = CC_CL_OUT(last.getProfilingInfo<CL_PROFILING_COMMAND_END>(err));
  return static_cast<double>(end - start) * 1e-6;
}

// --- kernel sources ---------------------------------------------------------------------------------

std::string embedded_cl_source(std::string_view name) { return embedded_source(embedded_cl_sources(), name); }

std::optional<std::string> read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// conv_args.h followed by the variant's .cl: the .cl files do not #include the header, so a program
// needs no include path and the same text works from the embedded copies or from --kernel-dir.
std::string program_source(std::string_view variant, const std::string& kernel_dir) {
  const std::string file = std::string(variant) + ".cl";
  if (kernel_dir.empty()) return embedded_cl_source("conv_args.h") + "\n" + embedded_cl_source(file);
  const std::filesystem::path dir(kernel_dir);
  const std::optional<std::string> kernel = read_text_file(dir / file);
  if (!kernel) throw InputError(fmt::format("--kernel-dir {}: cannot read {}", kernel_dir, file));
  const std::optional<std::string> header = read_text_file(dir / "conv_args.h");
  return header.value_or(embedded_cl_source("conv_args.h")) + "\n" + *kernel;
}

std::vector<std::string> kernel_names(std::string_view variant) {
  if (variant == "separable") return {"convolve_rows", "convolve_columns"};
  return {fmt::format("convolve_{}", variant)};
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

// --- limits -----------------------------------------------------------------------------------------

// A skip reason when one buffer exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE or all of them the global memory.
std::optional<std::string> memory_limit_reason(const DeviceLimits& limits, std::size_t largest_buffer,
                                               std::size_t total) {
  if (largest_buffer > limits.max_allocation)
    return fmt::format("needs {:.1f} MB in one buffer, device allows {:.1f} MB (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                       megabytes(largest_buffer), megabytes(limits.max_allocation));
  if (total > limits.global_memory)
    return fmt::format("needs {:.1f} MB, device allows {:.1f} MB (CL_DEVICE_GLOBAL_MEM_SIZE)", megabytes(total),
                       megabytes(limits.global_memory));
  return std::nullopt;
}

std::optional<std::string> texture_limit_reason(const DeviceLimits& limits, const cl::Context& context,
                                                int width, int height) {
  if (!limits.image_support) return "device has no image support (CL_DEVICE_IMAGE_SUPPORT is false)";
  if (static_cast<std::size_t>(width) > limits.image2d_max_width ||
      static_cast<std::size_t>(height) > limits.image2d_max_height)
    return fmt::format("image of {}x{} exceeds CL_DEVICE_IMAGE2D_MAX_WIDTH/HEIGHT ({}x{})", width, height,
                       limits.image2d_max_width, limits.image2d_max_height);
  // CL_R / CL_FLOAT is not among OpenCL 1.2's required formats, so ask.
  std::vector<cl::ImageFormat> formats;
  CC_CL(context.getSupportedImageFormats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, &formats));
  const bool supported = std::any_of(formats.begin(), formats.end(), [](const cl::ImageFormat& format) {
    return format.image_channel_order == CL_R && format.image_channel_data_type == CL_FLOAT;
  });
  if (!supported) return "device has no CL_R / CL_FLOAT image2d format";
  return std::nullopt;
}

struct GroupShape {
  std::size_t x = 16, y = 16;
};

bool shape_allowed(GroupShape shape, std::size_t kernel_limit, const DeviceLimits& limits) {
  return shape.x * shape.y <= kernel_limit && shape.x <= limits.max_work_item_sizes[0] &&
         shape.y <= limits.max_work_item_sizes[1];
}

// 16x16, halved (longer side first) until the kernel and the device accept it.
GroupShape fit_work_group(std::size_t kernel_limit, const DeviceLimits& limits) {
  GroupShape shape;
  while (!shape_allowed(shape, kernel_limit, limits) && shape.x * shape.y > 1) {
    if (shape.y >= shape.x) shape.y /= 2;
    else shape.x /= 2;
  }
  return shape;
}

// The tiled kernel's __local tile: the work-group's outputs plus the apron on every side.
std::size_t tile_bytes(GroupShape shape, const ConvArgs& args) {
  return (shape.x + 2 * args.radius_x) * (shape.y + 2 * args.radius_y) * sizeof(float);
}

// The largest work-group whose tile fits the local memory left beside the kernel's own; fewer
// work-items share a smaller apron, so a large radius still tiles, only less profitably.
std::optional<GroupShape> choose_tile(const ConvArgs& args, cl_ulong local_budget, std::size_t kernel_limit,
                                      const DeviceLimits& limits) {
  for (GroupShape shape : {GroupShape{16, 16}, GroupShape{16, 8}, GroupShape{8, 8}, GroupShape{4, 4}})
    if (tile_bytes(shape, args) <= local_budget && shape_allowed(shape, kernel_limit, limits)) return shape;
  return std::nullopt;
}

std::size_t round_up(std::size_t value, std::size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// --- host memory ------------------------------------------------------------------------------------

// A CL_MEM_ALLOC_HOST_PTR buffer kept mapped for the whole run: the driver's page-locked memory,
// which transfers from its mapped pointer can DMA directly (OpenCL's cudaMallocHost).
class PinnedBuffer {
 public:
  PinnedBuffer(const cl::Context& context, const cl::CommandQueue& queue, std::size_t bytes)
      : queue_(queue),
        buffer_(CC_CL_OUT(cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, err))) {
    data_ = static_cast<float*>(CC_CL_OUT(
        queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, err)));
  }
  ~PinnedBuffer() {  // statuses ignored: a destructor must not throw, and the run is over
    queue_.enqueueUnmapMemObject(buffer_, data_);
    queue_.finish();
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  float* data() const { return data_; }

 private:
  cl::CommandQueue queue_;
  cl::Buffer buffer_;
  float* data_ = nullptr;
};

// Declared after the host memory a run's commands touch, so that on the way out (error or not) it
// runs first: no transfer still reads or writes that memory when it is freed.
struct FinishOnExit {
  const cl::CommandQueue& queue;
  ~FinishOnExit() { queue.finish(); }
};

template <typename... Args>
void set_args(cl::Kernel& kernel, const Args&... args) {
  cl_uint index = 0;
  (CC_CL(kernel.setArg(index++, args)), ...);
}

// --- the backend ------------------------------------------------------------------------------------

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
    return {std::begin(kVariantNames), std::end(kVariantNames)};
  }

  BackendRun run(const Problem& problem, const Image& input, std::string_view variant, int device,
                 const RunOptions& options) override;

 private:
  // Made on a device's first run, not at discovery: listing a device must not depend on using it.
  struct DeviceQueue {
    cl::Context context;
    cl::CommandQueue queue;  // in order, with profiling: every phase is timed with its events
  };
  struct BuiltProgram {
    cl::Program program;
    double build_ms = 0;  // the first build's time, reported again for cached uses
  };

  void discover();
  DeviceQueue& queue_for(int device);
  const BuiltProgram& program_for(int device, std::string_view variant, const std::string& source,
                                  const std::string& options);

  bool discovered_ = false;
  opencl::Discovery discovery_;
  std::vector<DeviceInfo> infos_;
  std::map<int, DeviceQueue> queues_;
  std::map<std::tuple<std::string, std::string, int>, BuiltProgram> programs_;  // (source, options, device)
};

void OpenClBackend::discover() {
  if (discovered_) return;
  discovered_ = true;
  discovery_ = opencl::discover_devices();
  for (const ClDevice& device : discovery_.devices) infos_.push_back(device.info);
}

OpenClBackend::DeviceQueue& OpenClBackend::queue_for(int device) {
  if (auto found = queues_.find(device); found != queues_.end()) return found->second;
  const cl::Device& cl_device = discovery_.devices[device].device;
  DeviceQueue made;
  made.context = CC_CL_OUT(cl::Context(cl_device, nullptr, nullptr, nullptr, err));
  made.queue = CC_CL_OUT(cl::CommandQueue(made.context, cl_device, CL_QUEUE_PROFILING_ENABLE, err));
  return queues_.emplace(device, std::move(made)).first->second;
}

const OpenClBackend::BuiltProgram& OpenClBackend::program_for(int device, std::string_view variant,
                                                              const std::string& source, const std::string& options) {
  const auto key = std::make_tuple(source, options, device);
  if (auto found = programs_.find(key); found != programs_.end()) return found->second;

  const cl::Device& cl_device = discovery_.devices[device].device;
  const auto start = Clock::now();
  cl::Program program = CC_CL_OUT(cl::Program(queue_for(device).context, source, false, err));
  const cl_int status = program.build(std::vector<cl::Device>{cl_device}, options.c_str());
  if (status != CL_SUCCESS) {
    cl_int log_status = CL_SUCCESS;
    const std::string log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(cl_device, &log_status);
    throw ApiError("OpenCL", status, std::string(opencl::error_name(status)),
                   fmt::format("clBuildProgram({}.cl, \"{}\")", variant, options), __FILE__, __LINE__,
                   summarize_build_log(log), log);
  }
  return programs_.emplace(key, BuiltProgram{program, ms_since(start)}).first->second;
}

BackendRun OpenClBackend::run(const Problem& problem, const Image& input, std::string_view variant,
                              int device_index, const RunOptions& options) {
  discover();
  if (std::find(std::begin(kVariantNames), std::end(kVariantNames), variant) == std::end(kVariantNames))
    throw InputError(fmt::format("the opencl backend has no variant '{}' ({})", variant,
                                 fmt::join(kVariantNames, ", ")));
  if (device_index < 0 || device_index >= static_cast<int>(discovery_.devices.size()))
    throw InputError(fmt::format("no OpenCL device {} ({} found)", device_index, discovery_.devices.size()));

  const ClDevice& device = discovery_.devices[device_index];
  const DeviceLimits& limits = device.limits;
  const bool texture = variant == "texture", separable = variant == "separable", tiled = variant == "tiled";
  const bool fast = variant == "fast";
  const Filter& filter = problem.correlation_filter;
  const ConvArgs args = problem.conv_args();
  const int channels = input.channels;
  const std::size_t plane_bytes = input.plane_size() * sizeof(float);

  // --- what the variant needs, checked before anything is allocated or built ---
  const FastShape fast_tile = fast_shape(args.radius_x, args.radius_y);
  if (fast) {
    if (std::string reason = fast_radius_limit_reason(args.radius_x, args.radius_y); !reason.empty())
      return skipped(std::move(reason));
    const std::size_t bytes = fast_tile_bytes(fast_tile, args.radius_x, args.radius_y);
    if (bytes > limits.local_memory)
      return skipped(fmt::format("the fast tile needs {} bytes of local memory, the device has {} "
                                 "(CL_DEVICE_LOCAL_MEM_SIZE)", bytes, limits.local_memory));
  }
  std::optional<SeparableFactors> factors;
  if (separable) {
    factors = separate(filter);
    if (!factors) return skipped("filter is not separable");
  }
  const std::size_t filter_bytes =
      (factors ? factors->row.size() + factors->column.size() : filter.weights.size()) * sizeof(float);
  if (variant != "global" && filter_bytes > limits.constant_buffer)
    return skipped(fmt::format("filter of {} bytes exceeds CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE ({} bytes)",
                               filter_bytes, limits.constant_buffer));
  // An input (buffer or image) and an output per plane, the filter, and separable's temporary.
  const std::size_t device_bytes = 2 * channels * plane_bytes + filter_bytes + (separable ? plane_bytes : 0);
  if (auto reason = memory_limit_reason(limits, std::max(plane_bytes, filter_bytes), device_bytes))
    return skipped(*reason);

  DeviceQueue& device_queue = queue_for(device_index);
  const cl::Context& context = device_queue.context;
  cl::CommandQueue& queue = device_queue.queue;
  if (texture)
    if (auto reason = texture_limit_reason(limits, context, problem.width, problem.height)) return skipped(*reason);

  const std::string source = program_source(variant, options.kernel_dir);
  std::string build_options = kBuildOptions;
  if (fast)  // the radius and tile shape as compile-time constants, as NVRTC gets them on the CUDA side
    for (const std::string& define : fast_defines(fast_tile, args.radius_x, args.radius_y)) build_options += " " + define;
  const BuiltProgram& built = program_for(device_index, variant, source, build_options);
  std::vector<cl::Kernel> kernels;
  std::size_t kernel_limit = limits.max_work_group;
  for (const std::string& name : kernel_names(variant)) {
    kernels.push_back(CC_CL_OUT(cl::Kernel(built.program, name.c_str(), err)));
    kernel_limit = std::min<std::size_t>(
        kernel_limit, CC_CL_OUT(kernels.back().getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device, err)));
  }

  GroupShape shape;
  std::size_t local_bytes = 0;
  if (tiled) {
    const cl_ulong kernel_local = CC_CL_OUT(kernels[0].getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device.device, err));
    const cl_ulong budget = limits.local_memory > kernel_local ? limits.local_memory - kernel_local : 0;
    const std::optional<GroupShape> tile = choose_tile(args, budget, kernel_limit, limits);
    if (!tile && tile_bytes({4, 4}, args) > budget)
      return skipped(fmt::format("a 4x4 tile with its apron (radius {}x{}) needs {} bytes of local memory, "
                                 "the device has {} (CL_DEVICE_LOCAL_MEM_SIZE)",
                                 args.radius_x, args.radius_y, tile_bytes({4, 4}, args), budget));
    if (!tile)
      return skipped(fmt::format("the tiled kernel allows {} work-items per group, fewer than a 4x4 tile "
                                 "(CL_KERNEL_WORK_GROUP_SIZE)", kernel_limit));
    shape = *tile;
    local_bytes = tile_bytes(shape, args);
  } else if (fast) {
    shape = GroupShape{static_cast<std::size_t>(fast_tile.block_x), static_cast<std::size_t>(fast_tile.block_y)};
    if (!shape_allowed(shape, kernel_limit, limits))
      return skipped(fmt::format("the fast kernel needs work-groups of {}x{}, the device allows {} work-items "
                                 "(CL_KERNEL_WORK_GROUP_SIZE)", shape.x, shape.y, kernel_limit));
  } else {
    shape = fit_work_group(kernel_limit, limits);
  }
  const cl::NDRange local(shape.x, shape.y);
  // OpenCL 1.2 wants whole work-groups; a fast work-item covers out_y rows.
  const std::size_t rows = fast ? (args.height + fast_tile.out_y - 1) / fast_tile.out_y : args.height;
  const cl::NDRange global(round_up(args.width, shape.x), round_up(rows, shape.y));

  BackendRun run;
  run.times.build_ms = built.build_ms;
  run.memory = options.pinned ? "pinned" : "pageable";
  run.compile_time = fmt::format("radius: {}; options: {}", fast ? "compile-time" : "run-time", build_options);
  if (!options.kernel_dir.empty()) run.compile_time += "; sources: " + options.kernel_dir;
  run.output = Image(input.width, input.height, input.channels, input.eight_bit);

  std::vector<cl::Buffer> inputs, outputs;
  std::vector<cl::Image2D> images;
  std::vector<std::unique_ptr<PinnedBuffer>> pinned_inputs, pinned_outputs;
  cl::Buffer filter_buffer, column_filter_buffer, temporary;
  cl::Sampler sampler;
  FinishOnExit drain{queue};

  // --- the phases, each enqueued for every plane ---
  const auto record = [](std::vector<cl::Event>* events) {
    if (!events) return static_cast<cl::Event*>(nullptr);
    events->emplace_back();
    return &events->back();
  };
  const auto upload = [&](std::vector<cl::Event>* events) {
    for (int c = 0; c < channels; ++c) {
      const float* pixels = options.pinned ? pinned_inputs[c]->data() : input.plane(c);
      if (texture)
        CC_CL(queue.enqueueWriteImage(images[c], CL_FALSE, {0, 0, 0},
                                      {static_cast<std::size_t>(input.width), static_cast<std::size_t>(input.height), 1},
                                      input.width * sizeof(float), 0, pixels, nullptr, record(events)));
      else
        CC_CL(queue.enqueueWriteBuffer(inputs[c], CL_FALSE, 0, plane_bytes, pixels, nullptr, record(events)));
    }
  };
  const auto download = [&](std::vector<cl::Event>* events) {
    for (int c = 0; c < channels; ++c) {
      float* pixels = options.pinned ? pinned_outputs[c]->data() : run.output.plane(c);
      CC_CL(queue.enqueueReadBuffer(outputs[c], CL_FALSE, 0, plane_bytes, pixels, nullptr, record(events)));
    }
  };
  const auto enqueue = [&](const cl::Kernel& kernel, std::vector<cl::Event>* events) {
    CC_CL(queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, record(events)));
  };
  // One launch: every plane (separable: its row pass then its column pass). The arguments are
  // captured at each enqueue, so one cl::Kernel serves every plane.
  const auto launch = [&](std::vector<cl::Event>* events) {
    for (int c = 0; c < channels; ++c) {
      if (separable) {
        set_args(kernels[0], inputs[c], temporary, filter_buffer, args);
        enqueue(kernels[0], events);
        set_args(kernels[1], temporary, outputs[c], column_filter_buffer, args);
        enqueue(kernels[1], events);
      } else if (texture) {
        set_args(kernels[0], images[c], sampler, outputs[c], filter_buffer, args);
        enqueue(kernels[0], events);
      } else if (tiled) {
        set_args(kernels[0], inputs[c], outputs[c], filter_buffer, args, cl::Local(local_bytes));
        enqueue(kernels[0], events);
      } else {
        set_args(kernels[0], inputs[c], outputs[c], filter_buffer, args);
        enqueue(kernels[0], events);
      }
    }
  };

  // --- setup (allocation, sampler, filter upload; host clock), then H2D (device events) ---
  const auto make_buffer = [&](cl_mem_flags flags, std::size_t bytes) {
    return CC_CL_OUT(cl::Buffer(context, flags, bytes, nullptr, err));
  };
  const auto upload_filter = [&](cl::Buffer& buffer, const std::vector<float>& weights) {
    buffer = make_buffer(CL_MEM_READ_ONLY, weights.size() * sizeof(float));
    CC_CL(queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, weights.size() * sizeof(float), weights.data()));
  };
  std::vector<cl::Event> events;
  try {
    const auto setup_start = Clock::now();
    for (int c = 0; c < channels; ++c) {
      if (texture)
        images.push_back(CC_CL_OUT(cl::Image2D(context, CL_MEM_READ_ONLY, cl::ImageFormat(CL_R, CL_FLOAT),
                                               input.width, input.height, 0, nullptr, err)));
      else
        inputs.push_back(make_buffer(CL_MEM_READ_ONLY, plane_bytes));
      outputs.push_back(make_buffer(CL_MEM_READ_WRITE, plane_bytes));
      if (options.pinned) {
        pinned_inputs.push_back(std::make_unique<PinnedBuffer>(context, queue, plane_bytes));
        pinned_outputs.push_back(std::make_unique<PinnedBuffer>(context, queue, plane_bytes));
      }
    }
    if (texture)  // zero border from CLK_ADDRESS_CLAMP, clamp from CLAMP_TO_EDGE; texture.cl folds the rest
      sampler = CC_CL_OUT(cl::Sampler(context, CL_FALSE,
                                      problem.border == Border::Zero ? CL_ADDRESS_CLAMP : CL_ADDRESS_CLAMP_TO_EDGE,
                                      CL_FILTER_NEAREST, err));
    if (separable) {
      upload_filter(filter_buffer, factors->row);
      upload_filter(column_filter_buffer, factors->column);
      temporary = make_buffer(CL_MEM_READ_WRITE, plane_bytes);
    } else {
      upload_filter(filter_buffer, filter.weights);
    }
    CC_CL(queue.finish());
    run.times.setup_ms = ms_since(setup_start);

    // Filling page-locked memory is the application's business, outside the timed transfer.
    for (int c = 0; c < channels && options.pinned; ++c)
      std::memcpy(pinned_inputs[c]->data(), input.plane(c), plane_bytes);
    upload(&events);
    CC_CL(queue.finish());
  } catch (const ApiError& error) {
    // Drivers allocate lazily, so a device that is short of memory says so here, at first use.
    if (error.code() != CL_MEM_OBJECT_ALLOCATION_FAILURE && error.code() != CL_OUT_OF_HOST_MEMORY &&
        error.code() != CL_OUT_OF_RESOURCES)
      throw;
    return skipped(fmt::format("the device could not allocate {:.1f} MB ({})", megabytes(device_bytes),
                               error.code_name()));
  }
  run.times.h2d_ms = event_span_ms(events.front(), events.back());

  // --- warm-up (it also says how many launches fit the time budget), then NaN in every output so a
  // pixel the kernel never writes fails validation ---
  const int timed = options.warm_up([&] {
    launch(nullptr);
    CC_CL(queue.finish());
  });
  for (const cl::Buffer& output : outputs)
    CC_CL(queue.enqueueFillBuffer(output, std::numeric_limits<float>::quiet_NaN(), 0, plane_bytes));
  CC_CL(queue.finish());

  // --- kernel: one bracket per launch, then one around back-to-back launches ---
  std::vector<std::vector<cl::Event>> per_launch(timed);
  for (std::vector<cl::Event>& launch_events : per_launch) launch(&launch_events);
  CC_CL(queue.finish());
  std::vector<double> launch_ms;
  for (const std::vector<cl::Event>& launch_events : per_launch)
    launch_ms.push_back(event_span_ms(launch_events.front(), launch_events.back()));
  run.times.kernel_ms = summarize(std::move(launch_ms));

  events.clear();
  for (int i = 0; i < timed; ++i) launch(&events);
  CC_CL(queue.finish());
  run.times.kernel_batch_ms = event_span_ms(events.front(), events.back()) / timed;

  // --- D2H ---
  events.clear();
  download(&events);
  CC_CL(queue.finish());
  run.times.d2h_ms = event_span_ms(events.front(), events.back());
  for (int c = 0; c < channels && options.pinned; ++c)
    std::memcpy(run.output.plane(c), pinned_outputs[c]->data(), plane_bytes);

  // --- end to end, host clock: what an application waits for ---
  const auto round_trip_start = Clock::now();
  upload(nullptr);
  launch(nullptr);
  download(nullptr);
  CC_CL(queue.finish());
  run.times.host_to_host_ms = ms_since(round_trip_start);

  if (separable) {
    run.extra_tolerance = separable_error_bound(filter, *factors, input);
  }
  run.status = Status::Ok;
  return run;
}

}  // namespace

std::unique_ptr<Backend> make_opencl_backend() { return std::make_unique<OpenClBackend>(); }

}  // namespace cc
