// opencl_fft.h: the `fft` variant on OpenCL: VkFFT's plans and convolution and fft.cl's kernels under the one FftConvolver.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <CL/opencl.hpp>

#include "backends/fft_convolver.h"
#include "backends/launch_plan.h"
#include "backends/opencl/cl_api.h"
#include "backends/opencl/cl_check.h"
#include "common/geometry/fft_shape.h"
#include "common/geometry/conv_args.h"

namespace cc::opencl {

// VkFFT's applications for one FftShape on one device, for its convolution support: one computes
// a filter's spectrum (kernelConvolution: the layout the other reads), the other a whole correlation
// in one VkFFTAppend (performConvolution): the forward real-to-complex transform, the product with
// the filter's spectrum inside the last forward stage, whose kernel also runs the first inverse stage,
// and the rest of the inverse, normalized. Unpadded: from a plane (rows of real_pitch floats,
// isInputFormatted) into the half spectrum's buffer, whose real rows then hold the result; padded: in
// place over the padded layout. VkFFT generates and compiles its kernels when the plan is made (the expensive part:
// hundreds of milliseconds on a GPU driver, seconds on PoCL), so the backend keeps the plans it made,
// as it keeps its built programs. A plan holds no buffer: the data, the filter's spectrum and, for rows
// too long for one pass through local memory, a temporary of the spectrum's size are given to each
// call, so one plan serves any number of convolvers and queues. Neither copied nor moved: VkFFT holds
// pointers to the handles inside.
class VkFftPlan {
 public:
  VkFftPlan(const cl::Device& device, const cl::Context& context, const cl::CommandQueue& queue, const FftShape& shape);
  ~VkFftPlan();
  VkFftPlan(const VkFftPlan&) = delete;
  VkFftPlan& operator=(const VkFftPlan&) = delete;

  // Whether a transform takes more than one pass along an axis, and so needs `temporary`.
  bool needs_temporary() const;

  // Queue on `queue`, without events (an in-order queue keeps each between the commands around it,
  // and their events bracket it). `temporary`, as large as the spectrum (FftShape::buffer_bytes()),
  // only when needs_temporary().
  // Whether correlate() is VkFFT's convolution; otherwise (a row split over several passes, where that
  // convolution is wrong) the plan has only forward() and inverse(), and the product is fft.cl's.
  bool fused() const { return fused_; }

  // A forward transform from `real` (FftShape::real_floats(); the spectrum buffer itself in place)
  // into `spectrum`: the filter's, laid out as correlate() reads it (fft_filter_buffer(...,
  // FftInverse::Normalized) when fused, else Unnormalized), or, unfused, a plane's.
  void forward(const cl::CommandQueue& queue, const cl::Buffer& real, const cl::Buffer& spectrum,
               const cl::Buffer& temporary) {
    transform(queue, real, spectrum, temporary, -1);
  }
  // Unfused only: the inverse, unnormalized, from `spectrum` back where forward() read (`real`).
  void inverse(const cl::CommandQueue& queue, const cl::Buffer& spectrum, const cl::Buffer& real,
               const cl::Buffer& temporary) {
    transform(queue, real, spectrum, temporary, 1);
  }
  // Fused only: one plane's correlation from `in` into the real rows of `spectrum` (rows of
  // 2 * complex_width() floats); on the padded path `in` is `spectrum` itself (in place).
  void correlate(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& spectrum,
                 const cl::Buffer& filter_spectrum, const cl::Buffer& temporary);

  double build_ms() const { return build_ms_; }

 private:
  void transform(const cl::CommandQueue& queue, const cl::Buffer& real, const cl::Buffer& spectrum,
                 const cl::Buffer& temporary, int direction);

  struct Application;  // VkFFTApplication, so that only opencl_fft.cpp includes vkFFT.h
  // transform_application_: the filter's transform (kernelConvolution) when fused, else the plain
  // transforms both ways; correlation_application_: the convolution, null when not fused.
  std::unique_ptr<Application> transform_application_, correlation_application_;
  // Binds the queue and buffers (the handles below) and appends `application` in `direction` (-1
  // forward: with the correlation's performConvolution, the inverse too); `filter_spectrum` for the
  // correlation only. transform() and correlate() are this with their own application.
  void append(Application& application, int direction, const cl::CommandQueue& queue, const cl::Buffer& in,
              const cl::Buffer& spectrum, const cl::Buffer& temporary, const cl::Buffer* filter_spectrum);
  // The handles VkFFT reads through pointers, set before each call: every launch binds the buffers
  // and queue it is given.
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_mem buffer_ = nullptr, temporary_ = nullptr, input_ = nullptr, kernel_ = nullptr;
  cl_ulong buffer_bytes_ = 0, real_bytes_ = 0;
  bool out_of_place_ = false, fused_ = false;
  double build_ms_ = 0;
};

// VkFFT's translation for FftConvolver (backends/fft_convolver.h): its plan's transforms, or its
// convolution where the plan is fused, and fft.cl's kernels, launched in work-groups of `group_x` x
// `group_y` (a shape the device and its kernels accept; the edge bands 32 x 4 where that is no more).
class VkFftLibrary {
 public:
  using Buffer = cl::Buffer;
  using Input = const cl::Buffer&;
  using Output = const cl::Buffer&;
  using Queue = ClQueue&;

  // `setup_queue`: where the filter's spectrum is computed; `program`: kernels_cl/fft.cl built for the
  // device; `plan`: for the problem's fft_shape, kept by the backend.
  VkFftLibrary(const cl::Context& context, const cl::CommandQueue& setup_queue, const cl::Program& program,
               std::size_t group_x, std::size_t group_y, VkFftPlan& plan)
      : context_(context), setup_queue_(setup_queue), group_x_(group_x), group_y_(group_y), plan_(plan),
        pad_(CC_CL_OUT(cl::Kernel(program, "fft_pad", err))),
        crop_(CC_CL_OUT(cl::Kernel(program, "fft_crop", err))),
        bands_(CC_CL_OUT(cl::Kernel(program, "fft_bands", err))),
        multiply_(plan.fused() ? cl::Kernel() : CC_CL_OUT(cl::Kernel(program, "fft_multiply", err))) {}

  static const cl::Buffer& data(const cl::Buffer& buffer) { return buffer; }
  cl::Buffer allocate(std::size_t bytes) const {
    return CC_CL_OUT(cl::Buffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, err));
  }
  cl::Buffer constants(const std::vector<float>& values) const {
    cl::Buffer buffer = CC_CL_OUT(cl::Buffer(context_, CL_MEM_READ_ONLY, values.size() * sizeof(float), nullptr, err));
    write(buffer, values);
    return buffer;
  }
  void write(const cl::Buffer& target, const std::vector<float>& values) const {
    CC_CL(setup_queue_.enqueueWriteBuffer(target, CL_FALSE, 0, values.size() * sizeof(float), values.data()));
  }
  FftProduct plan(const FftShape& shape, const ConvArgs&, const cl::Buffer&) {
    if (plan_.needs_temporary()) temporary_ = allocate(temporary_bytes_ = shape.buffer_bytes());
    return plan_.fused() ? FftProduct::Convolution : FftProduct::Pass;
  }
  void forward_filter(const cl::Buffer& real, const cl::Buffer& spectrum) const {
    plan_.forward(setup_queue_, real, spectrum, temporary_);
  }
  void finish() const { finish_queue(setup_queue_); }
  // The transforms' temporary.
  std::size_t bytes() const { return temporary_() ? temporary_bytes_ : 0; }
  // 32 x 4 as on CUDA (a band of 32 rows fills the group), unless the kernels take fewer work-items.
  GroupShape band_group() const { return group_x_ * group_y_ >= 128 ? GroupShape{32, 4} : GroupShape{group_x_, group_y_}; }

  // A plane's steps, queued on `queue`.
  void forward(const cl::Buffer& real, const cl::Buffer& spectrum, ClQueue& queue) const {
    plan_.forward(queue.get(), real, spectrum, temporary_);
  }
  void inverse(const cl::Buffer& spectrum, const cl::Buffer& real, ClQueue& queue) const {
    plan_.inverse(queue.get(), spectrum, real, temporary_);
  }
  // VkFFT's convolution, whose result is the spectrum buffer's real rows (`result` is the spectrum buffer).
  void fused_transforms(const cl::Buffer& real, const cl::Buffer& spectrum, const cl::Buffer& filter_spectrum,
                        const cl::Buffer&, ClQueue& queue) const {
    plan_.correlate(queue.get(), real, spectrum, filter_spectrum, temporary_);
  }
  void pad(const cl::Buffer& in, const cl::Buffer& padded, const ConvArgs& args, int height, int pitch, ClQueue& queue) {
    launch(pad_, queue, cl::NDRange(round_up(pitch, group_x_), round_up(height, group_y_)),
           cl::NDRange(group_x_, group_y_), in, padded, args, height, pitch);
  }
  void multiply(const cl::Buffer& spectrum, const cl::Buffer& filter_spectrum, int count, ClQueue& queue) {
    const std::size_t group = group_x_ * group_y_;
    launch(multiply_, queue, cl::NDRange(round_up(count, group)), cl::NDRange(group), spectrum, filter_spectrum, count);
  }
  void crop(const cl::Buffer& padded, const cl::Buffer& out, const ConvArgs& args, int pitch, ClQueue& queue) {
    launch(crop_, queue, cl::NDRange(round_up(args.width, group_x_), round_up(args.height, group_y_)),
           cl::NDRange(group_x_, group_y_), padded, out, args, pitch);
  }
  void bands(const cl::Buffer& in, const cl::Buffer& out, const cl::Buffer& coefficients, int column_length,
             const ConvArgs& args, int blocks, ClQueue& queue) {
    const GroupShape group = band_group();
    launch(bands_, queue, cl::NDRange(blocks * group.x, group.y), cl::NDRange(group.x, group.y), in, out,
           coefficients, args, column_length);
  }
  // A marker where no kernel of ours is first or last, so that the plane's events still bracket VkFFT's.
  void mark(ClQueue& queue) const { CC_CL_ENQUEUE(queue, enqueueMarkerWithWaitList(nullptr, event)); }

 private:
  cl::Context context_;
  cl::CommandQueue setup_queue_;
  std::size_t group_x_, group_y_;
  VkFftPlan& plan_;
  cl::Buffer temporary_;
  std::size_t temporary_bytes_ = 0;
  cl::Kernel pad_, crop_, bands_, multiply_;  // multiply_: unfused plans only

  static std::size_t round_up(std::size_t value, std::size_t multiple) { return (value + multiple - 1) / multiple * multiple; }
  // Sets `kernel`'s arguments in order and queues it over `global` in groups of `local`.
  template <typename... Arguments>
  static void launch(cl::Kernel& kernel, ClQueue& queue, const cl::NDRange& global, const cl::NDRange& local,
                     const Arguments&... arguments) {
    cl_uint index = 0;
    (CC_CL(kernel.setArg(index++, arguments)), ...);
    CC_CL_ENQUEUE(queue, enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, event));
  }
};

// One problem's correlation through VkFFT, one plane at a time: made with (problem, context, setup queue,
// program, group_x, group_y, plan), it computes the filter's spectrum on the setup queue and waits for it.
using FftConvolver = cc::FftConvolver<VkFftLibrary>;

}  // namespace cc::opencl
