// cuda_peer.cpp: --split's peer halo copies between CUDA devices (cuda_peer.h; docs/multi-device.md).
#include "backends/cuda/cuda_peer.h"

#include <fmt/format.h>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_resources.h"

namespace cc::cuda {

std::string peer_refusal_between(int device, int peer) {
  CC_CUDA_CHECK(cudaSetDevice(device));
  if (device == peer) return "";
  int can = 0;
  CC_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, peer));
  if (can != 1) return fmt::format("cudaDeviceCanAccessPeer(cuda:{}, cuda:{}) is 0", device, peer);
  if (const cudaError_t status = cudaDeviceEnablePeerAccess(peer, 0); status == cudaErrorPeerAccessAlreadyEnabled)
    cudaGetLastError();  // enabled by an earlier split: what was wanted
  else
    CC_CUDA_CHECK(status);
  return "";
}

void copy_peer(CudaQueue& to_queue, std::byte* to, int to_device, CudaQueue& from_queue, const std::byte* from,
               int from_device, std::size_t bytes) {
  // The source rows are being uploaded on the source's stream: this stream waits for that upload.
  CC_CUDA_CHECK(cudaSetDevice(from_device));
  cudaEvent_t uploaded = nullptr;
  CC_CUDA_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
  const Event owned(uploaded);  // destroyed once the wait is queued: CUDA keeps it until the wait is done
  CC_CUDA_CHECK(cudaEventRecord(uploaded, from_queue.stream()));
  CC_CUDA_CHECK(cudaSetDevice(to_device));
  CC_CUDA_CHECK(cudaStreamWaitEvent(to_queue.stream(), uploaded, 0));
  CC_CUDA_CHECK(cudaMemcpyPeerAsync(to, to_device, from, from_device, bytes, to_queue.stream()));
}

}  // namespace cc::cuda
