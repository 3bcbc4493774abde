// cuda_launchers.cpp: one launcher per CUDA variant (its filter upload and its launch per plane) over CUDA's frame in the one frame loop.
#include "backends/cuda/cuda_launchers.h"

#include <map>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_fft.h"
#include "backends/cuda/cuda_resources.h"
#include "backends/frame_variant.h"
#include "common/geometry/pixel_format.h"
#include "kernels_cuda/launchers.h"
#ifdef CONVCOMPARE_WITH_NPP
#include "backends/npp/eight_bit_passes.h"
#include "backends/npp/npp_baseline.h"
#endif

namespace cc::cuda {

namespace {

namespace kernels = cuda_kernels;

// A frame unit as the float kernels take it.
const float* as_floats(const void* unit) { return static_cast<const float*>(unit); }
float* as_floats(void* unit) { return static_cast<float*>(unit); }

std::size_t floats_for(std::size_t bytes) { return (bytes + sizeof(float) - 1) / sizeof(float); }

// One frame's device memory: every unit of the input (FrameLayout: a plane of floats, or the 8-bit
// interleaved image; a buffer, or one texture per unit), of the output, the variant's scratch planes,
// and fft's buffers, plans and work area (a frame's own, so that frames in flight on different streams
// share none of them). How a unit crosses is here; the loop over units is FrameVariant's.
struct CudaFrame final : DeviceFrame {
  CudaFrame(const FrameLayout& layout, const LaunchPlan& plan, const Problem& problem, int format)
      : layout(layout), height(static_cast<std::size_t>(problem.height)) {
    if (plan.variant->input_as_image) {
      for (int unit = 0; unit < layout.units; ++unit)
        textures.emplace_back(problem.width, problem.height, problem.border, texel_format(format));
    } else {
      input = DeviceBuffer(floats_for(layout.bytes()));
    }
    output = DeviceBuffer(floats_for(layout.bytes()));
    if (plan.variant->scratch_planes > 0) scratch = DeviceBuffer(floats_for(plan.variant->scratch_planes * layout.unit_bytes));
  }

  void write(int unit, const std::byte* host, CudaQueue& queue) {
    const std::size_t row_bytes = layout.unit_bytes / height;
    if (textures.empty())
      CC_CUDA_CHECK(cudaMemcpyAsync(unit_of(input, unit), host, layout.unit_bytes, cudaMemcpyHostToDevice, queue.stream()));
    else
      CC_CUDA_CHECK(cudaMemcpy2DToArrayAsync(textures[unit].array(), 0, 0, host, row_bytes, row_bytes, height,
                                             cudaMemcpyHostToDevice, queue.stream()));
  }
  void read(int unit, std::byte* host, CudaQueue& queue) const {
    CC_CUDA_CHECK(cudaMemcpyAsync(host, unit_of(output, unit), layout.unit_bytes, cudaMemcpyDeviceToHost, queue.stream()));
  }
  void fill(unsigned char byte, CudaQueue& queue) {
    CC_CUDA_CHECK(cudaMemsetAsync(output.get(), byte, layout.bytes(), queue.stream()));
  }
  std::byte* unit_of(const DeviceBuffer& buffer, int unit) const {
    return reinterpret_cast<std::byte*>(buffer.get()) + unit * layout.unit_bytes;
  }

  FrameLayout layout;
  std::size_t height;
  DeviceBuffer input, output, scratch;
  std::vector<TextureImage> textures;
#ifdef CONVCOMPARE_WITH_CUFFT
  std::unique_ptr<FftConvolver> fft;
#endif
};

// What every CUDA variant shares over the one frame loop (backends/frame_variant.h): a launcher adds
// its filter setup (constructor) and its launch of one plane.
class CudaVariant : public FrameVariant<CudaFrame, CudaQueue> {
 public:
  CudaVariant(const LauncherSetup& setup, cudaStream_t stream)
      : FrameVariant(setup.plan, setup.problem), limits_(setup.limits), setup_stream_(stream),
        format_(pixel_format(setup.problem)) {}

 protected:
  std::unique_ptr<CudaFrame> new_frame() const final {
    return std::make_unique<CudaFrame>(layout_, plan_, problem_, format_);
  }
  void launch_unit(CudaFrame& frame, int unit, CudaQueue& queue) const final {
    const void* in = frame.input.get() ? frame.unit_of(frame.input, unit) : nullptr;
    launch_plane(frame, unit, in, frame.unit_of(frame.output, unit), queue.stream());
  }
  // One unit of the frame (a float plane, or the 8-bit image): `in` is null when the input is a
  // texture (frame.textures[unit]).
  virtual void launch_plane(CudaFrame& frame, int unit, const void* in, void* out, cudaStream_t stream) const = 0;

  dim3 block() const { return dim3(plan_.group.x, plan_.group.y); }
  DeviceBuffer upload_buffer(const std::vector<float>& values) const {
    DeviceBuffer buffer(values.size());
    CC_CUDA_CHECK(cudaMemcpyAsync(buffer.get(), values.data(), buffer.bytes(), cudaMemcpyHostToDevice, setup_stream_));
    return buffer;
  }

  const DeviceLimits& limits_;
  cudaStream_t setup_stream_;  // filter uploads; fft: each frame's filter spectrum
  int format_;  // the frame's pixel format (common/geometry/pixel.h): which kernels read it
};

template <typename Variant>
std::unique_ptr<PreparedVariant> prepare(const LauncherSetup& setup, cudaStream_t stream) {
  return std::make_unique<Variant>(setup, stream);
}

// global, constant, tiled and texture run the kernel files compiled for the frame's pixel format, each
// unit handed over as it is (kernels_cuda/launchers.h's PixelKernels).

// --- global: image and filter in global memory ------------------------------------------------------
class GlobalVariant final : public CudaVariant {
 public:
  GlobalVariant(const LauncherSetup& setup, cudaStream_t stream)
      : CudaVariant(setup, stream), kernels_(kernels::pixel_kernels(format_)), filter_(upload_buffer(weights())) {}

 private:
  void launch_plane(CudaFrame&, int, const void* in, void* out, cudaStream_t stream) const override {
    CC_CUDA_CHECK(kernels_.launch_global(in, out, filter_.get(), plan_.args, block(), stream));
  }
  const kernels::PixelKernels& kernels_;
  DeviceBuffer filter_;
};

// --- constant: the filter in the module's __constant__ bank -----------------------------------------
class ConstantVariant final : public CudaVariant {
 public:
  ConstantVariant(const LauncherSetup& setup, cudaStream_t stream)
      : CudaVariant(setup, stream), kernels_(kernels::pixel_kernels(format_)) {
    CC_CUDA_CHECK(kernels_.upload_constant_filter(weights().data(), problem_.correlation_filter.taps(), stream));
  }

 private:
  void launch_plane(CudaFrame&, int, const void* in, void* out, cudaStream_t stream) const override {
    CC_CUDA_CHECK(kernels_.launch_constant(in, out, plan_.args, block(), stream));
  }
  const kernels::PixelKernels& kernels_;
};

// --- tiled: the tile and apron in shared memory, opting in beyond the default 48 KB ----------------
class TiledVariant final : public CudaVariant {
 public:
  TiledVariant(const LauncherSetup& setup, cudaStream_t stream)
      : CudaVariant(setup, stream), kernels_(kernels::pixel_kernels(format_)) {
    CC_CUDA_CHECK(kernels_.upload_tiled_filter(weights().data(), problem_.correlation_filter.taps(), stream));
    if (plan_.on_chip_bytes > limits_.on_chip_default) CC_CUDA_CHECK(kernels_.prepare_tiled(plan_.on_chip_bytes));
  }

 private:
  void launch_plane(CudaFrame&, int, const void* in, void* out, cudaStream_t stream) const override {
    CC_CUDA_CHECK(kernels_.launch_tiled(in, out, plan_.args, block(), stream));
  }
  const kernels::PixelKernels& kernels_;
};

// --- texture: each unit a cudaArray (texel_format) read through a texture object -----------------------
class TextureVariant final : public CudaVariant {
 public:
  TextureVariant(const LauncherSetup& setup, cudaStream_t stream)
      : CudaVariant(setup, stream), kernels_(kernels::pixel_kernels(format_)) {
    CC_CUDA_CHECK(kernels_.upload_texture_filter(weights().data(), problem_.correlation_filter.taps(), stream));
  }

 private:
  void launch_plane(CudaFrame& frame, int unit, const void*, void* out, cudaStream_t stream) const override {
    CC_CUDA_CHECK(kernels_.launch_texture(frame.textures[unit].texture(), out, plan_.args, block(), stream));
  }
  const kernels::PixelKernels& kernels_;
};

// --- fast and separable: NVRTC modules built for the radius, coefficients in module symbols ---------
// The kernel is "convolve_<variant>"; `symbols` names each __constant__ array and the weights it gets.
class ModuleVariant : public CudaVariant {
 public:
  ModuleVariant(const LauncherSetup& setup, cudaStream_t stream,
                std::initializer_list<std::pair<const char*, const std::vector<float>*>> symbols)
      : CudaVariant(setup, stream), module_(*setup.module) {
    kernel_ = module_.kernel(("convolve_" + std::string(plan_.variant->name)).c_str());
    for (const auto& [name, values] : symbols) {
      std::size_t symbol_bytes = 0;
      void* symbol = module_.global(name, &symbol_bytes);
      CC_CUDA_CHECK(cudaMemcpyAsync(symbol, values->data(), symbol_bytes, cudaMemcpyHostToDevice, stream));
    }
    if (plan_.on_chip_bytes > limits_.on_chip_default) {
      int device = 0;
      CC_CUDA_CHECK(cudaGetDevice(&device));
      CC_CUDA_CHECK(cudaKernelSetAttributeForDevice(kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                    static_cast<int>(plan_.on_chip_bytes), device));
    }
  }

 private:
  void launch_plane(CudaFrame&, int, const void* in, void* out, cudaStream_t stream) const override {
    ConvArgs args = plan_.args;
    void* parameters[] = {&in, &out, &args};
    CC_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), dim3(plan_.groups.x, plan_.groups.y),
                                   block(), parameters, plan_.on_chip_bytes, stream));
  }
  const RuntimeModule& module_;
  cudaKernel_t kernel_ = nullptr;
};

class FastVariant final : public ModuleVariant {
 public:
  FastVariant(const LauncherSetup& setup, cudaStream_t stream)
      : ModuleVariant(setup, stream, {{"c_filter", &setup.problem.correlation_filter.weights}}) {}
};

class SeparableVariant final : public ModuleVariant {
 public:
  SeparableVariant(const LauncherSetup& setup, cudaStream_t stream)
      : ModuleVariant(setup, stream,
                      {{"c_row_filter", &setup.plan.factors->row}, {"c_column_filter", &setup.plan.factors->column}}) {}
};

#ifdef CONVCOMPARE_WITH_CUFFT
// --- fft: cuFFT transforms, each frame its own convolver (plans, buffers, the filter's spectrum) ------
class FftVariant final : public CudaVariant {
 public:
  using CudaVariant::CudaVariant;

 private:
  void add_to_frame(CudaFrame& frame) const override {
    frame.fft = std::make_unique<FftConvolver>(problem_, setup_stream_);
  }
  std::size_t library_bytes(const CudaFrame& frame) const override { return frame.fft->work_area_bytes(); }
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
class NppVariant : public CudaVariant {
 public:
  using CudaVariant::CudaVariant;

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
  Npp2dVariant(const LauncherSetup& setup, cudaStream_t stream)
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
  NppSeparableVariant(const LauncherSetup& setup, cudaStream_t stream)
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
std::string npp_separable_declines(const LaunchPlan& plan, const Problem& problem) {
  if (problem.pixel == PixelType::F32 || npp::eight_bit_passes(*plan.factors)) return "";
  return std::string(npp::kNoEightBitPasses);
}
#endif

#ifdef CONVCOMPARE_WITH_CUFFT
constexpr auto kFft = &prepare<FftVariant>;
constexpr std::string_view kNoFft = "";
#else
constexpr std::unique_ptr<PreparedVariant> (*kFft)(const LauncherSetup&, cudaStream_t) = nullptr;
constexpr std::string_view kNoFft = "cuFFT not found at build time";
#endif
#ifdef CONVCOMPARE_WITH_NPP
constexpr auto kNpp = &prepare<Npp2dVariant>;
constexpr auto kNppSeparable = &prepare<NppSeparableVariant>;
constexpr auto kNppSeparableDeclines = &npp_separable_declines;
constexpr std::string_view kNoNpp = "";
#else
constexpr std::unique_ptr<PreparedVariant> (*kNpp)(const LauncherSetup&, cudaStream_t) = nullptr;
constexpr auto kNppSeparable = kNpp;
constexpr std::string (*kNppSeparableDeclines)(const LaunchPlan&, const Problem&) = nullptr;
constexpr std::string_view kNoNpp = "NPP not found at build time";
#endif

constexpr Launcher kLaunchers[] = {
    {"global", &prepare<GlobalVariant>, ""},
    {"constant", &prepare<ConstantVariant>, ""},
    {"tiled", &prepare<TiledVariant>, ""},
    {"texture", &prepare<TextureVariant>, ""},
    {"separable", &prepare<SeparableVariant>, ""},
    {"fft", kFft, kNoFft},
    {"fast", &prepare<FastVariant>, ""},
    {"npp", kNpp, kNoNpp},
    {"npp-separable", kNppSeparable, kNoNpp, kNppSeparableDeclines},
};

}  // namespace

std::span<const Launcher> launchers() { return kLaunchers; }

}  // namespace cc::cuda
