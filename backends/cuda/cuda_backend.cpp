// cuda_backend.cpp: the CUDA backend: device discovery, each variant's skip rules, one timed run.
#include "backends/cuda/cuda_backend.h"

#include <algorithm>
#include <map>
#include <memory>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_peaks.h"
#include "backends/cuda/cuda_resources.h"
#include "backends/cuda/cuda_variant.h"
#include "backends/cuda/runtime_module.h"
#include "backends/embedded_sources.h"
#include "common/domain/error.h"
#include "common/geometry/fast_shape.h"
#include "common/domain/filter.h"
#include "common/geometry/separable_shape.h"
#include "kernels_cuda/launchers.h"
#ifdef CONVCOMPARE_WITH_NPP
#include "backends/npp/npp_baseline.h"
#endif

namespace cc {

namespace {

namespace kernels = cuda_kernels;
using cuda::Plan;
using cuda::Variant;

struct VariantName {
  std::string_view name;
  Variant variant;
};

// In kVariants order, as variants() must list them.
constexpr VariantName kVariantNames[] = {
    {"global", Variant::Global},       {"constant", Variant::Constant},   {"tiled", Variant::Tiled},
    {"texture", Variant::Texture},     {"separable", Variant::Separable}, {"fft", Variant::Fft},
    {"fast", Variant::Fast},           {"npp", Variant::Npp},             {"npp-separable", Variant::NppSeparable},
};

std::optional<Variant> parse_variant(std::string_view name) {
  for (const VariantName& entry : kVariantNames)
    if (entry.name == name) return entry.variant;
  return std::nullopt;
}

bool is_npp(Variant variant) { return variant == Variant::Npp || variant == Variant::NppSeparable; }
bool is_separable(Variant variant) { return variant == Variant::Separable || variant == Variant::NppSeparable; }

// What a block gets without cudaFuncSetAttribute; above it the tiled kernel must opt in.
constexpr std::size_t kDefaultSharedBytesPerBlock = 48 * 1024;

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

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
  return info;
}

// What the compiler knew: the radius is a kernel argument in both APIs (OpenCL builds with no -D).
std::string compile_time_text(Variant variant) {
  if (is_npp(variant)) return "radius: run-time; NPP, prebuilt by NVIDIA";
  const std::string architectures = CONVCOMPARE_CUDA_ARCHITECTURES;
  const bool one_number = !architectures.empty() && std::ranges::all_of(architectures, [](char c) {
    return c >= '0' && c <= '9';
  });
  return fmt::format("radius: run-time; nvcc {} --fmad=true (offline)",
                     one_number ? "-arch=sm_" + architectures : "for CUDA architectures " + architectures);
}

// The largest block whose tile (output plus apron) fits in what a block may opt in to.
std::optional<dim3> tiled_block(const ConvArgs& args, std::size_t shared_limit) {
  for (const dim3 block : {dim3(16, 16), dim3(16, 8), dim3(8, 8), dim3(4, 4)})
    if (kernels::tiled_shared_bytes(args, block) <= shared_limit) return block;
  return std::nullopt;
}

// Fills `plan`; returns why the variant cannot run this problem on this device, or "" when it can.
std::string plan_variant(Plan& plan, const Problem& problem, const cudaDeviceProp& properties) {
  const Filter& filter = problem.correlation_filter;
  plan.args = problem.conv_args();

  if (plan.variant == Variant::Fft) {
#ifndef CONVCOMPARE_WITH_CUFFT
    return "cuFFT not found at build time";
#endif
  }
  if (is_npp(plan.variant)) {
#ifndef CONVCOMPARE_WITH_NPP
    return "NPP not found at build time";
#endif
    if (problem.border != Border::Clamp)
      return "NPP baseline supports the replicate border only: use --border clamp";
  }
  if (plan.variant == Variant::Constant || plan.variant == Variant::Tiled || plan.variant == Variant::Texture) {
    if (filter.taps() > kernels::kMaxConstantTaps)
      return fmt::format("filter of {} bytes exceeds the 64 KB of constant memory", filter.taps() * sizeof(float));
  }
  if (plan.variant == Variant::Tiled) {
    const std::size_t limit = std::max(properties.sharedMemPerBlock, properties.sharedMemPerBlockOptin);
    const std::optional<dim3> block = tiled_block(plan.args, limit);
    if (!block)
      return fmt::format("a 4x4 tile with its apron needs {} bytes of shared memory, the device allows {} per block",
                         kernels::tiled_shared_bytes(plan.args, dim3(4, 4)), limit);
    plan.block = *block;
    plan.shared_bytes = kernels::tiled_shared_bytes(plan.args, *block);
  }
  if (plan.variant == Variant::Fast) {
    // Within the radius limit the filter (at most 65x65 floats) always fits in constant memory.
    if (std::string reason = fast_radius_limit_reason(plan.args.radius_x, plan.args.radius_y); !reason.empty())
      return reason;
    const std::size_t limit = std::max(properties.sharedMemPerBlock, properties.sharedMemPerBlockOptin);
    plan.fast = fast_shape(plan.args.radius_x, plan.args.radius_y, limit);
    plan.block = dim3(plan.fast.block_x, plan.fast.block_y);
    plan.shared_bytes = fast_tile_bytes(plan.fast, plan.args.radius_x, plan.args.radius_y);
    if (plan.shared_bytes > limit)
      return fmt::format("the fast tile needs {} bytes of shared memory, the device allows {} per block",
                         plan.shared_bytes, limit);
  }
  if (plan.variant == Variant::Texture &&
      (problem.width > properties.maxTexture2D[0] || problem.height > properties.maxTexture2D[1]))
    return fmt::format("image of {}x{} exceeds the largest 2D texture, {}x{}", problem.width, problem.height,
                       properties.maxTexture2D[0], properties.maxTexture2D[1]);
  if (is_separable(plan.variant)) {
    plan.factors = separate(filter);
    if (!plan.factors) return "filter is not separable";
  }
  if (plan.variant == Variant::Separable) {
    // Within the radius limit both 1D filters (at most 257 floats each) fit in constant memory.
    const std::size_t limit = std::max(properties.sharedMemPerBlock, properties.sharedMemPerBlockOptin);
    const std::optional<SeparableShape> shape = separable_shape(plan.args.radius_x, plan.args.radius_y, limit);
    if (!shape) return separable_limit_reason(plan.args.radius_x, plan.args.radius_y, limit, "shared memory");
    plan.separable = *shape;
    plan.block = dim3(shape->threads);
    plan.shared_bytes = separable_on_chip_bytes(*shape, plan.args.radius_x);
  }
  return "";
}

}  // namespace

// --- a prepared variant: setup once, then upload / launch / download one frame on any stream -------

namespace cuda {

PreparedVariant::PreparedVariant(const Plan& plan, const Problem& problem, int ordinal, cudaStream_t stream)
    : plan_(plan),
      problem_(problem),
      ordinal_(ordinal),
      setup_stream_(stream),
      plane_(static_cast<std::size_t>(problem.width) * problem.height) {
  const ConvArgs& args = plan.args;
  const Filter& filter = problem.correlation_filter;
  const auto upload_to = [&](DeviceBuffer& buffer, const std::vector<float>& values) {
    buffer = DeviceBuffer(values.size());
    CC_CUDA_CHECK(cudaMemcpyAsync(buffer.get(), values.data(), buffer.bytes(), cudaMemcpyHostToDevice, stream));
  };
  switch (plan.variant) {
    case Variant::Global: upload_to(filter_buffer_, filter.weights); break;
    case Variant::Constant:
      CC_CUDA_CHECK(kernels::upload_constant_filter(filter.weights.data(), filter.taps(), stream));
      break;
    case Variant::Tiled:
      CC_CUDA_CHECK(kernels::upload_tiled_filter(filter.weights.data(), filter.taps(), stream));
      if (plan.shared_bytes > kDefaultSharedBytesPerBlock) CC_CUDA_CHECK(kernels::prepare_tiled(plan.shared_bytes));
      break;
    case Variant::Texture:
      CC_CUDA_CHECK(kernels::upload_texture_filter(filter.weights.data(), filter.taps(), stream));
      break;
    case Variant::Separable: {
      module_kernel_ = plan.module->kernel("convolve_separable");
      const auto [columns, rows] = separable_groups(plan.separable, args.width, args.height);
      module_grid_ = dim3(columns, rows);
      for (const auto& [name, weights] : {std::pair{"c_row_filter", &plan.factors->row},
                                          std::pair{"c_column_filter", &plan.factors->column}}) {
        std::size_t symbol_bytes = 0;
        void* symbol = plan.module->global(name, &symbol_bytes);
        CC_CUDA_CHECK(cudaMemcpyAsync(symbol, weights->data(), symbol_bytes, cudaMemcpyHostToDevice, stream));
      }
      if (plan.shared_bytes > kDefaultSharedBytesPerBlock)
        CC_CUDA_CHECK(cudaKernelSetAttributeForDevice(module_kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                      static_cast<int>(plan.shared_bytes), ordinal));
      break;
    }
    case Variant::Fast: {
      module_kernel_ = plan.module->kernel("convolve_fast");
      const auto [columns, rows] = fast_work_items(plan.fast, args.width, args.height);
      module_grid_ = dim3((columns + plan.fast.block_x - 1) / plan.fast.block_x, (rows + plan.fast.block_y - 1) / plan.fast.block_y);
      std::size_t symbol_bytes = 0;
      void* symbol = plan.module->global("c_filter", &symbol_bytes);
      CC_CUDA_CHECK(cudaMemcpyAsync(symbol, filter.weights.data(), symbol_bytes, cudaMemcpyHostToDevice, stream));
      if (plan.shared_bytes > kDefaultSharedBytesPerBlock)
        CC_CUDA_CHECK(cudaKernelSetAttributeForDevice(module_kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                      static_cast<int>(plan.shared_bytes), ordinal));
      break;
    }
#ifdef CONVCOMPARE_WITH_NPP
    case Variant::Npp:
      npp_filter_ = npp::reversed(filter.weights);
      upload_to(filter_buffer_, npp_filter_);
      break;
    case Variant::NppSeparable:
      npp_filter_ = npp::reversed(plan.factors->row);
      npp_column_filter_ = npp::reversed(plan.factors->column);
      upload_to(filter_buffer_, npp_filter_);
      upload_to(column_filter_buffer_, npp_column_filter_);
      break;
#endif
    default: break;  // npp variants without NPP were skipped by plan_variant
  }
}

std::size_t frame_bytes(const Plan& plan, const Problem& problem) {
  const std::size_t planes = 2 * problem.channels + (plan.variant == Variant::NppSeparable ? 1 : 0);
  // fft: its spectrum (padded) buffer, the filter's spectrum and the edge bands' coefficients; cuFFT's
  // work area is known once planned.
  const std::size_t fft = plan.variant == Variant::Fft ? fft_buffer_bytes(problem) : 0;
  return planes * problem.width * problem.height * sizeof(float) + fft;
}

std::size_t filter_bytes(const Plan& plan, const Problem& problem) {
  if (plan.variant == Variant::Fft) return 0;  // held as each frame's spectrum
  return filter_device_bytes(problem.correlation_filter, plan.factors);
}

FrameBuffers PreparedVariant::make_frame() const {
  FrameBuffers frame;
  const std::size_t count = plane_ * problem_.channels;
  if (plan_.variant == Variant::Texture) {
    for (int c = 0; c < problem_.channels; ++c)
      frame.textures.emplace_back(problem_.width, problem_.height, problem_.border);
  } else {
    frame.input = DeviceBuffer(count);
  }
  frame.output = DeviceBuffer(count);
  if (plan_.variant == Variant::NppSeparable) frame.scratch = DeviceBuffer(plane_);
#ifdef CONVCOMPARE_WITH_CUFFT
  if (plan_.variant == Variant::Fft) frame.fft = std::make_unique<FftConvolver>(problem_, setup_stream_);
#endif
  return frame;
}

void PreparedVariant::upload(const FrameBuffers& frame, const float* host, cudaStream_t stream) const {
  if (frame.textures.empty()) {
    CC_CUDA_CHECK(cudaMemcpyAsync(frame.input.get(), host, frame.input.bytes(), cudaMemcpyHostToDevice, stream));
    return;
  }
  const std::size_t row_bytes = static_cast<std::size_t>(problem_.width) * sizeof(float);
  for (std::size_t c = 0; c < frame.textures.size(); ++c)
    CC_CUDA_CHECK(cudaMemcpy2DToArrayAsync(frame.textures[c].array(), 0, 0, host + c * plane_, row_bytes, row_bytes,
                                           static_cast<std::size_t>(problem_.height), cudaMemcpyHostToDevice, stream));
}

void PreparedVariant::download(const FrameBuffers& frame, float* host, cudaStream_t stream) const {
  CC_CUDA_CHECK(cudaMemcpyAsync(host, frame.output.get(), frame.output.bytes(), cudaMemcpyDeviceToHost, stream));
}

#ifdef CONVCOMPARE_WITH_NPP
const NppStreamContext& PreparedVariant::npp_context(cudaStream_t stream) const {
  auto found = npp_contexts_.find(stream);
  if (found == npp_contexts_.end()) found = npp_contexts_.emplace(stream, npp::make_stream_context(ordinal_, stream)).first;
  return found->second;
}
#endif

// One launch per plane (pitch = width), queued on the stream without waiting.
void PreparedVariant::launch(const FrameBuffers& frame, cudaStream_t stream) const {
  const ConvArgs& args = plan_.args;
  for (int c = 0; c < problem_.channels; ++c) {
    const float* in = frame.input.get() ? frame.input.get() + c * plane_ : nullptr;
    float* out = frame.output.get() + c * plane_;
    switch (plan_.variant) {
      case Variant::Global:
        CC_CUDA_CHECK(kernels::launch_global(in, out, filter_buffer_.get(), args, plan_.block, stream));
        break;
      case Variant::Constant: CC_CUDA_CHECK(kernels::launch_constant(in, out, args, plan_.block, stream)); break;
      case Variant::Tiled: CC_CUDA_CHECK(kernels::launch_tiled(in, out, args, plan_.block, stream)); break;
      case Variant::Texture:
        CC_CUDA_CHECK(kernels::launch_texture(frame.textures[c].texture(), out, args, plan_.block, stream));
        break;
#ifdef CONVCOMPARE_WITH_CUFFT
      case Variant::Fft: frame.fft->convolve_plane(in, out, stream); break;
#endif
      case Variant::Separable:
      case Variant::Fast: {
        ConvArgs plane_args = args;
        void* parameters[] = {&in, &out, &plane_args};
        CC_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(module_kernel_), module_grid_, plan_.block, parameters,
                                       plan_.shared_bytes, stream));
        break;
      }
#ifdef CONVCOMPARE_WITH_NPP
      case Variant::Npp: npp::filter_2d(in, out, args, filter_buffer_.get(), npp_context(stream)); break;
      case Variant::NppSeparable:
        npp::filter_separable(in, frame.scratch.get(), out, args, filter_buffer_.get(), column_filter_buffer_.get(),
                              npp_context(stream));
        break;
#endif
      default: break;
    }
  }
}

}  // namespace cuda

namespace {

// One variant on one device, timed as DESIGN.md section 4 and the OpenCL backend do: setup on the host
// clock; upload, every launch, the batch and the download in device events on one stream.
BackendRun run_planned(const Plan& plan, const Problem& problem, const Image& input, int ordinal,
                       const RunOptions& options) {
  CC_CUDA_CHECK(cudaSetDevice(ordinal));
  const std::size_t count = input.data.size();
  const std::size_t image_bytes = count * sizeof(float);

  // Untimed: the stream and the event pairs (one per timed launch is made after the warm-up).
  const cuda::Stream stream_owner = cuda::make_stream();
  const cudaStream_t stream = stream_owner.get();
  const cuda::EventPair batch_events = cuda::make_event_pair();
  const cuda::EventPair transfer_events = cuda::make_event_pair();

  // Setup, on the host clock: allocations (page-locked host buffers too, as the OpenCL backend's
  // mapped CL_MEM_ALLOC_HOST_PTR buffers are), filter upload, texture objects, the shared-memory opt-in.
  BackendRun run;
  run.device_bytes = cuda::filter_bytes(plan, problem) + cuda::frame_bytes(plan, problem);
  if (const std::size_t free_bytes = cuda::free_device_memory(); run.device_bytes > free_bytes)
    return skipped(fmt::format("needs {:.1f} MB, device has {:.1f} MB free", cuda::megabytes(run.device_bytes),
                               cuda::megabytes(free_bytes)));
  const Clock::time_point setup_start = Clock::now();
  const cuda::PreparedVariant variant(plan, problem, ordinal, stream);
  const cuda::FrameBuffers frame = variant.make_frame();
  if (frame.fft) run.device_bytes = 2 * image_bytes + frame.fft->device_bytes();  // with cuFFT's work area
  cuda::PinnedBuffer pinned_input, pinned_output;
  if (options.pinned) {
    pinned_input = cuda::PinnedBuffer(count);
    pinned_output = cuda::PinnedBuffer(count);
  }
  CC_CUDA_CHECK(cudaStreamSynchronize(stream));
  run.times.setup_ms = ms_since(setup_start);

  // Pinned: the transfers use the page-locked buffers; filling and emptying them is the
  // application's business, outside every timed bracket. Pageable: straight from and to the Images,
  // which makes the driver stage the pixels itself, inside the bracket: the honest pageable figure.
  Image output(input.width, input.height, input.channels, input.eight_bit);
  const float* upload_source = options.pinned ? pinned_input.get() : input.data.data();
  float* download_target = options.pinned ? pinned_output.get() : output.data.data();
  const auto upload = [&] { variant.upload(frame, upload_source, stream); };
  const auto launch = [&] { variant.launch(frame, stream); };
  const auto download = [&] { variant.download(frame, download_target, stream); };
  const auto synchronize = [&] { CC_CUDA_CHECK(cudaStreamSynchronize(stream)); };

  if (options.pinned) std::copy(input.data.begin(), input.data.end(), pinned_input.get());
  transfer_events.record_start(stream);
  upload();
  transfer_events.record_stop(stream);
  synchronize();
  run.times.h2d_ms = transfer_events.elapsed_ms();

  // The warm-up also says how many launches fit the time budget.
  const int timed = options.warm_up([&] {
    launch();
    synchronize();
  });
  // All-ones bytes are a NaN in every float: a pixel the timed launches never write fails validation.
  CC_CUDA_CHECK(cudaMemsetAsync(frame.output.get(), 0xFF, image_bytes, stream));
  synchronize();

  // One bracket per launch, all queued back to back: nothing waits between launches.
  std::vector<cuda::EventPair> launch_events;
  for (int i = 0; i < timed; ++i) launch_events.push_back(cuda::make_event_pair());
  for (const cuda::EventPair& events : launch_events) {
    events.record_start(stream);
    launch();
    events.record_stop(stream);
  }
  synchronize();
  std::vector<double> samples;
  for (const cuda::EventPair& events : launch_events) samples.push_back(events.elapsed_ms());
  run.times.kernel_ms = summarize(std::move(samples));

  batch_events.record_start(stream);
  for (int i = 0; i < timed; ++i) launch();
  batch_events.record_stop(stream);
  synchronize();
  run.times.kernel_batch_ms = batch_events.elapsed_ms() / timed;

  transfer_events.record_start(stream);
  download();
  transfer_events.record_stop(stream);
  synchronize();
  run.times.d2h_ms = transfer_events.elapsed_ms();
  if (options.pinned) std::copy(pinned_output.get(), pinned_output.get() + count, output.data.begin());

  // End to end on the host clock, what an application waits for: upload, one launch, download.
  const Clock::time_point round_trip_start = Clock::now();
  upload();
  launch();
  download();
  synchronize();
  run.times.host_to_host_ms = ms_since(round_trip_start);

  // Seed 000's reuse case: a second filtering of the image already on the device, no upload.
  const Clock::time_point reuse_start = Clock::now();
  launch();
  download();
  synchronize();
  run.times.reuse_ms = ms_since(reuse_start);

  run.status = Status::Ok;
  run.output = std::move(output);
  run.memory = options.pinned ? "pinned" : "pageable";
  run.compile_time = compile_time_text(plan.variant);
  if (plan.module) {
    run.compile_time = "radius: compile-time; NVRTC " + plan.module->options_text();
    run.times.build_ms = plan.module->build_ms();
  }
  if (plan.factors) run.extra_tolerance = separable_error_bound(problem.correlation_filter, *plan.factors, input);
  if (frame.fft) {
    const FftShape& shape = frame.fft->shape();
    run.compile_time += fmt::format("; cuFFT real-to-complex and back at {}", fft_shape_text(shape));
    run.fft_tolerance = true;
  }
  return run;
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
    for (const VariantName& entry : kVariantNames) names.emplace_back(entry.name);
    return names;
  }

  BackendRun run(const Problem& problem, const Image& input, std::string_view variant, int device,
                 const RunOptions& options) override {
    Plan plan;
    if (std::string reason = make_plan(plan, problem, variant, device); !reason.empty()) return skipped(std::move(reason));
    return run_planned(plan, problem, input, ordinals_[device], options);
  }

  StreamRun stream(const Problem& problem, const Image& input, std::string_view variant, int device, int frames,
                   const RunOptions& options) override {
    Plan plan;
    if (std::string reason = make_plan(plan, problem, variant, device); !reason.empty()) {
      StreamRun skip;
      skip.reason = std::move(reason);
      return skip;
    }
    return cuda::stream_planned(plan, problem, input, ordinals_[device], frames, options);
  }

  DevicePeaks measure_peaks(int device) override {
    discover();
    if (device < 0 || device >= static_cast<int>(devices_.size()))
      throw InputError(fmt::format("no CUDA device {} ({} found)", device, devices_.size()));
    if (auto found = peaks_.find(device); found != peaks_.end()) return found->second;
    return peaks_[device] = cuda::measure_peaks(ordinals_[device]);
  }

 private:
  // Fills `plan` for this variant on this device (compiling fast's or separable's module); returns why
  // the variant cannot run here, or "" when it can. Bad requests throw InputError.
  std::string make_plan(Plan& plan, const Problem& problem, std::string_view variant, int device) {
    discover();
    if (devices_.empty()) return reason_;
    if (device < 0 || device >= static_cast<int>(devices_.size()))
      throw InputError(fmt::format("no CUDA device {} ({} found)", device, devices_.size()));
    const std::optional<Variant> parsed = parse_variant(variant);
    if (!parsed) throw InputError(fmt::format("the cuda backend has no variant '{}' ({})", variant,
                                              fmt::join(variants(), ", ")));
    plan.variant = *parsed;
    if (std::string reason = plan_variant(plan, problem, properties_[device]); !reason.empty()) return reason;
    const ConvArgs& args = plan.args;
    if (plan.variant == Variant::Fast)
      plan.module =
          &runtime_module(ordinals_[device], "fast.cu", fast_defines(plan.fast, args.radius_x, args.radius_y));
    if (plan.variant == Variant::Separable)
      plan.module = &runtime_module(ordinals_[device], "separable.cu",
                                    separable_defines(plan.separable, args.radius_x, args.radius_y));
    return "";
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
      properties_.push_back(properties);
      ordinals_.push_back(ordinal);
    }
  }

  // An embedded kernel file (fast.cu, separable.cu) compiled by NVRTC with these -D options, once per
  // (file, device, options), as the OpenCL backend caches its programs: later runs report the first build's time.
  const cuda::RuntimeModule& runtime_module(int ordinal, const std::string& file,
                                            const std::vector<std::string>& defines) {
    auto& module = runtime_modules_[{file, ordinal, defines}];
    if (!module) {
      CC_CUDA_CHECK(cudaSetDevice(ordinal));
      const auto& sources = embedded_cuda_sources();
      const cuda::RuntimeSource source{
          file, embedded_source(sources, file), {{"common/geometry/conv_args.h", embedded_source(sources, "conv_args.h")}}};
      module = std::make_unique<cuda::RuntimeModule>(source, defines);
    }
    return *module;
  }

  std::map<std::tuple<std::string, int, std::vector<std::string>>, std::unique_ptr<cuda::RuntimeModule>>
      runtime_modules_;
  std::map<int, DevicePeaks> peaks_;  // measured once per device
  bool discovered_ = false;
  std::vector<DeviceInfo> devices_;
  std::vector<cudaDeviceProp> properties_;  // parallel to devices_
  std::vector<int> ordinals_;               // CUDA device number of each entry of devices_
  std::string reason_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace cc
