// opencl_variants.cpp: OpenCL's generic variant of the described kernels, and its library variant (VkFFT), over OpenCL's frame in the one frame loop, with --split's halo copies within one context.
#include "backends/opencl/opencl_variants.h"

#include <stdexcept>
#include <string>

#include "backends/described_variant.h"
#include "backends/frame_variant.h"
#include "backends/opencl/cl_api.h"
#include "backends/opencl/cl_check.h"
#include "backends/opencl/cl_frame.h"
#include "backends/split_session.h"
#include "common/domain/variants.h"
#include "common/geometry/pixel_format.h"

namespace cc::opencl {

namespace {

// `values` in a new read-only buffer of `context`, written on `queue`.
cl::Buffer upload_floats(const cl::Context& context, const cl::CommandQueue& queue, const std::vector<float>& values) {
  const std::size_t bytes = values.size() * sizeof(float);
  cl::Buffer buffer = CC_CL_OUT(cl::Buffer(context, CL_MEM_READ_ONLY, bytes, nullptr, err));
  CC_CL(queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, values.data()));
  return buffer;
}

// `kernel` over the plan's groups.
void enqueue_groups(const cl::Kernel& kernel, const LaunchPlan& plan, ClQueue& queue) {
  const cl::NDRange global(plan.groups.x * plan.group.x, plan.groups.y * plan.group.y);
  CC_CL_ENQUEUE(queue, enqueueNDRangeKernel(kernel, cl::NullRange, global, cl::NDRange(plan.group.x, plan.group.y),
                                            nullptr, event));
}

// What every OpenCL variant shares over the one frame loop (backends/frame_variant.h): an API variant adds
// its filter setup (constructor) and its kernel arguments for one plane. --split's halo rows go device to
// device where the devices share one context (backends/split_session.h's PeerRows; docs/multi-device.md).
class ClVariant : public FrameVariant<ClFrame, ClQueue>, public PeerRows {
 public:
  ClVariant(const ApiVariantSetup& setup, const cl::CommandQueue& queue)
      : FrameVariant(setup.plan, setup.problem), context_(setup.context), setup_queue_(queue),
        image_format_(image_format(pixel_format(setup.problem)).format),
        shared_context_(CC_CL_OUT(context_.getInfo<CL_CONTEXT_NUM_DEVICES>(err)) > 1), unshared_(setup.unshared) {}

  std::string_view peer_route() const override {
    return "device to device in one context, through page-locked staging";
  }
  std::string peer_refusal(const PreparedVariant& source) const override {
    const auto* other = dynamic_cast<const ClVariant*>(&source);
    if (other && other->context_() == context_()) return "";
    return unshared_.empty() ? "the devices have an OpenCL context each" : unshared_;
  }
  void copy_rows_from(DeviceFrame& frame, DeviceQueue& queue, const DeviceFrame& source_frame,
                      DeviceQueue& source_queue, const RowCopy& copy) const override {
    static_cast<ClFrame&>(frame).copy_rows_from(static_cast<const ClFrame&>(source_frame), copy,
                                                static_cast<ClQueue&>(source_queue), static_cast<ClQueue&>(queue));
  }

 protected:
  std::unique_ptr<ClFrame> new_frame() const final {
    const auto height = static_cast<std::size_t>(problem_.height);
    const ClMemory memory{context_, setup_queue_, image_format_, static_cast<std::size_t>(problem_.width), height,
                          layout_.unit_bytes / height};
    return std::make_unique<ClFrame>(memory, layout_, plan_, problem_, shared_context_);
  }
  // Fine-grained SVM (managed-faults) has no map or unmap: nothing crosses before or after the kernel.
  bool handover_is_command() const final { return plan_.memory != HostMemory::ManagedFaults; }

  cl::Context context_;
  cl::CommandQueue setup_queue_;  // filter uploads; fft: each frame's filter spectrum
  cl::ImageFormat image_format_;  // texture's input
  bool shared_context_;           // a split's context over several devices: frames placed on this one
  std::string unshared_;          // ApiVariantSetup::unshared
};

// An API variant's prepare (backends/api_variant.h): the setup is OpenCL's, the queue a ClQueue.
template <typename Variant>
std::unique_ptr<PreparedVariant> prepare(const VariantSetup& setup, DeviceQueue& queue) {
  return std::make_unique<Variant>(static_cast<const ApiVariantSetup&>(setup), static_cast<ClQueue&>(queue).get());
}

// --- every variant but fft: our kernels, as their lines of the variant table describe them, through the one
// generic variant (backends/described_variant.h) over OpenCL's kernel -------------------------------------
// A described kernel as OpenCL launches it: each filter role uploaded as a buffer (the kernel declares it
// __global or __constant, the host passes a buffer either way), an image with its sampler, the tile as a
// __local argument of the plan's on-chip bytes; the arguments set in the description's order, then the
// plan's groups.
class ClKernel {
 public:
  using Filter = cl::Buffer;

  // setArg changes a kernel, but each enqueue captures the arguments it had: one kernel serves every
  // plane and frame, so launching stays a const operation on the variant.
  class Arguments {
   public:
    Arguments(cl::Kernel& kernel, const cl::Sampler& sampler) : kernel_(kernel), sampler_(sampler) {}
    void input(const ClFrame& frame, int unit) { frame.input->set_arg(kernel_, index_++, unit); }
    void image(const ClFrame& frame, int unit) {
      CC_CL(kernel_.setArg(index_++, frame.images[static_cast<std::size_t>(unit)]));
      CC_CL(kernel_.setArg(index_++, sampler_));
    }
    void output(const ClFrame& frame, int unit) { frame.output->set_arg(kernel_, index_++, unit); }
    void filter(const Filter& filter) { CC_CL(kernel_.setArg(index_++, filter)); }
    void value(const ConvArgs& args) { CC_CL(kernel_.setArg(index_++, args)); }
    void local_bytes(std::size_t bytes) { CC_CL(kernel_.setArg(index_++, cl::Local(bytes))); }

   private:
    cl::Kernel& kernel_;
    const cl::Sampler& sampler_;
    cl_uint index_ = 0;
  };

  explicit ClKernel(const ApiVariantSetup& setup) : context_(setup.context), kernel_(setup.kernels[0]) {
    // Zero border from CLK_ADDRESS_CLAMP, clamp from CLAMP_TO_EDGE; texture.cl folds the rest.
    if (setup.description->args.has(ArgRole::Image))
      sampler_ = CC_CL_OUT(cl::Sampler(context_, CL_FALSE,
                                       setup.problem.border == Border::Zero ? CL_ADDRESS_CLAMP : CL_ADDRESS_CLAMP_TO_EDGE,
                                       CL_FILTER_NEAREST, err));
  }

  Filter upload_filter(const char*, const std::vector<float>& values, bool, const cl::CommandQueue& queue) const {
    return upload_floats(context_, queue, values);
  }

  // Mapped and managed: the host's map of the unit ends before the kernel reads it.
  Arguments bind(ClFrame& frame, int unit, ClQueue& queue) const {
    frame.release(unit, queue);
    return Arguments(const_cast<cl::Kernel&>(kernel_), sampler_);
  }

  void launch(Arguments&, const LaunchPlan& plan, ClQueue& queue) const { enqueue_groups(kernel_, plan, queue); }

 private:
  cl::Context context_;
  cl::Kernel kernel_;
  cl::Sampler sampler_;  // an Image's
};

using ClDescribedVariant = DescribedVariant<ClVariant, ClKernel>;

#ifdef CONVCOMPARE_WITH_VKFFT
// --- fft: VkFFT's transforms and fft.cl's kernels, each frame its own convolver --------------------------
class FftVariant final : public ClVariant {
 public:
  FftVariant(const ApiVariantSetup& setup, const cl::CommandQueue& queue)
      : ClVariant(setup, queue), program_(setup.program), fft_plan_(*setup.fft) {}

 private:
  void add_to_frame(ClFrame& frame) const override {
    frame.fft = std::make_unique<FftConvolver>(problem_, context_, setup_queue_, program_, plan_.group.x,
                                               plan_.group.y, fft_plan_);
  }
  std::size_t library_bytes(const ClFrame& frame) const override { return frame.fft->library_bytes(); }
  void launch_unit(ClFrame& frame, int c, ClQueue& queue) const override {
    frame.fft->convolve_plane(frame.input->buffer(c), frame.output->buffer(c), queue);
  }
  cl::Program program_;
  VkFftPlan& fft_plan_;
};
constexpr PrepareVariantFn kFft = &prepare<FftVariant>;
constexpr std::string_view kNoFft = "";
#else
constexpr PrepareVariantFn kFft = nullptr;
constexpr std::string_view kNoFft = "VkFFT not found at build time";
#endif

// The API's own variants, where a library does the work; every other variant of the table is a
// DescribedVariant.
constexpr std::string_view kFftKernels[] = {"fft_pad", "fft_multiply", "fft_crop", "fft_bands"};
constexpr LibraryVariant kLibraryVariants[] = {
    {.variant = "fft", .prepare = kFft, .missing = kNoFft, .file = "fft", .kernels = kFftKernels},
};

}  // namespace

std::span<const ApiVariant> api_variants() {
  static const std::vector<ApiVariant> made = make_api_variants("opencl", {&prepare<ClDescribedVariant>}, kLibraryVariants);
  return made;
}

ClImageFormat image_format(int pixel_format) {
  switch (pixel_format) {
    case CC_PIXEL_U8: return {cl::ImageFormat(CL_R, CL_UNORM_INT8), "CL_R / CL_UNORM_INT8"};
    case CC_PIXEL_U8X4: return {cl::ImageFormat(CL_RGBA, CL_UNORM_INT8), "CL_RGBA / CL_UNORM_INT8"};
    default: return {cl::ImageFormat(CL_R, CL_FLOAT), "CL_R / CL_FLOAT"};
  }
}

}  // namespace cc::opencl
