// cuda_check.h: CC_CUDA_CHECK, the one way a failed CUDA runtime call becomes a cc::ApiError.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

namespace cc::cuda {

// Clears CUDA's last error first (a later, unrelated call must not report this one again), then
// throws ApiError("CUDA", ...) naming the call and where it was made. `detail` defaults to CUDA's
// own description of the code.
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line,
                                   std::string detail = {});

}  // namespace cc::cuda

// Wraps every CUDA runtime call and every kernel launcher (they return cudaGetLastError()).
#define CC_CUDA_CHECK(expr)                                                          \
  do {                                                                               \
    const cudaError_t cc_cuda_status = (expr);                                       \
    if (cc_cuda_status != cudaSuccess)                                               \
      ::cc::cuda::throw_cuda_error(cc_cuda_status, #expr, __FILE__, __LINE__);       \
  } while (false)
