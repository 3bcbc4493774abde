// opencl_backend_impl.h: the OpenCL backend's class and its prepared variants, shared by the timed run
// (opencl_backend.cpp) and the overlapped stream (opencl_stream.cpp).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <CL/opencl.hpp>

#include "backends/backend.h"
#include "backends/opencl/cl_devices.h"
#include "backends/opencl/opencl_fft.h"
#include "common/domain/filter.h"

namespace cc::opencl {

enum class Variant { Global, Constant, Tiled, Texture, Separable, Fft, Fast };

// Everything decided and built before any memory is allocated: the kernels and their launch shape.
struct Plan {
  Variant variant = Variant::Global;
  ConvArgs args{};
  std::vector<cl::Kernel> kernels;  // fft: several; the others one
  cl::NDRange global, local;
  std::size_t local_bytes = 0;              // tiled: the __local tile
  std::optional<SeparableFactors> factors;  // separable
  std::string build_options;
  double build_ms = 0;  // the program's first build, reported again for cached uses
  cl::Program program;       // fft: each frame's convolver makes its own kernels from it
  VkFftPlan* fft = nullptr;  // fft: VkFFT's transforms for the padded size, kept by the backend
};

// Device memory in bytes, counted as the CUDA backend counts it: one frame's buffers, images and
// fft's buffers; and the filter buffers.
std::size_t frame_bytes(const Plan& plan, const Problem& problem);
std::size_t filter_bytes(const Plan& plan, const Problem& problem);

// A CL_MEM_ALLOC_HOST_PTR buffer kept mapped while it lives: the driver's page-locked memory, which
// transfers from its mapped pointer can DMA directly (OpenCL's cudaMallocHost).
class PinnedBuffer {
 public:
  PinnedBuffer(const cl::Context& context, const cl::CommandQueue& queue, std::size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  float* data() const { return data_; }

 private:
  cl::CommandQueue queue_;
  cl::Buffer buffer_;
  float* data_ = nullptr;
};

// A frame's host side of the transfers: one page-locked buffer per plane (each within
// CL_DEVICE_MAX_MEM_ALLOC_SIZE), or ordinary memory for the pageable figure.
class HostFrame {
 public:
  HostFrame(const cl::Context& context, const cl::CommandQueue& queue, const Image& shape, bool pinned);
  float* plane(int c) const;
  void fill(const Image& image) const;    // copies the pixels in, on every core for a large frame
  void copy_to(Image& image) const;

 private:
  std::size_t plane_size_;
  std::vector<std::unique_ptr<PinnedBuffer>> pinned_;
  mutable std::vector<float> pageable_;
};

// The device memory of one frame in flight: per plane an input (a buffer, or an image for texture)
// and an output. Frames in flight at the same time each need their own.
struct FrameBuffers {
  std::vector<cl::Buffer> inputs, outputs;
  std::vector<cl::Image2D> images;
  // fft: the padded buffer, the filter's spectrum and the transforms' temporary, a frame's own so
  // that frames in flight on different queues share none of them.
  std::unique_ptr<FftConvolver> fft;
};

// A variant set up on one context: filter uploaded, sampler made. upload / launch / download enqueue
// one frame's commands for every plane on any queue of that context, without waiting; `events`, when
// given, receives one event per command.
class PreparedVariant {
 public:
  // Enqueues the filter upload on `queue`; the caller finishes it before timing anything.
  PreparedVariant(const Plan& plan, const Problem& problem, const cl::Context& context, const cl::CommandQueue& queue);

  FrameBuffers make_frame() const;  // allocates frame_bytes()
  void upload(const FrameBuffers& frame, const HostFrame& host, const cl::CommandQueue& queue,
              std::vector<cl::Event>* events) const;
  void launch(const FrameBuffers& frame, const cl::CommandQueue& queue, std::vector<cl::Event>* events) const;
  void download(const FrameBuffers& frame, const HostFrame& host, const cl::CommandQueue& queue,
                std::vector<cl::Event>* events) const;

 private:
  const Plan& plan_;
  const Problem& problem_;
  cl::Context context_;
  cl::CommandQueue queue_;  // fft: where make_frame() computes each frame's filter spectrum
  // setArg changes a kernel, but each enqueue captures the arguments it had: one kernel serves every
  // plane and frame, so launching stays a const operation on the variant.
  mutable std::vector<cl::Kernel> kernels_;
  cl::Buffer filter_buffer_, column_filter_buffer_;
  cl::Sampler sampler_;
};

// Device time from the start of `first` to the end of `last` (profiling counters are nanoseconds).
double event_span_ms(const cl::Event& first, const cl::Event& last);

// A skip reason when one buffer exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE or all of them the global memory.
std::optional<std::string> memory_limit_reason(const DeviceLimits& limits, std::size_t largest_buffer,
                                               std::size_t total);

class OpenClBackend final : public Backend {
 public:
  std::string_view name() const override { return "opencl"; }
  const std::vector<DeviceInfo>& devices() override;
  std::string unavailable_reason() override;
  std::vector<std::string> variants() const override;
  BackendRun run(const Problem& problem, const Image& input, std::string_view variant, int device,
                 const RunOptions& options) override;
  StreamRun stream(const Problem& problem, const Image& input, std::string_view variant, int device, int frames,
                   const RunOptions& options) override;
  DevicePeaks measure_peaks(int device) override;  // opencl_peaks.cpp

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
  VkFftPlan& fft_plan_for(int device, const FftShape& shape);
  // Checks the variant against the device (memory for `frames_in_flight` frames) and builds its
  // kernels; fills `plan`, or returns why the variant cannot run here. Bad requests throw InputError.
  std::string prepare(Plan& plan, const Problem& problem, std::string_view variant, int device,
                      const RunOptions& options, int frames_in_flight);

  bool discovered_ = false;
  Discovery discovery_;
  std::vector<DeviceInfo> infos_;
  std::map<int, DeviceQueue> queues_;
  std::map<int, DevicePeaks> peaks_;  // measured once per device
  std::map<std::tuple<std::string, std::string, int>, BuiltProgram> programs_;  // (source, options, device)
  // fft: VkFFT's plans, made once per (device, transform width, height, real pitch, unpadded) as
  // programs are built once.
  std::map<std::tuple<int, int, int, int, bool>, std::unique_ptr<VkFftPlan>> fft_plans_;
};

}  // namespace cc::opencl
