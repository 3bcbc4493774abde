// cuda_check.cpp: turns a failed CUDA call into a cc::ApiError, clearing the runtime's last error first.
#include "backends/cuda/cuda_check.h"

#include "common/domain/error.h"

namespace cc::cuda {

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line, std::string detail) {
  // A non-sticky error stays "last" until read: left there, the next successful call's
  // cudaGetLastError() after a launch would report it against the wrong kernel.
  cudaGetLastError();
  if (detail.empty()) detail = cudaGetErrorString(code);
  throw ApiError("CUDA", static_cast<long>(code), cudaGetErrorName(code), call, file, line, std::move(detail));
}

}  // namespace cc::cuda
