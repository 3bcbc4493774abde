// cuda_variant.h: a CUDA variant prepared on a device and the device memory of one frame, shared by the
// timed run (cuda_backend.cpp) and the overlapped stream (cuda_stream.cpp).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "backends/cuda/cuda_fft.h"
#include "backends/cuda/cuda_resources.h"
#include "backends/cuda/runtime_module.h"
#include "common/geometry/fast_shape.h"
#include "common/domain/filter.h"
#include "common/geometry/separable_shape.h"
#ifdef CONVCOMPARE_WITH_NPP
#include <nppdefs.h>
#endif

namespace cc::cuda {

enum class Variant { Global, Constant, Tiled, Texture, Separable, Fft, Fast, Npp, NppSeparable };

// Everything decided before touching the device: the launch shape and what the variant needs.
struct Plan {
  Variant variant = Variant::Global;
  ConvArgs args{};
  dim3 block{16, 16};
  std::size_t shared_bytes = 0;             // tiled, fast and separable: dynamic shared memory per block
  std::optional<SeparableFactors> factors;  // separable and npp-separable
  FastShape fast;                           // fast: the compile-time tile shape
  SeparableShape separable;                 // separable: the compile-time tile shape
  const RuntimeModule* module = nullptr;    // fast and separable: compiled by NVRTC for this radius and shape
};

// The device memory of one frame in flight: its input (a buffer, or one texture per plane), its output
// and npp-separable's temporary. Frames in flight at the same time each need their own.
struct FrameBuffers {
  DeviceBuffer input, output, scratch;
  std::vector<TextureImage> textures;
  // fft: the padded buffer, cuFFT's plans and work area and the filter's spectrum, a frame's own so
  // that frames in flight on different streams share none of them.
  std::unique_ptr<FftConvolver> fft;
};

// Device memory in bytes, counted as the OpenCL backend counts it: one frame's buffers, arrays and
// any temporary; and the filter where it lives (a buffer, or the part of a constant bank it fills).
std::size_t frame_bytes(const Plan& plan, const Problem& problem);
std::size_t filter_bytes(const Plan& plan, const Problem& problem);

// A variant set up on one device: the filter uploaded (a buffer or a constant symbol), the
// shared-memory opt-in made. upload / launch / download queue one frame's work on any stream.
class PreparedVariant {
 public:
  // Queues the filter upload on `stream`; the caller synchronizes it before timing anything.
  PreparedVariant(const Plan& plan, const Problem& problem, int ordinal, cudaStream_t stream);

  FrameBuffers make_frame() const;  // allocates frame_bytes()
  void upload(const FrameBuffers& frame, const float* host, cudaStream_t stream) const;
  void launch(const FrameBuffers& frame, cudaStream_t stream) const;  // every plane once
  void download(const FrameBuffers& frame, float* host, cudaStream_t stream) const;

 private:
  const Plan& plan_;
  const Problem& problem_;
  int ordinal_;
  cudaStream_t setup_stream_;  // fft: where make_frame() computes each frame's filter spectrum
  std::size_t plane_;  // floats in one plane
  DeviceBuffer filter_buffer_, column_filter_buffer_;
  cudaKernel_t module_kernel_ = nullptr;  // fast and separable: the kernel of plan.module, and its grid
  dim3 module_grid_;
#ifdef CONVCOMPARE_WITH_NPP
  std::vector<float> npp_filter_, npp_column_filter_;  // host sources of the filter upload
  // NPP takes its stream in a context: one per stream launched on, made on first use.
  mutable std::map<cudaStream_t, NppStreamContext> npp_contexts_;
  const NppStreamContext& npp_context(cudaStream_t stream) const;
#endif
};

// Pushes `frames` copies of `input` through upload, launch and download on three streams
// (cuda_stream.cpp); `plan` has passed every check run() makes.
StreamRun stream_planned(const Plan& plan, const Problem& problem, const Image& input, int ordinal, int frames,
                         const RunOptions& options);

}  // namespace cc::cuda
