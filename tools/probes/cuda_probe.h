// cuda_probe.h: what the CUDA probes share: a failed runtime call as one line on stderr naming the probe and the call, then exit 2.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

namespace cuda_probe {
inline const char* program = "probe";  // named in each failure; main sets it first
}  // namespace cuda_probe

#define CHECK(call)                                                                                            \
  do {                                                                                                         \
    const cudaError_t status_ = (call);                                                                        \
    if (status_ != cudaSuccess) {                                                                              \
      std::fprintf(stderr, "%s: %s: %s\n", ::cuda_probe::program, #call, cudaGetErrorString(status_));          \
      std::exit(2);                                                                                            \
    }                                                                                                          \
  } while (0)
