// opencl_variants.cpp: OpenCL's generic variant of the described kernels, and its library variant (VkFFT), over OpenCL's frame in the one frame loop.
#include "backends/opencl/opencl_variants.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "backends/frame_variant.h"
#include "backends/kernel_descriptions.h"
#include "backends/opencl/cl_api.h"
#include "backends/opencl/cl_check.h"
#include "common/geometry/pixel_format.h"

namespace cc::opencl {

namespace {

// One frame's device memory: per unit (FrameLayout: a plane of floats, or the 8-bit interleaved image)
// an input (a buffer, or an image for texture) and an output, and fft's buffers (a frame's own, so that
// frames in flight on different queues share none of them). How a unit crosses is here; the loop over
// units is FrameVariant's.
struct ClFrame final : DeviceFrame {
  ClFrame(const cl::Context& context, const FrameLayout& layout, const LaunchPlan& plan, const Problem& problem,
          const cl::ImageFormat& image_format)
      : layout(layout), width(problem.width), height(problem.height) {
    for (int unit = 0; unit < layout.units; ++unit) {
      if (plan.variant->input_as_image)
        images.push_back(CC_CL_OUT(
            cl::Image2D(context, CL_MEM_READ_ONLY, image_format, problem.width, problem.height, 0, nullptr, err)));
      else
        inputs.push_back(CC_CL_OUT(cl::Buffer(context, CL_MEM_READ_ONLY, layout.unit_bytes, nullptr, err)));
      outputs.push_back(CC_CL_OUT(cl::Buffer(context, CL_MEM_READ_WRITE, layout.unit_bytes, nullptr, err)));
    }
  }

  void write(int unit, const std::byte* host, ClQueue& queue) {
    if (images.empty())
      CC_CL_ENQUEUE(queue, enqueueWriteBuffer(inputs[unit], CL_FALSE, 0, layout.unit_bytes, host, nullptr, event));
    else
      CC_CL_ENQUEUE(queue, enqueueWriteImage(images[unit], CL_FALSE, {0, 0, 0}, {width, height, 1},
                                             layout.unit_bytes / height, 0, host, nullptr, event));
  }
  void read(int unit, std::byte* host, ClQueue& queue) const {
    CC_CL_ENQUEUE(queue, enqueueReadBuffer(outputs[unit], CL_FALSE, 0, layout.unit_bytes, host, nullptr, event));
  }
  void fill(unsigned char byte, ClQueue& queue) {
    const cl_uchar pattern = byte;
    for (const cl::Buffer& output : outputs)
      CC_CL_ENQUEUE(queue, enqueueFillBuffer(output, pattern, 0, layout.unit_bytes, nullptr, event));
  }

  FrameLayout layout;
  std::size_t width, height;
  std::vector<cl::Buffer> inputs, outputs;
  std::vector<cl::Image2D> images;
  std::unique_ptr<FftConvolver> fft;
};

// What every OpenCL variant shares over the one frame loop (backends/frame_variant.h): an API variant adds
// its filter setup (constructor) and its kernel arguments for one plane.
class ClVariant : public FrameVariant<ClFrame, ClQueue> {
 public:
  ClVariant(const ApiVariantSetup& setup, const cl::CommandQueue& queue)
      : FrameVariant(setup.plan, setup.problem), context_(setup.context), setup_queue_(queue),
        kernels_(setup.kernels), image_format_(image_format(pixel_format(setup.problem)).format) {}

 protected:
  std::unique_ptr<ClFrame> new_frame() const final {
    return std::make_unique<ClFrame>(context_, layout_, plan_, problem_, image_format_);
  }

  // The variant's one kernel over the plan's groups.
  void enqueue(ClQueue& queue) const {
    const cl::NDRange global(plan_.groups.x * plan_.group.x, plan_.groups.y * plan_.group.y);
    CC_CL_ENQUEUE(queue, enqueueNDRangeKernel(kernels_[0], cl::NullRange, global,
                                              cl::NDRange(plan_.group.x, plan_.group.y), nullptr, event));
  }
  cl::Buffer upload_buffer(const std::vector<float>& values) const {
    const std::size_t bytes = values.size() * sizeof(float);
    cl::Buffer buffer = CC_CL_OUT(cl::Buffer(context_, CL_MEM_READ_ONLY, bytes, nullptr, err));
    CC_CL(setup_queue_.enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, values.data()));
    return buffer;
  }

  cl::Context context_;
  cl::CommandQueue setup_queue_;  // filter uploads; fft: each frame's filter spectrum
  std::vector<cl::Kernel> kernels_;
  cl::ImageFormat image_format_;  // texture's input
};

template <typename Variant>
std::unique_ptr<PreparedVariant> prepare(const ApiVariantSetup& setup, const cl::CommandQueue& queue) {
  return std::make_unique<Variant>(setup, queue);
}

// --- every variant but fft: our kernels, as backends/kernel_descriptions.h
// describes them: each filter role uploaded as a buffer (the kernel declares it __global or __constant,
// the host passes a buffer either way), an image with its sampler, the tile as a __local argument of the
// plan's on-chip bytes; the arguments set in the description's order, then the plan's groups. ----------
class DescribedVariant final : public ClVariant {
 public:
  DescribedVariant(const ApiVariantSetup& setup, const cl::CommandQueue& queue)
      : ClVariant(setup, queue), description_(*setup.description) {
    for (const ArgRole role : description_.args) {
      if (role == ArgRole::Filter) filters_.push_back(upload_buffer(weights()));
      if (role == ArgRole::RowFactor) filters_.push_back(upload_buffer(plan_.factors->row));
      if (role == ArgRole::ColumnFactor) filters_.push_back(upload_buffer(plan_.factors->column));
      // Zero border from CLK_ADDRESS_CLAMP, clamp from CLAMP_TO_EDGE; texture.cl folds the rest.
      if (role == ArgRole::Image)
        sampler_ = CC_CL_OUT(cl::Sampler(context_, CL_FALSE,
                                         problem_.border == Border::Zero ? CL_ADDRESS_CLAMP : CL_ADDRESS_CLAMP_TO_EDGE,
                                         CL_FILTER_NEAREST, err));
    }
  }

 private:
  void launch_unit(ClFrame& frame, int c, ClQueue& queue) const override {
    // setArg changes a kernel, but each enqueue captures the arguments it had: one kernel serves every
    // plane and frame, so launching stays a const operation on the variant.
    cl::Kernel& kernel = const_cast<cl::Kernel&>(kernels_[0]);
    cl_uint index = 0;
    std::size_t filter = 0;
    for (const ArgRole role : description_.args) {
      switch (role) {
        case ArgRole::Input: CC_CL(kernel.setArg(index++, frame.inputs[c])); break;
        case ArgRole::Image:
          CC_CL(kernel.setArg(index++, frame.images[c]));
          CC_CL(kernel.setArg(index++, sampler_));
          break;
        case ArgRole::Output: CC_CL(kernel.setArg(index++, frame.outputs[c])); break;
        case ArgRole::Filter:
        case ArgRole::RowFactor:
        case ArgRole::ColumnFactor: CC_CL(kernel.setArg(index++, filters_[filter++])); break;
        case ArgRole::Args: CC_CL(kernel.setArg(index++, plan_.args)); break;
        case ArgRole::LocalTile: CC_CL(kernel.setArg(index++, cl::Local(plan_.on_chip_bytes))); break;
      }
    }
    enqueue(queue);
  }

  const KernelDescription& description_;
  std::vector<cl::Buffer> filters_;  // in the description's order
  cl::Sampler sampler_;              // an Image's
};

#ifdef CONVCOMPARE_WITH_VKFFT
// --- fft: VkFFT's transforms and fft.cl's kernels, each frame its own convolver --------------------------
class FftVariant final : public ClVariant {
 public:
  FftVariant(const ApiVariantSetup& setup, const cl::CommandQueue& queue)
      : ClVariant(setup, queue), program_(setup.program), fft_plan_(*setup.fft) {}

 private:
  void add_to_frame(ClFrame& frame) const override {
    frame.fft = std::make_unique<FftConvolver>(context_, setup_queue_, program_, plan_.group.x, plan_.group.y,
                                               fft_plan_, problem_);
  }
  std::size_t library_bytes(const ClFrame& frame) const override { return frame.fft->temporary_bytes(); }
  void launch_unit(ClFrame& frame, int c, ClQueue& queue) const override {
    frame.fft->convolve_plane(frame.inputs[c], frame.outputs[c], queue);
  }
  cl::Program program_;
  VkFftPlan& fft_plan_;
};
constexpr auto kFft = &prepare<FftVariant>;
constexpr std::string_view kNoFft = "";
#else
constexpr std::unique_ptr<PreparedVariant> (*kFft)(const ApiVariantSetup&, const cl::CommandQueue&) = nullptr;
constexpr std::string_view kNoFft = "VkFFT not found at build time";
#endif

// The API's own variants, where a library does the work; every other variant of the table is a
// DescribedVariant.
constexpr ApiVariant kLibraryVariants[] = {
    {"fft", kFft, kNoFft, "fft", "fft_pad fft_multiply fft_crop fft_bands"},
};

std::vector<ApiVariant> make_api_variants() {
  std::vector<ApiVariant> made;
  for (const VariantTraits& variant : all_variants()) {
    if (!variant.implemented_by("opencl")) continue;  // cluster: CUDA's alone, no kernels_cl file
    if (const KernelDescription* description = find_kernel_description(variant.name)) {
      made.push_back({variant.name, &prepare<DescribedVariant>, "", description->file, description->entry, description});
    } else if (const auto found = std::ranges::find(kLibraryVariants, variant.name, &ApiVariant::variant);
               found != std::end(kLibraryVariants)) {
      made.push_back(*found);
    }
  }
  return made;
}

}  // namespace

std::vector<std::string> ApiVariant::kernel_names() const {
  std::vector<std::string> names;
  std::istringstream words{std::string(kernels)};
  for (std::string name; words >> name;) names.push_back(name);
  return names;
}

std::span<const ApiVariant> api_variants() {
  static const std::vector<ApiVariant> made = make_api_variants();
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
