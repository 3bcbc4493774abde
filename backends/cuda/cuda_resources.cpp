// cuda_resources.cpp: the RAII owners' constructors: every allocation checked, failures with sizes.
#include "backends/cuda/cuda_resources.h"

#include <utility>

#include <fmt/format.h>

#include "backends/cuda/cuda_check.h"
#include "common/geometry/pixel.h"

namespace cc::cuda {

std::size_t free_device_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  CC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

DeviceBuffer::DeviceBuffer(std::size_t count) : count_(count) {
  void* data = nullptr;
  const cudaError_t status = cudaMalloc(&data, bytes());
  if (status != cudaSuccess) {
    cudaGetLastError();
    std::size_t free_bytes = 0, total_bytes = 0;
    const bool known = cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess;
    cudaGetLastError();
    throw_cuda_error(status, "cudaMalloc", __FILE__, __LINE__,
                     known ? fmt::format("{}: asked for {:.1f} MB, device has {:.1f} MB free",
                                         cudaGetErrorString(status), megabytes(bytes()), megabytes(free_bytes))
                           : fmt::format("{}: asked for {:.1f} MB", cudaGetErrorString(status), megabytes(bytes())));
  }
  data_.reset(static_cast<float*>(data));
}

PinnedBuffer::PinnedBuffer(std::size_t bytes) {
  void* data = nullptr;
  const cudaError_t status = cudaMallocHost(&data, bytes);
  if (status != cudaSuccess)
    throw_cuda_error(status, "cudaMallocHost", __FILE__, __LINE__,
                     fmt::format("{}: asked for {:.1f} MB of page-locked host memory", cudaGetErrorString(status),
                                 megabytes(bytes)));
  data_.reset(static_cast<std::byte*>(data));
}

MappedHostBuffer::MappedHostBuffer(std::size_t bytes) {
  void* data = nullptr;
  const cudaError_t status = cudaHostAlloc(&data, bytes, cudaHostAllocMapped);
  if (status != cudaSuccess)
    throw_cuda_error(status, "cudaHostAlloc", __FILE__, __LINE__,
                     fmt::format("{}: asked for {:.1f} MB of mapped page-locked host memory",
                                 cudaGetErrorString(status), megabytes(bytes)));
  data_.reset(static_cast<std::byte*>(data));
  void* device = nullptr;
  CC_CUDA_CHECK(cudaHostGetDevicePointer(&device, data, 0));
  device_ = static_cast<std::byte*>(device);
}

ManagedBuffer::ManagedBuffer(std::size_t bytes) {
  void* data = nullptr;
  const cudaError_t status = cudaMallocManaged(&data, bytes, cudaMemAttachGlobal);
  if (status != cudaSuccess)
    throw_cuda_error(status, "cudaMallocManaged", __FILE__, __LINE__,
                     fmt::format("{}: asked for {:.1f} MB of managed memory", cudaGetErrorString(status),
                                 megabytes(bytes)));
  data_.reset(static_cast<std::byte*>(data));
}

void prefetch(const void* data, std::size_t bytes, int ordinal, cudaStream_t stream) {
#if CUDART_VERSION >= 13000
  cudaMemLocation location{};
  location.type = ordinal == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  location.id = ordinal == cudaCpuDeviceId ? 0 : ordinal;
  CC_CUDA_CHECK(cudaMemPrefetchAsync(data, bytes, location, 0, stream));
#else
  CC_CUDA_CHECK(cudaMemPrefetchAsync(data, bytes, ordinal, stream));
#endif
}

Stream make_stream() {
  cudaStream_t stream = nullptr;
  CC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return Stream(stream);
}

EventPair make_event_pair() {
  cudaEvent_t start = nullptr, stop = nullptr;
  CC_CUDA_CHECK(cudaEventCreate(&start));
  EventPair pair;
  pair.start.reset(start);
  CC_CUDA_CHECK(cudaEventCreate(&stop));
  pair.stop.reset(stop);
  return pair;
}

void EventPair::record_start(cudaStream_t stream) const { CC_CUDA_CHECK(cudaEventRecord(start.get(), stream)); }
void EventPair::record_stop(cudaStream_t stream) const { CC_CUDA_CHECK(cudaEventRecord(stop.get(), stream)); }

double EventPair::elapsed_ms() const {
  float ms = 0;
  CC_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

TexelFormat texel_format(int pixel_format) {
  // What cudaCreateChannelDesc<float>(), <uchar1>() and <uchar4>() of cuda_runtime.h return.
  switch (pixel_format) {
    case CC_PIXEL_U8:
      return {cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned), cudaReadModeNormalizedFloat};
    case CC_PIXEL_U8X4:
      return {cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned), cudaReadModeNormalizedFloat};
    default: return {cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat), cudaReadModeElementType};
  }
}

TextureImage::TextureImage(int width, int height, Border border, const TexelFormat& format) {
  cudaArray_t array = nullptr;
  CC_CUDA_CHECK(cudaMallocArray(&array, &format.channel, static_cast<std::size_t>(width),
                                static_cast<std::size_t>(height)));
  array_.reset(array);

  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;

  cudaTextureDesc description{};
  const cudaTextureAddressMode mode = border == Border::Zero ? cudaAddressModeBorder : cudaAddressModeClamp;
  description.addressMode[0] = mode;
  description.addressMode[1] = mode;
  description.filterMode = cudaFilterModePoint;  // the texel itself, never an interpolation
  description.readMode = format.read_mode;
  description.normalizedCoords = 0;  // texel coordinates, as the kernel computes them
  CC_CUDA_CHECK(cudaCreateTextureObject(&texture_, &resource, &description, nullptr));
}

TextureImage::~TextureImage() {
  if (texture_) cudaDestroyTextureObject(texture_);
}

TextureImage::TextureImage(TextureImage&& other) noexcept
    : array_(std::move(other.array_)), texture_(std::exchange(other.texture_, 0)) {}

TextureImage& TextureImage::operator=(TextureImage&& other) noexcept {
  if (this != &other) {
    if (texture_) cudaDestroyTextureObject(texture_);
    texture_ = std::exchange(other.texture_, 0);
    array_ = std::move(other.array_);
  }
  return *this;
}

}  // namespace cc::cuda
