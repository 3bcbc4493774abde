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
#include "backends/opencl/opencl_backend_impl.h"
#include "backends/host_copy.h"
#include "backends/embedded_sources.h"
#include "common/domain/error.h"
#include "common/domain/input_file.h"
#include "common/geometry/fast_shape.h"
#include "common/domain/filter.h"
#include "common/geometry/separable_shape.h"

namespace cc::opencl {

namespace {

struct VariantName {
  std::string_view name;
  Variant variant;
};

// In kVariants order, as variants() must list them.
constexpr VariantName kVariantNames[] = {
    {"global", Variant::Global},   {"constant", Variant::Constant},   {"tiled", Variant::Tiled},
    {"texture", Variant::Texture}, {"separable", Variant::Separable}, {"fft", Variant::Fft},
    {"fast", Variant::Fast},
};

std::optional<Variant> parse_variant(std::string_view name) {
  for (const VariantName& entry : kVariantNames)
    if (entry.name == name) return entry.variant;
  return std::nullopt;
}

// OpenCL C 1.2 and no math flags (no -cl-mad-enable, no fast-math): the CUDA side gets no fast-math
// either, and the report prints these options next to the results.
constexpr const char* kBuildOptions = "-cl-std=CL1.2";

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double megabytes(double bytes) { return bytes / (1024.0 * 1024.0); }

// --- kernel sources ---------------------------------------------------------------------------------

std::string embedded_cl_source(std::string_view name) { return embedded_source(embedded_cl_sources(), name); }

// Through the one input opener (common/domain/input_file.h): a FIFO or /dev/zero named in --kernel-dir
// is refused, not read forever. nullopt only when the file does not exist.
std::optional<std::string> read_text_file(const std::filesystem::path& path) {
  if (!input_exists(path.string(), "kernel source")) return std::nullopt;
  return read_input_file(path.string(), "kernel source", 16u << 20, "far more than any kernel source needs");
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
  if (variant == "fft") return {"fft_pad", "fft_multiply", "fft_crop", "fft_bands"};
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

template <typename... Args>
void set_args(cl::Kernel& kernel, const Args&... args) {
  cl_uint index = 0;
  (CC_CL(kernel.setArg(index++, args)), ...);
}

// Where the next command's event goes: a new entry of `events`, or nowhere.
cl::Event* next_event(std::vector<cl::Event>* events) {
  if (!events) return nullptr;
  events->emplace_back();
  return &events->back();
}

// Declared after the host memory a run's commands touch, so that on the way out (error or not) it
// runs first: no transfer still reads or writes that memory when it is freed.
struct FinishOnExit {
  const cl::CommandQueue& queue;
  ~FinishOnExit() { queue.finish(); }
};

}  // namespace

// Device time from the start of `first` to the end of `last` (profiling counters are nanoseconds).
double event_span_ms(const cl::Event& first, const cl::Event& last) {
  const cl_ulong start = CC_CL_OUT(first.getProfilingInfo<CL_PROFILING_COMMAND_START>(err));
  const cl_ulong end = CC_CL_OUT(last.getProfilingInfo<CL_PROFILING_COMMAND_END>(err));
  return static_cast<double>(end - start) * 1e-6;
}

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


std::size_t frame_bytes(const Plan& plan, const Problem& problem) {
  const std::size_t planes = 2 * problem.channels;
  // fft: its spectrum (padded) buffer, the filter's spectrum, the edge bands' coefficients and, once
  // VkFFT has planned, the temporary if needed.
  const std::size_t fft =
      plan.variant != Variant::Fft ? 0 : fft_buffer_bytes(problem, plan.fft && plan.fft->needs_temporary());
  return planes * problem.width * problem.height * sizeof(float) + fft;
}

std::size_t filter_bytes(const Plan& plan, const Problem& problem) {
  if (plan.variant == Variant::Fft) return 0;  // held as each frame's spectrum
  return filter_device_bytes(problem.correlation_filter, plan.factors);
}

// --- host memory ------------------------------------------------------------------------------------

PinnedBuffer::PinnedBuffer(const cl::Context& context, const cl::CommandQueue& queue, std::size_t bytes)
    : queue_(queue),
      buffer_(CC_CL_OUT(cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, err))) {
  data_ = static_cast<float*>(CC_CL_OUT(
      queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, err)));
}

PinnedBuffer::~PinnedBuffer() {  // statuses ignored: a destructor must not throw, and the run is over
  queue_.enqueueUnmapMemObject(buffer_, data_);
  queue_.finish();
}

HostFrame::HostFrame(const cl::Context& context, const cl::CommandQueue& queue, const Image& shape, bool pinned)
    : plane_size_(shape.plane_size()) {
  if (!pinned) pageable_.resize(shape.data.size());
  for (int c = 0; c < shape.channels && pinned; ++c)
    pinned_.push_back(std::make_unique<PinnedBuffer>(context, queue, plane_size_ * sizeof(float)));
}

float* HostFrame::plane(int c) const {
  return pinned_.empty() ? pageable_.data() + c * plane_size_ : pinned_[c]->data();
}

void HostFrame::fill(const Image& image) const {
  for (int c = 0; c < image.channels; ++c) copy_rows(image.plane(c), plane(c), image.height, image.width);
}

void HostFrame::copy_to(Image& image) const {
  for (int c = 0; c < image.channels; ++c) copy_rows(plane(c), image.plane(c), image.height, image.width);
}

// --- a prepared variant: setup once, then upload / launch / download one frame on any queue ---------

PreparedVariant::PreparedVariant(const Plan& plan, const Problem& problem, const cl::Context& context,
                                 const cl::CommandQueue& queue)
    : plan_(plan), problem_(problem), context_(context), queue_(queue), kernels_(plan.kernels) {
  const auto upload_filter = [&](cl::Buffer& buffer, const std::vector<float>& weights) {
    const std::size_t bytes = weights.size() * sizeof(float);
    buffer = CC_CL_OUT(cl::Buffer(context, CL_MEM_READ_ONLY, bytes, nullptr, err));
    CC_CL(queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, weights.data()));
  };
  switch (plan.variant) {
    case Variant::Separable:
      upload_filter(filter_buffer_, plan.factors->row);
      upload_filter(column_filter_buffer_, plan.factors->column);
      break;
    case Variant::Texture:
      // Zero border from CLK_ADDRESS_CLAMP, clamp from CLAMP_TO_EDGE; texture.cl folds the rest.
      sampler_ = CC_CL_OUT(cl::Sampler(context, CL_FALSE,
                                       problem.border == Border::Zero ? CL_ADDRESS_CLAMP : CL_ADDRESS_CLAMP_TO_EDGE,
                                       CL_FILTER_NEAREST, err));
      upload_filter(filter_buffer_, problem.correlation_filter.weights);
      break;
    case Variant::Global:
    case Variant::Constant:
    case Variant::Tiled:
    case Variant::Fast: upload_filter(filter_buffer_, problem.correlation_filter.weights); break;
    case Variant::Fft: break;  // each frame computes the filter's spectrum (make_frame)
  }
}

FrameBuffers PreparedVariant::make_frame() const {
  const std::size_t plane_bytes = static_cast<std::size_t>(problem_.width) * problem_.height * sizeof(float);
  const auto make_buffer = [&](cl_mem_flags flags) {
    return CC_CL_OUT(cl::Buffer(context_, flags, plane_bytes, nullptr, err));
  };
  FrameBuffers frame;
  for (int c = 0; c < problem_.channels; ++c) {
    if (plan_.variant == Variant::Texture)
      frame.images.push_back(CC_CL_OUT(cl::Image2D(context_, CL_MEM_READ_ONLY, cl::ImageFormat(CL_R, CL_FLOAT),
                                                   problem_.width, problem_.height, 0, nullptr, err)));
    else
      frame.inputs.push_back(make_buffer(CL_MEM_READ_ONLY));
    frame.outputs.push_back(make_buffer(CL_MEM_READ_WRITE));
  }
#ifdef CONVCOMPARE_WITH_VKFFT
  if (plan_.variant == Variant::Fft)
    frame.fft = std::make_unique<FftConvolver>(context_, queue_, plan_.program, plan_.local[0], plan_.local[1],
                                               *plan_.fft, problem_);
#endif
  return frame;
}

void PreparedVariant::upload(const FrameBuffers& frame, const HostFrame& host, const cl::CommandQueue& queue,
                             std::vector<cl::Event>* events) const {
  const std::size_t width = problem_.width, height = problem_.height;
  for (int c = 0; c < problem_.channels; ++c) {
    if (plan_.variant == Variant::Texture)
      CC_CL(queue.enqueueWriteImage(frame.images[c], CL_FALSE, {0, 0, 0}, {width, height, 1}, width * sizeof(float), 0,
                                    host.plane(c), nullptr, next_event(events)));
    else
      CC_CL(queue.enqueueWriteBuffer(frame.inputs[c], CL_FALSE, 0, width * height * sizeof(float), host.plane(c),
                                     nullptr, next_event(events)));
  }
}

void PreparedVariant::download(const FrameBuffers& frame, const HostFrame& host, const cl::CommandQueue& queue,
                               std::vector<cl::Event>* events) const {
  const std::size_t plane_bytes = static_cast<std::size_t>(problem_.width) * problem_.height * sizeof(float);
  for (int c = 0; c < problem_.channels; ++c)
    CC_CL(queue.enqueueReadBuffer(frame.outputs[c], CL_FALSE, 0, plane_bytes, host.plane(c), nullptr,
                                  next_event(events)));
}

// Every plane once.
void PreparedVariant::launch(const FrameBuffers& frame, const cl::CommandQueue& queue,
                             std::vector<cl::Event>* events) const {
  const ConvArgs& args = plan_.args;
  const auto enqueue = [&](const cl::Kernel& kernel) {
    CC_CL(queue.enqueueNDRangeKernel(kernel, cl::NullRange, plan_.global, plan_.local, nullptr, next_event(events)));
  };
  for (int c = 0; c < problem_.channels; ++c) {
    switch (plan_.variant) {
      case Variant::Separable:
        set_args(kernels_[0], frame.inputs[c], frame.outputs[c], filter_buffer_, column_filter_buffer_, args);
        enqueue(kernels_[0]);
        break;
      case Variant::Texture:
        set_args(kernels_[0], frame.images[c], sampler_, frame.outputs[c], filter_buffer_, args);
        enqueue(kernels_[0]);
        break;
      case Variant::Tiled:
        set_args(kernels_[0], frame.inputs[c], frame.outputs[c], filter_buffer_, args, cl::Local(plan_.local_bytes));
        enqueue(kernels_[0]);
        break;
      case Variant::Global:
      case Variant::Constant:
      case Variant::Fast:
        set_args(kernels_[0], frame.inputs[c], frame.outputs[c], filter_buffer_, args);
        enqueue(kernels_[0]);
        break;
      case Variant::Fft: frame.fft->convolve_plane(frame.inputs[c], frame.outputs[c], queue, events); break;
    }
  }
}

// --- the backend ------------------------------------------------------------------------------------

const std::vector<DeviceInfo>& OpenClBackend::devices() {
  discover();
  return infos_;
}

std::string OpenClBackend::unavailable_reason() {
  discover();
  return discovery_.unavailable_reason;
}

std::vector<std::string> OpenClBackend::variants() const {
  std::vector<std::string> names;
  for (const VariantName& entry : kVariantNames) names.emplace_back(entry.name);
  return names;
}

void OpenClBackend::discover() {
  if (discovered_) return;
  discovered_ = true;
  discovery_ = discover_devices();
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
    throw ApiError("OpenCL", status, std::string(error_name(status)),
                   fmt::format("clBuildProgram({}.cl, \"{}\")", variant, options), __FILE__, __LINE__,
                   summarize_build_log(log), log);
  }
  return programs_.emplace(key, BuiltProgram{program, ms_since(start)}).first->second;
}

VkFftPlan& OpenClBackend::fft_plan_for(int device, const FftShape& shape) {
  std::unique_ptr<VkFftPlan>& plan =
      fft_plans_[{device, shape.transform_width, shape.transform_height, shape.real_pitch, shape.circular}];
  if (!plan) {
    const DeviceQueue& device_queue = queue_for(device);
    plan = std::make_unique<VkFftPlan>(discovery_.devices[device].device, device_queue.context, device_queue.queue,
                                       shape);
  }
  return *plan;
}

std::string OpenClBackend::prepare(Plan& plan, const Problem& problem, std::string_view variant, int device_index,
                                   const RunOptions& options, int frames_in_flight) {
  discover();
  const std::optional<Variant> parsed = parse_variant(variant);
  if (!parsed)
    throw InputError(fmt::format("the opencl backend has no variant '{}' ({})", variant, fmt::join(variants(), ", ")));
  if (device_index < 0 || device_index >= static_cast<int>(discovery_.devices.size()))
    throw InputError(fmt::format("no OpenCL device {} ({} found)", device_index, discovery_.devices.size()));

  const ClDevice& device = discovery_.devices[device_index];
  const DeviceLimits& limits = device.limits;
  plan.variant = *parsed;
  plan.args = problem.conv_args();
  const ConvArgs& args = plan.args;
  const bool fast = plan.variant == Variant::Fast;
#ifndef CONVCOMPARE_WITH_VKFFT
  if (plan.variant == Variant::Fft) return "VkFFT not found at build time";
#endif
  const std::size_t plane_bytes = static_cast<std::size_t>(problem.width) * problem.height * sizeof(float);

  // --- what the variant needs, checked before anything is allocated or built ---
  const FastShape fast_tile = fast_shape(args.radius_x, args.radius_y, limits.local_memory);
  if (fast) {
    if (std::string reason = fast_radius_limit_reason(args.radius_x, args.radius_y); !reason.empty()) return reason;
    const std::size_t bytes = fast_tile_bytes(fast_tile, args.radius_x, args.radius_y);
    if (bytes > limits.local_memory)
      return fmt::format("the fast tile needs {} bytes of local memory, the device has {} "
                         "(CL_DEVICE_LOCAL_MEM_SIZE)", bytes, limits.local_memory);
  }
  std::optional<SeparableShape> separable_tile;
  if (plan.variant == Variant::Separable) {
    plan.factors = separate(problem.correlation_filter);
    if (!plan.factors) return "filter is not separable";
    separable_tile = separable_shape(args.radius_x, args.radius_y, limits.local_memory);
    if (!separable_tile)
      return separable_limit_reason(args.radius_x, args.radius_y, limits.local_memory,
                                    "local memory (CL_DEVICE_LOCAL_MEM_SIZE)");
  }
  const std::size_t filter_size = filter_bytes(plan, problem);
  if (plan.variant != Variant::Global && plan.variant != Variant::Fft && filter_size > limits.constant_buffer)
    return fmt::format("filter of {} bytes exceeds CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE ({} bytes)", filter_size,
                       limits.constant_buffer);
  const std::size_t fft_buffer = plan.variant == Variant::Fft ? fft_shape(problem).buffer_bytes() : 0;
  if (auto reason = memory_limit_reason(limits, std::max({plane_bytes, filter_size, fft_buffer}),
                                        frames_in_flight * frame_bytes(plan, problem) + filter_size))
    return *reason;
  if (plan.variant == Variant::Texture)
    if (auto reason = texture_limit_reason(limits, queue_for(device_index).context, problem.width, problem.height))
      return *reason;

  const std::string source = program_source(variant, options.kernel_dir);
  plan.build_options = kBuildOptions;
  if (fast)  // the radius and tile shape as compile-time constants, as NVRTC gets them on the CUDA side
    for (const std::string& define : fast_defines(fast_tile, args.radius_x, args.radius_y))
      plan.build_options += " " + define;
  if (separable_tile)
    for (const std::string& define : separable_defines(*separable_tile, args.radius_x, args.radius_y))
      plan.build_options += " " + define;
  const BuiltProgram& built = program_for(device_index, variant, source, plan.build_options);
  plan.build_ms = built.build_ms;
  if (plan.variant == Variant::Fft) {  // VkFFT generates and builds its kernels too: counted as building
    plan.program = built.program;
    plan.fft = &fft_plan_for(device_index, fft_shape(problem));
    plan.build_ms += plan.fft->build_ms();
  }
  std::size_t kernel_limit = limits.max_work_group;
  for (const std::string& name : kernel_names(variant)) {
    plan.kernels.push_back(CC_CL_OUT(cl::Kernel(built.program, name.c_str(), err)));
    kernel_limit = std::min<std::size_t>(
        kernel_limit, CC_CL_OUT(plan.kernels.back().getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device, err)));
  }

  GroupShape shape;
  if (plan.variant == Variant::Tiled) {
    const cl_ulong kernel_local =
        CC_CL_OUT(plan.kernels[0].getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device.device, err));
    const cl_ulong budget = limits.local_memory > kernel_local ? limits.local_memory - kernel_local : 0;
    const std::optional<GroupShape> tile = choose_tile(args, budget, kernel_limit, limits);
    if (!tile && tile_bytes({4, 4}, args) > budget)
      return fmt::format("a 4x4 tile with its apron (radius {}x{}) needs {} bytes of local memory, "
                         "the device has {} (CL_DEVICE_LOCAL_MEM_SIZE)",
                         args.radius_x, args.radius_y, tile_bytes({4, 4}, args), budget);
    if (!tile)
      return fmt::format("the tiled kernel allows {} work-items per group, fewer than a 4x4 tile "
                         "(CL_KERNEL_WORK_GROUP_SIZE)", kernel_limit);
    shape = *tile;
    plan.local_bytes = tile_bytes(shape, args);
  } else if (fast) {
    shape = GroupShape{static_cast<std::size_t>(fast_tile.block_x), static_cast<std::size_t>(fast_tile.block_y)};
    if (!shape_allowed(shape, kernel_limit, limits))
      return fmt::format("the fast kernel needs work-groups of {}x{}, the device allows {} work-items "
                         "(CL_KERNEL_WORK_GROUP_SIZE)", shape.x, shape.y, kernel_limit);
  } else if (separable_tile) {
    shape = GroupShape{static_cast<std::size_t>(separable_tile->threads), 1};
    if (!shape_allowed(shape, kernel_limit, limits))
      return fmt::format("the separable kernel needs work-groups of {} work-items, the device allows {} "
                         "(CL_KERNEL_WORK_GROUP_SIZE)", shape.x, kernel_limit);
  } else {
    shape = fit_work_group(kernel_limit, limits);
  }
  plan.local = cl::NDRange(shape.x, shape.y);
  // OpenCL 1.2 wants whole work-groups; a fast work-item covers out_x x out_y outputs.
  auto [columns, rows] = fast ? fast_work_items(fast_tile, args.width, args.height)
                              : std::pair<std::size_t, std::size_t>(args.width, args.height);
  if (separable_tile) {  // one work-group per tile of outputs
    const auto [groups_x, groups_y] = separable_groups(*separable_tile, args.width, args.height);
    columns = groups_x * shape.x;
    rows = groups_y;
  }
  plan.global = cl::NDRange(round_up(columns, shape.x), round_up(rows, shape.y));
  return "";
}

// One variant on one device, timed as DESIGN.md section 4 and the CUDA backend do: setup on the host
// clock; upload, every launch, the batch and the download in profiling events on one in-order queue.
BackendRun OpenClBackend::run(const Problem& problem, const Image& input, std::string_view variant,
                              int device_index, const RunOptions& options) {
  Plan plan;
  if (std::string reason = prepare(plan, problem, variant, device_index, options, 1); !reason.empty())
    return skipped(std::move(reason));
  DeviceQueue& device_queue = queue_for(device_index);
  const cl::Context& context = device_queue.context;
  const cl::CommandQueue& queue = device_queue.queue;

  BackendRun run;
  run.times.build_ms = plan.build_ms;
  run.memory = options.pinned ? "pinned" : "pageable";
  const bool radius_compiled = plan.variant == Variant::Fast || plan.variant == Variant::Separable;
  run.compile_time = fmt::format("radius: {}; options: {}", radius_compiled ? "compile-time" : "run-time",
                                 plan.build_options);
  if (!options.kernel_dir.empty()) run.compile_time += "; sources: " + options.kernel_dir;
  run.device_bytes = frame_bytes(plan, problem) + filter_bytes(plan, problem);
  run.output = Image(input.width, input.height, input.channels, input.eight_bit);

  // Page-locked or pageable, the transfers use this host memory; filling and emptying it is the
  // application's business, outside every timed bracket.
  std::optional<HostFrame> host;
  std::optional<PreparedVariant> prepared;
  FrameBuffers frame;
  FinishOnExit drain{queue};
  const auto upload = [&](std::vector<cl::Event>* events) { prepared->upload(frame, *host, queue, events); };
  const auto launch = [&](std::vector<cl::Event>* events) { prepared->launch(frame, queue, events); };
  const auto download = [&](std::vector<cl::Event>* events) { prepared->download(frame, *host, queue, events); };

  // --- setup (allocation, sampler, filter upload; host clock), then H2D (device events) ---
  std::vector<cl::Event> events;
  try {
    const auto setup_start = Clock::now();
    prepared.emplace(plan, problem, context, queue);
    frame = prepared->make_frame();
    host.emplace(context, queue, input, options.pinned);
    CC_CL(queue.finish());
    run.times.setup_ms = ms_since(setup_start);

    host->fill(input);
    upload(&events);
    CC_CL(queue.finish());
  } catch (const ApiError& error) {
    // Drivers allocate lazily, so a device that is short of memory says so here, at first use.
    if (error.code() != CL_MEM_OBJECT_ALLOCATION_FAILURE && error.code() != CL_OUT_OF_HOST_MEMORY &&
        error.code() != CL_OUT_OF_RESOURCES)
      throw;
    return skipped(fmt::format("the device could not allocate {:.1f} MB ({})", megabytes(run.device_bytes),
                               error.code_name()));
  }
  run.times.h2d_ms = event_span_ms(events.front(), events.back());

  // --- warm-up (it also says how many launches fit the time budget), then NaN in every output so a
  // pixel the kernel never writes fails validation ---
  const int timed = options.warm_up([&] {
    launch(nullptr);
    CC_CL(queue.finish());
  });
  for (const cl::Buffer& output : frame.outputs)
    CC_CL(queue.enqueueFillBuffer(output, std::numeric_limits<float>::quiet_NaN(), 0,
                                  input.plane_size() * sizeof(float)));
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
  host->copy_to(run.output);

  // --- end to end, host clock: what an application waits for ---
  const auto round_trip_start = Clock::now();
  upload(nullptr);
  launch(nullptr);
  download(nullptr);
  CC_CL(queue.finish());
  run.times.host_to_host_ms = ms_since(round_trip_start);

  // --- seed 000's reuse case: a second filtering of the image already on the device, no upload ---
  const auto reuse_start = Clock::now();
  launch(nullptr);
  download(nullptr);
  CC_CL(queue.finish());
  run.times.reuse_ms = ms_since(reuse_start);

  if (plan.factors) run.extra_tolerance = separable_error_bound(problem.correlation_filter, *plan.factors, input);
  if (plan.fft) {
    const FftShape shape = fft_shape(problem);
    run.compile_time += fmt::format("; VkFFT real-to-complex and back at {}, generated at run time",
                                    fft_shape_text(shape));
    run.fft_tolerance = true;
  }
  run.status = Status::Ok;
  return run;
}

}  // namespace cc::opencl

namespace cc {
std::unique_ptr<Backend> make_opencl_backend() { return std::make_unique<opencl::OpenClBackend>(); }
}  // namespace cc
