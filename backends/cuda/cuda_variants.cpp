// cuda_variants.cpp: CUDA's generic variant of the described kernels, and its library variants (cuFFT, NPP), over CUDA's frame in the one frame loop.
#include "backends/cuda/cuda_variants.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_fft.h"
#include "backends/cuda/cuda_frame.h"
#include "backends/cuda/cuda_peer.h"
#include "backends/cuda/cuda_resources.h"
#include "backends/cuda/tensor_map.h"
#include "backends/described_variant.h"
#include "backends/frame_variant.h"
#include "backends/split_session.h"
#include "common/domain/variants.h"
#include "common/geometry/pixel_format.h"
#include "kernels_cuda/launchers.h"
#ifdef CONVCOMPARE_WITH_NPP
#include "backends/npp/eight_bit_passes.h"
#include "backends/npp/npp_baseline.h"
#endif

namespace cc::cuda {

const cuda_kernels::OfflineKernel& offline_kernel_of(const KernelDescription& description, const Problem& problem) {
  const std::string entry(description.entry);
  const cuda_kernels::OfflineKernel* kernel = cuda_kernels::find_offline_kernel(pixel_format(problem), entry);
  if (!kernel) throw std::logic_error("no offline CUDA kernel " + entry + " (kernels_cuda/launchers.h)");
  return *kernel;
}

std::string lacks_compute_90(const cuda_kernels::OfflineKernel& kernel, std::string_view needs) {
  cudaFuncAttributes attributes{};
  CC_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel.function));
  if (attributes.ptxVersion >= 90) return "";
  return fmt::format("{} code for compute_90 or later; this build's {} is compute_{} (CMAKE_CUDA_ARCHITECTURES)", needs,
                     kernel.entry, attributes.ptxVersion);
}

namespace {

namespace kernels = cuda_kernels;

// A frame unit as the float kernels take it.
const float* as_floats(const void* unit) { return static_cast<const float*>(unit); }
float* as_floats(void* unit) { return static_cast<float*>(unit); }

// `values` in a new device buffer, copied on `stream`.
DeviceBuffer upload_floats(const std::vector<float>& values, cudaStream_t stream) {
  DeviceBuffer buffer(values.size());
  CC_CUDA_CHECK(cudaMemcpyAsync(buffer.get(), values.data(), buffer.bytes(), cudaMemcpyHostToDevice, stream));
  return buffer;
}

// What every CUDA variant shares over the one frame loop (backends/frame_variant.h): an API variant adds
// its filter setup (constructor) and its launch of one unit.
class CudaVariant : public FrameVariant<CudaFrame, CudaQueue>, public PeerRows {
 public:
  CudaVariant(const ApiVariantSetup& setup, cudaStream_t stream)
      : FrameVariant(setup.plan, setup.problem), setup_stream_(stream), format_(pixel_format(setup.problem)) {
    int concurrent = 0;
    CC_CUDA_CHECK(cudaGetDevice(&ordinal_));
    CC_CUDA_CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, ordinal_));
    prefetches_ = concurrent != 0;
  }

  // --split's halo exchange (backends/split_session.h, cuda_peer.h): input buffers, not textures' arrays.
  std::string peer_refusal(const PreparedVariant& source) const override {
    const auto* other = dynamic_cast<const CudaVariant*>(&source);
    const bool buffers = other && !plan_.variant->input_as_image && !other->plan_.variant->input_as_image;
    return buffers ? peer_refusal_between(ordinal_, other->ordinal_) : "a texture's input is a CUDA array, which cudaMemcpyPeerAsync does not reach";
  }
  void copy_rows_from(DeviceFrame& frame, DeviceQueue& queue, const DeviceFrame& source, DeviceQueue& source_queue,
                      const RowCopy& copy) const override {
    const auto &to = static_cast<CudaFrame&>(frame), &from = static_cast<const CudaFrame&>(source);
    const std::size_t row = layout_.unit_bytes / static_cast<std::size_t>(problem_.height);
    for (int unit = 0; unit < layout_.units; ++unit)
      copy_peer(static_cast<CudaQueue&>(queue), to.input->at(unit) + row * copy.to, to.memory.ordinal,
                static_cast<CudaQueue&>(source_queue), from.input->at(unit) + row * copy.from, from.memory.ordinal,
                row * copy.rows);
  }

 protected:
  // On the current device, as the frame's memory is allocated.
  std::unique_ptr<CudaFrame> new_frame() const final {
    CudaMemory memory{.prefetches = prefetches_, .width = problem_.width, .height = problem_.height,
                      .row_bytes = layout_.unit_bytes / static_cast<std::size_t>(problem_.height),
                      .border = problem_.border, .format = format_};
    CC_CUDA_CHECK(cudaGetDevice(&memory.ordinal));
    return std::make_unique<CudaFrame>(memory, layout_, plan_, problem_.height);
  }
  // Mapped frames have no upload or download command; managed ones without prefetch neither, and
  // managed-faults' hand-back to the host is no transfer to the kernel: its faults are in the kernel's span.
  bool handover_is_command() const final {
    return copies_frames(plan_.memory) || (plan_.memory == HostMemory::Managed && prefetches_);
  }
  DeviceBuffer upload_buffer(const std::vector<float>& values) const { return upload_floats(values, setup_stream_); }

  int ordinal_ = 0;  // the device this variant was set up on
  cudaStream_t setup_stream_;  // filter uploads; fft: each frame's filter spectrum
  bool prefetches_ = false;  // managed memory may be prefetched here (concurrentManagedAccess)
  int format_;  // the frame's pixel format (common/geometry/pixel.h): which kernels read it
};

// A library's variant (fft, npp), handed each unit's input and output where they are.
class PlaneVariant : public CudaVariant {
 public:
  using CudaVariant::CudaVariant;

 protected:
  void launch_unit(CudaFrame& frame, int unit, CudaQueue& queue) const final {
    launch_plane(frame, unit, frame.input_at(unit), frame.output->at(unit), queue.stream());
  }
  // One unit of the frame (a float plane, or the 8-bit image): `in` is null when the input is a
  // texture (frame.images[unit]).
  virtual void launch_plane(CudaFrame& frame, int unit, const void* in, void* out, cudaStream_t stream) const = 0;
};

// An API variant's prepare (backends/api_variant.h): the setup is CUDA's, the queue a CudaQueue.
template <typename Variant>
std::unique_ptr<PreparedVariant> prepare(const VariantSetup& setup, DeviceQueue& queue) {
  return std::make_unique<Variant>(static_cast<const ApiVariantSetup&>(setup), static_cast<CudaQueue&>(queue).stream());
}

// A launch in thread-block clusters (LaunchPlan::cluster): cudaLaunchKernel's grid, block and dynamic
// shared memory, and the cluster's shape as a launch attribute, which `attribute` holds for the config.
cudaLaunchConfig_t cluster_launch_config(const LaunchPlan& plan, cudaStream_t stream, cudaLaunchAttribute& attribute) {
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = static_cast<unsigned>(plan.cluster->x);
  attribute.val.clusterDim.y = static_cast<unsigned>(plan.cluster->y);
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(plan.groups.x, plan.groups.y);
  config.blockDim = dim3(plan.group.x, plan.group.y);
  config.dynamicSmemBytes = plan.on_chip_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return config;
}

// What a cluster variant's plan still needs of this build and device (the plan checked compute
// capability: DeviceLimits::missing[Capability::Clusters]): its kernel compiled for compute_90 or later, since
// CMAKE_CUDA_ARCHITECTURES may name only older targets, whose copy is empty (kernels_cuda/cluster.cu);
// and one cluster of the plan's shape, blocks and shared memory placed on the device at once, without
// which the launch fails (cudaOccupancyMaxActiveClusters).
std::string cluster_declines(const ApiVariant& variant, const LaunchPlan& plan, const Problem& problem) {
  const kernels::OfflineKernel* kernel = &offline_kernel_of(*variant.description, problem);
  if (std::string reason = lacks_compute_90(*kernel, "thread-block clusters need"); !reason.empty())
    return reason;
  // The occupancy counts the dynamic shared memory only up to what the kernel is allowed (DescribedVariant
  // sets the same before it launches).
  CC_CUDA_CHECK(cudaFuncSetAttribute(kernel->function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(plan.on_chip_bytes)));
  cudaLaunchAttribute attribute{};
  const cudaLaunchConfig_t config = cluster_launch_config(plan, nullptr, attribute);
  int clusters = 0;
  CC_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel->function, &config));
  if (clusters > 0) return "";
  return fmt::format("no cluster of {}x{} blocks of {}x{} threads and {} bytes of shared memory each fits on the "
                     "device at once (cudaOccupancyMaxActiveClusters is 0)", plan.cluster->x, plan.cluster->y,
                     plan.group.x, plan.group.y, plan.on_chip_bytes);
}

// --- every variant but fft and npp: our kernels, as their lines of the variant table describe them, through
// the one generic variant (backends/described_variant.h) over CUDA's kernel --------------------------------
// A described kernel as CUDA launches it, whichever way it was built: nvcc's offline table for the frame's
// pixel format or the plan's NVRTC module gives a function and its __constant__ symbols; a filter goes to
// those symbols where the variant table says filter_in_constant, else to a buffer argument; the launch is
// cudaLaunchKernel over the plan's grid and block with the plan's on-chip bytes as dynamic shared memory
// (0 where the kernel has no tile), opted in above the device's default; cudaLaunchKernelExC with the
// cluster's shape where the plan has one (LaunchPlan::cluster); a tensor map of the unit's input where the
// description has one (ArgRole::TensorMap: the tma variant, backends/cuda/tensor_map.h).
class CudaKernel {
 public:
  // A filter role's upload: in the kernel's __constant__ symbol (no argument), or a buffer argument.
  struct Filter {
    DeviceBuffer buffer;
    bool in_constant = false;
  };

  // One launch's parameters in the kernel's order, each value in a slot of its own: cudaLaunchKernel
  // takes pointers to them. A filter in constant memory and the tile are no parameter.
  class Arguments {
   public:
    explicit Arguments(int format) : format_(format) {}
    void input(const CudaFrame& frame, int unit) { add(static_cast<const void*>(frame.input_at(unit))); }
    void image(const CudaFrame& frame, int unit) { add(frame.images[static_cast<std::size_t>(unit)].texture()); }
    void output(const CudaFrame& frame, int unit) { add(static_cast<void*>(frame.output->at(unit))); }
    void tensor_map(const CudaFrame& frame, int unit, const LaunchPlan& plan) {
      add(tile_tensor_map(frame.input_at(unit), plan, format_));
    }
    void filter(const Filter& filter) {
      if (!filter.in_constant) add(static_cast<const float*>(filter.buffer.get()));
    }
    void value(const ConvArgs& args) { add(args); }
    void local_bytes(std::size_t) {}  // every launch passes the plan's on-chip bytes as dynamic shared memory
    void** parameters() { return pointers_.data(); }

   private:
    template <typename Value>
    void add(const Value& value) {
      static_assert(sizeof(Value) <= sizeof(Slot) && alignof(Value) <= alignof(Slot) &&
                    std::is_trivially_copyable_v<Value>);
      std::memcpy(slots_[count_].bytes, &value, sizeof(Value));
      pointers_[count_] = slots_[count_].bytes;
      ++count_;
    }
    struct alignas(alignof(CUtensorMap)) Slot {  // the largest parameter's size and alignment
      std::byte bytes[sizeof(CUtensorMap)];
    };
    int format_;
    std::array<Slot, ArgRoles::kMax> slots_;
    std::array<void*, ArgRoles::kMax> pointers_{};
    std::size_t count_ = 0;
  };

  explicit CudaKernel(const ApiVariantSetup& setup)
      : module_(setup.module), format_(pixel_format(setup.problem)), entry_(setup.description->entry) {
    if (module_) {
      function_ = reinterpret_cast<const void*>(module_->kernel(entry_.c_str()));  // cudaKernel_t passes as one
    } else {
      offline_ = &offline_kernel_of(*setup.description, setup.problem);
      function_ = offline_->function;
    }
    if (setup.plan.on_chip_bytes > setup.limits.on_chip_default) allow_shared_bytes(setup.plan.on_chip_bytes);
  }

  Filter upload_filter(const char* symbol, const std::vector<float>& values, bool in_constant, cudaStream_t stream) const {
    if (!in_constant) return {upload_floats(values, stream), false};
    upload_symbol(symbol, values, stream);
    return {{}, true};
  }

  Arguments bind(CudaFrame&, int, CudaQueue&) const { return Arguments(format_); }

  void launch(Arguments& arguments, const LaunchPlan& plan, CudaQueue& queue) const {
    if (plan.cluster) {
      cudaLaunchAttribute attribute{};
      const cudaLaunchConfig_t config = cluster_launch_config(plan, queue.stream(), attribute);
      CC_CUDA_CHECK(cudaLaunchKernelExC(&config, function_, arguments.parameters()));
    } else {
      CC_CUDA_CHECK(cudaLaunchKernel(function_, dim3(plan.groups.x, plan.groups.y), dim3(plan.group.x, plan.group.y),
                                     arguments.parameters(), plan.on_chip_bytes, queue.stream()));
    }
  }

 private:
  // A __constant__ array of the kernel's module or offline file, filled on the setup stream.
  void upload_symbol(const char* name, const std::vector<float>& values, cudaStream_t stream) const {
    void* symbol = nullptr;
    std::size_t symbol_bytes = 0;
    if (module_) {
      symbol = module_->global(name, &symbol_bytes);
    } else {
      if (!offline_->filter_symbol || std::string_view(name) != "c_filter")
        throw std::logic_error(entry_ + "'s file has no " + name);
      CC_CUDA_CHECK(cudaGetSymbolAddress(&symbol, offline_->filter_symbol));
      CC_CUDA_CHECK(cudaGetSymbolSize(&symbol_bytes, offline_->filter_symbol));
    }
    const std::size_t bytes = values.size() * sizeof(float);
    if (bytes > symbol_bytes) CC_CUDA_CHECK(cudaErrorInvalidValue);  // the plan checked constant_bytes
    CC_CUDA_CHECK(cudaMemcpyAsync(symbol, values.data(), bytes, cudaMemcpyHostToDevice, stream));
  }

  // Above 48 KB a block gets dynamic shared memory only after opting in, up to the device's limit.
  void allow_shared_bytes(std::size_t bytes) const {
    if (module_) {
      int device = 0;
      CC_CUDA_CHECK(cudaGetDevice(&device));
      CC_CUDA_CHECK(cudaKernelSetAttributeForDevice(module_->kernel(entry_.c_str()),
                                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                    static_cast<int>(bytes), device));
    } else {
      CC_CUDA_CHECK(cudaFuncSetAttribute(function_, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
    }
  }

  const RuntimeModule* module_;                      // NVRTC's build, or null
  int format_;                                       // the frame's pixel format: which offline kernel
  std::string entry_;                                // the kernel's name (the description's entry)
  const kernels::OfflineKernel* offline_ = nullptr;  // nvcc's, for the frame's pixel format
  const void* function_ = nullptr;
};

using CudaDescribedVariant = DescribedVariant<CudaVariant, CudaKernel>;

#ifdef CONVCOMPARE_WITH_CUFFT
// --- fft: cuFFT transforms, each frame its own convolver (plans, buffers, the filter's spectrum) ------
class FftVariant final : public PlaneVariant {
 public:
  using PlaneVariant::PlaneVariant;

 private:
  void add_to_frame(CudaFrame& frame) const override {
    frame.fft = std::make_unique<FftConvolver>(problem_, setup_stream_);
  }
  std::size_t library_bytes(const CudaFrame& frame) const override { return frame.fft->library_bytes(); }
  void launch_plane(CudaFrame& frame, int, const void* in, void* out, cudaStream_t stream) const override {
    frame.fft->convolve_plane(as_floats(in), as_floats(out), stream);
  }
};
#endif

#ifdef CONVCOMPARE_WITH_NPP
// --- npp, npp-separable: the vendor's filters, coefficients reversed as NPP reads them --------------
// A frame unit as NPP's 8-bit filters take it.
const unsigned char* as_bytes(const void* unit) { return static_cast<const unsigned char*>(unit); }
unsigned char* as_bytes(void* unit) { return static_cast<unsigned char*>(unit); }

// NPP takes its stream in a context: one per stream launched on, made on first use.
class NppVariant : public PlaneVariant {
 public:
  using PlaneVariant::PlaneVariant;

 protected:
  const NppStreamContext& context(cudaStream_t stream) const {
    auto found = contexts_.find(stream);
    if (found == contexts_.end()) {
      int device = 0;
      CC_CUDA_CHECK(cudaGetDevice(&device));
      found = contexts_.emplace(stream, npp::make_stream_context(device, stream)).first;
    }
    return found->second;
  }

 private:
  mutable std::map<cudaStream_t, NppStreamContext> contexts_;
};

class Npp2dVariant final : public NppVariant {
 public:
  Npp2dVariant(const ApiVariantSetup& setup, cudaStream_t stream)
      : NppVariant(setup, stream), reversed_(npp::reversed(weights())), filter_(upload_buffer(reversed_)) {}

 private:
  void launch_plane(CudaFrame&, int, const void* in, void* out, cudaStream_t stream) const override {
    if (format_ == CC_PIXEL_F32)
      npp::filter_2d(as_floats(in), as_floats(out), plan_.args, filter_.get(), context(stream));
    else
      npp::filter_2d(as_bytes(in), as_bytes(out), layout_.device_channels, plan_.args, filter_.get(), context(stream));
  }
  std::vector<float> reversed_;  // the upload's source, alive until the setup stream has run it
  DeviceBuffer filter_;
};

// Float planes: the row pass, then the column pass, as the factors are. 8-bit: the order and scale of
// eight_bit_passes, since NPP stores the first pass as 8-bit (the plan declined filters it cannot take).
class NppSeparableVariant final : public NppVariant {
 public:
  NppSeparableVariant(const ApiVariantSetup& setup, cudaStream_t stream)
      : NppVariant(setup, stream),
        passes_(format_ == CC_PIXEL_F32 ? npp::EightBitPasses{false, plan_.factors->row, plan_.factors->column}
                                        : *npp::eight_bit_passes(*plan_.factors)),
        reversed_first_(npp::reversed(passes_.first)),
        reversed_second_(npp::reversed(passes_.second)),
        first_(upload_buffer(reversed_first_)),
        second_(upload_buffer(reversed_second_)) {}

 private:
  void launch_plane(CudaFrame& frame, int, const void* in, void* out, cudaStream_t stream) const override {
    if (format_ == CC_PIXEL_F32)
      npp::filter_separable(as_floats(in), frame.scratch.get(), as_floats(out), plan_.args, first_.get(),
                            second_.get(), context(stream));
    else
      npp::filter_separable(as_bytes(in), as_bytes(frame.scratch.get()), as_bytes(out), layout_.device_channels,
                            plan_.args, passes_.column_first, first_.get(), second_.get(), context(stream));
  }
  npp::EightBitPasses passes_;
  std::vector<float> reversed_first_, reversed_second_;  // the uploads' sources, alive until they have run
  DeviceBuffer first_, second_;
};

// npp-separable declines an 8-bit problem whose factors both have negative weights (eight_bit_passes.h).
std::string npp_separable_declines(const ApiVariant&, const LaunchPlan& plan, const Problem& problem) {
  if (problem.pixel == PixelType::F32 || npp::eight_bit_passes(*plan.factors)) return "";
  return std::string(npp::kNoEightBitPasses);
}
#endif

#ifdef CONVCOMPARE_WITH_CUFFT
constexpr PrepareVariantFn kFft = &prepare<FftVariant>;
constexpr std::string_view kNoFft = "";
#else
constexpr PrepareVariantFn kFft = nullptr;
constexpr std::string_view kNoFft = "cuFFT not found at build time";
#endif
#ifdef CONVCOMPARE_WITH_NPP
constexpr PrepareVariantFn kNpp = &prepare<Npp2dVariant>;
constexpr PrepareVariantFn kNppSeparable = &prepare<NppSeparableVariant>;
constexpr DeclinesFn kNppSeparableDeclines = &npp_separable_declines;
constexpr std::string_view kNoNpp = "";
#else
constexpr PrepareVariantFn kNpp = nullptr;
constexpr PrepareVariantFn kNppSeparable = nullptr;
constexpr DeclinesFn kNppSeparableDeclines = nullptr;
constexpr std::string_view kNoNpp = "NPP not found at build time";
#endif

// The API's own variants, where a library does the work; every other variant of the table is a
// DescribedVariant.
constexpr LibraryVariant kLibraryVariants[] = {
    {.variant = "fft", .prepare = kFft, .missing = kNoFft},
    {.variant = "npp", .prepare = kNpp, .missing = kNoNpp},
    {.variant = "npp-separable", .prepare = kNppSeparable, .missing = kNoNpp, .declines = kNppSeparableDeclines},
};

// What a described variant's table line asks of the build and device beyond the plan: sm_90 code and room
// for a cluster, or a tensor map's alignment (tensor_map.h).
DeclinesFn described_declines(const VariantTraits& variant) {
  return variant.needs.has(Capability::Clusters)     ? &cluster_declines
         : variant.needs.has(Capability::TensorMaps) ? &tensor_map_declines
                                                     : nullptr;
}

}  // namespace

std::span<const ApiVariant> api_variants() {
  static const std::vector<ApiVariant> made =
      make_api_variants("cuda", {&prepare<CudaDescribedVariant>, &described_declines}, kLibraryVariants);
  return made;
}

}  // namespace cc::cuda
