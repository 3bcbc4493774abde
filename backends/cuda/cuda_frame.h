// cuda_frame.h: CUDA's translation of a frame's memory for the one frame (backends/unit_frame.h): allocations in each --memory mode, copies, prefetches.
#pragma once

#include <cstddef>
#include <memory>

#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_resources.h"
#include "backends/unit_frame.h"
#ifdef CONVCOMPARE_WITH_CUFFT
#include "backends/cuda/cuda_fft.h"
#endif

namespace cc::cuda {

class CudaSide;

// What a CUDA frame is made with: the device it is on (the current one), whether managed memory may be
// prefetched there (concurrentManagedAccess), and a texture's shape and texel format.
struct CudaMemory {
  using Queue = CudaQueue;
  using Side = CudaSide;
  using Image = TextureImage;

  int ordinal = 0;
  bool prefetches = false;
  int width = 0, height = 0;
  std::size_t row_bytes = 0;  // one row of a unit
  Border border = Border::Zero;
  int format = 0;

  Image make_image() const { return TextureImage(width, height, border, texel_format(format)); }
  void copy_in(const Image& image, const std::byte* host, int row, int rows, CudaQueue& queue) const {
    CC_CUDA_CHECK(cudaMemcpy2DToArrayAsync(image.array(), 0, static_cast<std::size_t>(row), host, row_bytes, row_bytes,
                                           static_cast<std::size_t>(rows), cudaMemcpyHostToDevice, queue.stream()));
  }
};

// One side of a CUDA frame, its input or its output, every unit in one allocation: device memory for
// copies; --memory mapped: page-locked host memory the kernel reaches in place (nothing crosses before
// it); managed: managed memory, prefetched to the device at upload and the output to the host at download
// where the device allows it (concurrentManagedAccess), else migrated by the driver at launch;
// managed-faults: the same memory never prefetched to the device. Its upload sends the pages to the host
// instead, where the host's write of the next frame and its read of the last result would leave them (a
// prefetch to the CPU: the host cannot touch them in stream order), so that the kernel's first touches
// fault them over inside its span (docs/memory-spaces-evidence.md, "Managed memory without prefetch").
class CudaSide {
 public:
  CudaSide(const CudaMemory& memory, const FrameLayout& layout, HostMemory mode, bool output)
      : unit_bytes_(layout.unit_bytes), mode_(mode), output_(output), ordinal_(memory.ordinal),
        prefetches_(memory.prefetches) {
    switch (mode) {
      case HostMemory::Mapped:
        mapped_ = MappedHostBuffer(layout.bytes());
        host_ = mapped_.get();
        device_ = mapped_.device();
        break;
      case HostMemory::Managed:
      case HostMemory::ManagedFaults:
        managed_ = ManagedBuffer(layout.bytes());
        host_ = device_ = managed_.get();
        break;
      default:
        copied_ = DeviceBuffer((layout.bytes() + sizeof(float) - 1) / sizeof(float));
        device_ = reinterpret_cast<std::byte*>(copied_.get());
    }
  }

  std::byte* at(int unit) const { return device_ + unit * unit_bytes_; }  // where kernels reach the unit
  std::byte* host(int unit) const { return host_ + unit * unit_bytes_; }  // mapped, managed: the host's address

  void copy_in(int unit, const std::byte* host, std::size_t offset, std::size_t bytes, CudaQueue& queue) {
    CC_CUDA_CHECK(cudaMemcpyAsync(at(unit) + offset, host, bytes, cudaMemcpyHostToDevice, queue.stream()));
  }
  void copy_out(int unit, std::byte* host, std::size_t offset, std::size_t bytes, CudaQueue& queue) const {
    CC_CUDA_CHECK(cudaMemcpyAsync(host, at(unit) + offset, bytes, cudaMemcpyDeviceToHost, queue.stream()));
  }
  // Mapped memory needs no hand-over: the kernel reaches the host's pages itself.
  void hand_over(int unit, CudaQueue& queue) {
    if (is_managed(mode_) && prefetches_)
      prefetch(at(unit), unit_bytes_, mode_ == HostMemory::Managed ? ordinal_ : cudaCpuDeviceId, queue.stream());
  }
  // managed-faults: the host's reads fault the pages back; the input stays where the kernel read it.
  void hand_back(int unit, CudaQueue& queue) const {
    if (output_ && mode_ == HostMemory::Managed && prefetches_)
      prefetch(at(unit), unit_bytes_, cudaCpuDeviceId, queue.stream());
  }
  void release(int, CudaQueue&) const {}  // a kernel may use memory the host also reaches
  void fill(int unit, unsigned char byte, CudaQueue& queue) {
    CC_CUDA_CHECK(cudaMemsetAsync(at(unit), byte, unit_bytes_, queue.stream()));
  }

 private:
  std::size_t unit_bytes_;
  HostMemory mode_;
  bool output_;
  int ordinal_;
  bool prefetches_;
  DeviceBuffer copied_;
  MappedHostBuffer mapped_;
  ManagedBuffer managed_;
  std::byte* device_ = nullptr;
  std::byte* host_ = nullptr;
};

// One frame's device memory: the one frame's input and output, the variant's scratch planes, and fft's
// buffers, plans and work area (a frame's own, so that frames in flight on different streams share none).
struct CudaFrame final : UnitFrame<CudaMemory> {
  CudaFrame(const CudaMemory& memory, const FrameLayout& layout, const LaunchPlan& plan, int height)
      : UnitFrame(memory, layout, plan, height) {
    if (plan.variant->scratch_planes > 0)
      scratch = DeviceBuffer((plan.variant->scratch_planes * layout.unit_bytes + sizeof(float) - 1) / sizeof(float));
  }
  // The unit's input buffer where kernels read it, or null where the input is a texture.
  const std::byte* input_at(int unit) const { return input ? input->at(unit) : nullptr; }

  DeviceBuffer scratch;
#ifdef CONVCOMPARE_WITH_CUFFT
  std::unique_ptr<FftConvolver> fft;
#endif
};

}  // namespace cc::cuda
