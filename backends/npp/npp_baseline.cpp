// npp_baseline.cpp: the NPP calls behind the npp and npp-separable variants, every NppStatus checked.
#include "backends/npp/npp_baseline.h"

#include <string>

#include <nppi_filtering_functions.h>

#include "backends/cuda/cuda_check.h"
#include "common/domain/error.h"

namespace cc::npp {

namespace {

// The codes a filter call can plausibly return; NPP has no function that names its status codes.
std::string status_name(NppStatus status) {
  switch (status) {
    case NPP_NOT_SUPPORTED_MODE_ERROR: return "NPP_NOT_SUPPORTED_MODE_ERROR";
    case NPP_CUDA_KERNEL_EXECUTION_ERROR: return "NPP_CUDA_KERNEL_EXECUTION_ERROR";
    case NPP_NOT_SUFFICIENT_COMPUTE_CAPABILITY: return "NPP_NOT_SUFFICIENT_COMPUTE_CAPABILITY";
    case NPP_ANCHOR_ERROR: return "NPP_ANCHOR_ERROR";
    case NPP_MASK_SIZE_ERROR: return "NPP_MASK_SIZE_ERROR";
    case NPP_STEP_ERROR: return "NPP_STEP_ERROR";
    case NPP_MEMORY_ALLOCATION_ERR: return "NPP_MEMORY_ALLOCATION_ERR";
    case NPP_NULL_POINTER_ERROR: return "NPP_NULL_POINTER_ERROR";
    case NPP_SIZE_ERROR: return "NPP_SIZE_ERROR";
    case NPP_BAD_ARGUMENT_ERROR: return "NPP_BAD_ARGUMENT_ERROR";
    default: return "NppStatus " + std::to_string(static_cast<int>(status));
  }
}

void check(NppStatus status, const char* call, const char* file, int line) {
  if (status >= NPP_SUCCESS) return;  // positive codes are warnings (a slower path), not failures
  cudaGetLastError();  // NPP launches kernels too: leave no stale runtime error behind
  throw ApiError("NPP", static_cast<long>(status), status_name(status), call, file, line);
}

}  // namespace

#define CC_NPP_CHECK(expr) check((expr), #expr, __FILE__, __LINE__)

NppStreamContext make_stream_context(int device, cudaStream_t stream) {
  NppStreamContext context{};
  context.hStream = stream;
  context.nCudaDeviceId = device;
  CC_CUDA_CHECK(cudaDeviceGetAttribute(&context.nMultiProcessorCount, cudaDevAttrMultiProcessorCount, device));
  CC_CUDA_CHECK(cudaDeviceGetAttribute(&context.nMaxThreadsPerMultiProcessor,
                                       cudaDevAttrMaxThreadsPerMultiProcessor, device));
  CC_CUDA_CHECK(cudaDeviceGetAttribute(&context.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, device));
  int shared_per_block = 0;
  CC_CUDA_CHECK(cudaDeviceGetAttribute(&shared_per_block, cudaDevAttrMaxSharedMemoryPerBlock, device));
  context.nSharedMemPerBlock = static_cast<std::size_t>(shared_per_block);
  CC_CUDA_CHECK(cudaDeviceGetAttribute(&context.nCudaDevAttrComputeCapabilityMajor,
                                       cudaDevAttrComputeCapabilityMajor, device));
  CC_CUDA_CHECK(cudaDeviceGetAttribute(&context.nCudaDevAttrComputeCapabilityMinor,
                                       cudaDevAttrComputeCapabilityMinor, device));
  CC_CUDA_CHECK(cudaStreamGetFlags(stream, &context.nStreamFlags));
  return context;
}

std::vector<float> reversed(std::span<const float> coefficients) {
  return {coefficients.rbegin(), coefficients.rend()};
}

void filter_2d(const float* input, float* output, const ConvArgs& args, const float* reversed_filter,
               const NppStreamContext& context) {
  const int step = args.pitch * static_cast<int>(sizeof(float));  // NPP steps are in bytes
  const NppiSize size{args.width, args.height};
  CC_NPP_CHECK(nppiFilterBorder_32f_C1R_Ctx(input, step, size, NppiPoint{0, 0}, output, step, size, reversed_filter,
                                            NppiSize{args.filter_width, args.filter_height},
                                            NppiPoint{args.radius_x, args.radius_y}, NPP_BORDER_REPLICATE, context));
}

void filter_separable(const float* input, float* rows_done, float* output, const ConvArgs& args,
                      const float* reversed_row, const float* reversed_column, const NppStreamContext& context) {
  const int step = args.pitch * static_cast<int>(sizeof(float));
  const NppiSize size{args.width, args.height};
  CC_NPP_CHECK(nppiFilterRowBorder_32f_C1R_Ctx(input, step, size, NppiPoint{0, 0}, rows_done, step, size, reversed_row,
                                               args.filter_width, args.radius_x, NPP_BORDER_REPLICATE, context));
  CC_NPP_CHECK(nppiFilterColumnBorder_32f_C1R_Ctx(rows_done, step, size, NppiPoint{0, 0}, output, step, size,
                                                  reversed_column, args.filter_height, args.radius_y,
                                                  NPP_BORDER_REPLICATE, context));
}

namespace {

// One 8-bit pass along the rows (nppiFilterRowBorder32f_8u) or down the columns (ColumnBorder), 1 or 4 channels.
void pass_8u(bool along_rows, const Npp8u* input, Npp8u* output, int channels, const ConvArgs& args,
             const float* reversed, const NppStreamContext& context) {
  const int step = args.pitch * channels;  // one byte per channel
  const NppiSize size{args.width, args.height};
  const Npp32s taps = along_rows ? args.filter_width : args.filter_height;
  const Npp32s anchor = along_rows ? args.radius_x : args.radius_y;
  if (along_rows && channels == 1)
    CC_NPP_CHECK(nppiFilterRowBorder32f_8u_C1R_Ctx(input, step, size, NppiPoint{0, 0}, output, step, size, reversed,
                                                   taps, anchor, NPP_BORDER_REPLICATE, context));
  else if (along_rows)
    CC_NPP_CHECK(nppiFilterRowBorder32f_8u_C4R_Ctx(input, step, size, NppiPoint{0, 0}, output, step, size, reversed,
                                                   taps, anchor, NPP_BORDER_REPLICATE, context));
  else if (channels == 1)
    CC_NPP_CHECK(nppiFilterColumnBorder32f_8u_C1R_Ctx(input, step, size, NppiPoint{0, 0}, output, step, size,
                                                      reversed, taps, anchor, NPP_BORDER_REPLICATE, context));
  else
    CC_NPP_CHECK(nppiFilterColumnBorder32f_8u_C4R_Ctx(input, step, size, NppiPoint{0, 0}, output, step, size,
                                                      reversed, taps, anchor, NPP_BORDER_REPLICATE, context));
}

}  // namespace

void filter_2d(const unsigned char* input, unsigned char* output, int channels, const ConvArgs& args,
               const float* reversed_filter, const NppStreamContext& context) {
  const int step = args.pitch * channels;  // one byte per channel
  const NppiSize size{args.width, args.height};
  const NppiSize mask{args.filter_width, args.filter_height};
  const NppiPoint anchor{args.radius_x, args.radius_y};
  if (channels == 1)
    CC_NPP_CHECK(nppiFilterBorder32f_8u_C1R_Ctx(input, step, size, NppiPoint{0, 0}, output, step, size, reversed_filter,
                                                mask, anchor, NPP_BORDER_REPLICATE, context));
  else
    CC_NPP_CHECK(nppiFilterBorder32f_8u_C4R_Ctx(input, step, size, NppiPoint{0, 0}, output, step, size, reversed_filter,
                                                mask, anchor, NPP_BORDER_REPLICATE, context));
}

void filter_separable(const unsigned char* input, unsigned char* first_done, unsigned char* output, int channels,
                      const ConvArgs& args, bool column_first, const float* reversed_first,
                      const float* reversed_second, const NppStreamContext& context) {
  pass_8u(!column_first, input, first_done, channels, args, reversed_first, context);
  pass_8u(column_first, first_done, output, channels, args, reversed_second, context);
}

}  // namespace cc::npp
