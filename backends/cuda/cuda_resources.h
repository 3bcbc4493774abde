// cuda_resources.h: RAII owners of CUDA objects: device and pinned buffers, streams, events, textures.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "common/domain/problem.h"

namespace cc::cuda {

// Each owner frees its object in its destructor and ignores the status there: a destructor runs
// while an ApiError may already be propagating, and must not throw a second one. Copying is
// deleted (two owners would free twice); moving hands the object over.

// Device memory for `count` floats (cudaMalloc / cudaFree). A failed allocation throws an ApiError
// that says how much was asked for and how much the device had free.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count);
  float* get() const { return data_.get(); }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(float); }

 private:
  struct Free {
    void operator()(float* data) const noexcept { cudaFree(data); }
  };
  std::unique_ptr<float, Free> data_;
  std::size_t count_ = 0;
};

// Page-locked host memory of `bytes` (cudaMallocHost / cudaFreeHost): the DMA engines read and write it
// directly, where pageable memory goes through a driver staging copy.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes);
  std::byte* get() const { return data_.get(); }

 private:
  struct Free {
    void operator()(std::byte* data) const noexcept { cudaFreeHost(data); }
  };
  std::unique_ptr<std::byte, Free> data_;
};

// Page-locked host memory the device reaches over the host link (cudaHostAlloc with
// cudaHostAllocMapped, cudaHostGetDevicePointer): --memory mapped, where kernels read and write it in
// place. `get()` is the host's address, `device()` the kernels'.
class MappedHostBuffer {
 public:
  MappedHostBuffer() = default;
  explicit MappedHostBuffer(std::size_t bytes);
  std::byte* get() const { return data_.get(); }
  std::byte* device() const { return device_; }

 private:
  struct Free {
    void operator()(std::byte* data) const noexcept { cudaFreeHost(data); }
  };
  std::unique_ptr<std::byte, Free> data_;
  std::byte* device_ = nullptr;
};

// Managed memory (cudaMallocManaged): one address for host and device, the driver migrating pages
// (--memory managed).
class ManagedBuffer {
 public:
  ManagedBuffer() = default;
  explicit ManagedBuffer(std::size_t bytes);
  std::byte* get() const { return data_.get(); }

 private:
  struct Free {
    void operator()(std::byte* data) const noexcept { cudaFree(data); }
  };
  std::unique_ptr<std::byte, Free> data_;
};

// Queues a migration of managed memory to device `ordinal`, or to the host when `ordinal` is
// cudaCpuDeviceId (cudaMemPrefetchAsync, whose signature CUDA 13 changed).
void prefetch(const void* data, std::size_t bytes, int ordinal, cudaStream_t stream);

struct StreamDestroy {
  void operator()(std::remove_pointer_t<cudaStream_t>* stream) const noexcept { cudaStreamDestroy(stream); }
};
using Stream = std::unique_ptr<std::remove_pointer_t<cudaStream_t>, StreamDestroy>;
// A stream that does not synchronize with the legacy default stream (cudaStreamNonBlocking), so
// nothing another library queues on stream 0 lands inside a timed bracket.
Stream make_stream();

struct EventDestroy {
  void operator()(std::remove_pointer_t<cudaEvent_t>* event) const noexcept { cudaEventDestroy(event); }
};
using Event = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, EventDestroy>;

// Two events bracketing work on one stream; elapsed_ms() needs `stop` to have completed.
struct EventPair {
  Event start, stop;
  void record_start(cudaStream_t stream) const;
  void record_stop(cudaStream_t stream) const;
  double elapsed_ms() const;
};
EventPair make_event_pair();

// What a texture's texels are and how a read returns them: one float read as it is; or 8-bit, one
// channel or four (RGBA8), read as normalized floats, 0..1 for 0..255 (texture.cu scales back by 255).
struct TexelFormat {
  cudaChannelFormatDesc channel;
  cudaTextureReadMode read_mode;
};
// The texel format of a frame unit in a pixel format of common/geometry/pixel.h (CC_PIXEL_F32, ...).
TexelFormat texel_format(int pixel_format);

// One frame unit (a float plane, or the 8-bit image) as a cudaArray read through a texture object:
// point sampling, unnormalized coordinates. A zero border uses cudaAddressModeBorder (0 outside, in
// every channel), every other border cudaAddressModeClamp; texture.cu folds mirror and wrap into range
// itself, because the hardware's wrap and mirror modes need normalized coordinates.
class TextureImage {
 public:
  TextureImage(int width, int height, Border border, const TexelFormat& format);
  ~TextureImage();
  TextureImage(TextureImage&& other) noexcept;
  TextureImage& operator=(TextureImage&& other) noexcept;
  TextureImage(const TextureImage&) = delete;
  TextureImage& operator=(const TextureImage&) = delete;

  cudaArray_t array() const { return array_.get(); }
  cudaTextureObject_t texture() const { return texture_; }

 private:
  struct Free {
    void operator()(cudaArray_t array) const noexcept { cudaFreeArray(array); }
  };
  // The destructor's body destroys the texture object; this member frees the array after it.
  std::unique_ptr<std::remove_pointer_t<cudaArray_t>, Free> array_;
  cudaTextureObject_t texture_ = 0;
};

// Bytes of device memory free now (cudaMemGetInfo), for the skip-before-allocating check.
std::size_t free_device_memory();

// Sizes in messages ("needs 12.0 MB, device has 3.5 MB free").
inline double megabytes(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

}  // namespace cc::cuda
