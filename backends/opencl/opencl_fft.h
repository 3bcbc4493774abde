// opencl_fft.h: the `fft` variant on OpenCL: VkFFT plans, the padded buffer and the filter's spectrum.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <CL/opencl.hpp>

#include "common/fft_shape.h"
#include "common/problem.h"

namespace cc::opencl {

// VkFFT's application for one padded size on one device: the in-place real-to-complex transform and
// its inverse (unnormalized) over the FftShape layout. VkFFT generates and compiles its kernels when
// the plan is made (the expensive part: hundreds of milliseconds on a GPU driver, seconds on PoCL), so
// the backend keeps the plans it made, as it keeps its built programs. A plan holds no buffer: the
// data and, for rows too long for one pass through local memory, a temporary of the same size are
// given to each transform, so one plan serves any number of convolvers and queues. Neither copied
// nor moved: VkFFT holds pointers to the handles inside.
class VkFftPlan {
 public:
  VkFftPlan(const cl::Device& device, const cl::Context& context, const cl::CommandQueue& queue, const FftShape& shape);
  ~VkFftPlan();
  VkFftPlan(const VkFftPlan&) = delete;
  VkFftPlan& operator=(const VkFftPlan&) = delete;

  // Whether the transforms take more than one pass along an axis, and so need `temporary`.
  bool needs_temporary() const;

  // Queue the transform of `buffer` (FftShape::buffer_bytes()) on `queue`, without events: an
  // in-order queue keeps it between the commands around it, and their events bracket it.
  // `temporary`, as large, only when needs_temporary().
  void forward(const cl::CommandQueue& queue, const cl::Buffer& buffer, const cl::Buffer& temporary) {
    transform(queue, buffer, temporary, -1);
  }
  void inverse(const cl::CommandQueue& queue, const cl::Buffer& buffer, const cl::Buffer& temporary) {
    transform(queue, buffer, temporary, 1);
  }

  double build_ms() const { return build_ms_; }

 private:
  void transform(const cl::CommandQueue& queue, const cl::Buffer& buffer, const cl::Buffer& temporary, int direction);

  struct Application;  // VkFFTApplication, so that only opencl_fft.cpp includes vkFFT.h
  std::unique_ptr<Application> application_;
  // The handles VkFFT reads through pointers, set before each transform: every launch binds the
  // buffers and queue it is given.
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_mem buffer_ = nullptr, temporary_ = nullptr;
  cl_ulong buffer_bytes_ = 0;
  double build_ms_ = 0;
};

// One problem's correlation through the frequency domain, one plane at a time: pad by the border
// rule, forward transform in place, multiply by the filter's spectrum, inverse transform in place,
// crop. Constructing it allocates the padded buffer and computes the filter's spectrum with `plan`
// (which must be for fft_shape(problem)), then waits for the queue.
class FftConvolver {
 public:
  // `program`: kernels_cl/fft.cl built for the device; `group_x` x `group_y`: a work-group shape the
  // device and its kernels accept (the 1D multiply uses as many work-items).
  FftConvolver(const cl::Context& context, const cl::CommandQueue& queue, const cl::Program& program,
               std::size_t group_x, std::size_t group_y, VkFftPlan& plan, const Problem& problem);

  // One plane: `in` and `out` hold problem.width x problem.height floats. Queued, not waited for; the
  // pad, multiply and crop events are appended to `events` (when given): from the first to the last
  // they bracket the transforms too.
  void convolve_plane(const cl::Buffer& in, const cl::Buffer& out, const cl::CommandQueue& queue,
                      std::vector<cl::Event>* events);

  // Device memory held: the padded buffer, the filter's spectrum and the transforms' temporary.
  std::size_t device_bytes() const { return (plan_.needs_temporary() ? 3 : 2) * shape_.buffer_bytes(); }

  const FftShape& shape() const { return shape_; }

 private:
  ConvArgs args_;
  FftShape shape_;
  VkFftPlan& plan_;
  cl::Buffer padded_, filter_spectrum_, temporary_;
  cl::Kernel pad_, multiply_, crop_;
  std::size_t group_x_, group_y_;
};

}  // namespace cc::opencl
