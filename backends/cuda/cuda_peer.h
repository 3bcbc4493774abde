// cuda_peer.h: --split's halo rows between CUDA devices: peer access checked and enabled per pair, rows copied after another stream's upload.
#pragma once

#include <cstddef>
#include <string>

#include "backends/cuda/cuda_api.h"

namespace cc::cuda {

// Why `device` cannot read `peer`'s memory directly (cudaDeviceCanAccessPeer is 0), or "" once
// cudaDeviceEnablePeerAccess has let it (or had already). Leaves `device` current.
std::string peer_refusal_between(int device, int peer);

// Queues on `to_queue` (device `to_device`), after everything queued so far on `from_queue`: `bytes`
// from `from` on `from_device` to `to` (cudaMemcpyPeerAsync; the driver stages it through the host
// where peer access is off). Leaves `to_device` current.
void copy_peer(CudaQueue& to_queue, std::byte* to, int to_device, CudaQueue& from_queue, const std::byte* from,
               int from_device, std::size_t bytes);

}  // namespace cc::cuda
