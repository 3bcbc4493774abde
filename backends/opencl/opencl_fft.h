// opencl_fft.h: the `fft` variant on OpenCL: VkFFT plans, the spectrum buffer and the filter's spectrum.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <CL/opencl.hpp>

#include "backends/opencl/cl_api.h"
#include "common/geometry/fft_shape.h"
#include "common/domain/problem.h"

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

// One problem's correlation through the frequency domain, one plane at a time, on the path
// common/geometry/fft_shape.h chooses. Unpadded: VkFFT's convolution from the input plane into the
// spectrum buffer, copied into the output plane, then the edge bands directly (borders other than wrap).
// Padded: pad by the border rule, VkFFT's convolution in place, crop. Constructing it allocates the
// buffers and computes the filter's spectrum with `plan` (which must be for fft_shape(problem)), once
// for every plane and repetition of the frame, then waits for the queue.
class FftConvolver {
 public:
  // `program`: kernels_cl/fft.cl built for the device; `group_x` x `group_y`: a work-group shape the
  // device and its kernels accept (the edge bands 32 x 4 where that is no more).
  FftConvolver(const cl::Context& context, const cl::CommandQueue& queue, const cl::Program& program,
               std::size_t group_x, std::size_t group_y, VkFftPlan& plan, const Problem& problem);

  // One plane: `in` and `out` hold problem.width x problem.height floats. Queued, not waited for; its
  // kernels (and, on the unpadded path, markers around the transforms) come first and last, so a span
  // around it brackets the transforms too.
  void convolve_plane(const cl::Buffer& in, const cl::Buffer& out, ClQueue& queue);

  // The transforms' temporary: the device memory held beyond what the plan counted (the spectrum and
  // filter-spectrum buffers and the edge bands' coefficients, backends/launch_plan.cpp).
  std::size_t temporary_bytes() const { return temporary_() ? shape_.buffer_bytes() : 0; }

  const FftShape& shape() const { return shape_; }

 private:
  // fft_crop from the spectrum buffer's real rows (rows of `padded_pitch` floats) into `out`, with the
  // apron of `args`: the padded path's, or none on the unpadded one.
  void crop(const cl::Buffer& out, const ConvArgs& args, int padded_pitch, ClQueue& queue);
  // fft.cl's product of the spectrum buffer and the filter's, where the plan is not fused.
  void multiply(ClQueue& queue);

  ConvArgs args_, zero_apron_args_;
  FftShape shape_;
  VkFftPlan& plan_;
  cl::Buffer spectrum_, filter_spectrum_, temporary_, band_coefficients_;
  cl::Kernel pad_, crop_, bands_, multiply_;  // multiply_: unfused plans only
  std::size_t group_x_, group_y_;
  std::size_t band_group_x_ = 0, band_group_y_ = 0;
  int band_column_length_ = 0, band_blocks_ = 0;
};

}  // namespace cc::opencl
