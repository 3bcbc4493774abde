// separable.cu: a rank-1 filter (column x row) as two 1D passes, along the rows into a temporary, then
// down its columns: 2r+1 + 2r+1 taps per pixel instead of (2r+1)^2. Borders stay exact: the row pass
// folds x, the column pass folds y, and a zero border zeroes a product whenever either coordinate is
// outside. Both 1D filters are in __constant__ memory.
#include "kernels_cuda/launchers.h"

namespace {

__constant__ float c_row_filter[cc::cuda_kernels::kMaxSeparableTaps];
__constant__ float c_column_filter[cc::cuda_kernels::kMaxSeparableTaps];

__global__ void convolve_rows(const float* __restrict__ input,
                              float* __restrict__ rows_done,
                              const ConvArgs args)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= args.width || y >= args.height) return;

    float sum = 0.0f;
    for (int fx = 0; fx < args.filter_width; ++fx) {
        const int sx = cc_border_index(x + fx - args.radius_x, args.width, args.border);
        const float pixel = sx < 0 ? 0.0f : input[y * args.pitch + sx];
        sum += pixel * c_row_filter[fx];
    }
    rows_done[y * args.pitch + x] = sum;
}

__global__ void convolve_columns(const float* __restrict__ rows_done,
                                 float* __restrict__ output,
                                 const ConvArgs args)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= args.width || y >= args.height) return;

    float sum = 0.0f;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        const int sy = cc_border_index(y + fy - args.radius_y, args.height, args.border);
        const float pixel = sy < 0 ? 0.0f : rows_done[sy * args.pitch + x];
        sum += pixel * c_column_filter[fy];
    }
    output[y * args.pitch + x] = sum;
}

}  // namespace

namespace cc::cuda_kernels {

cudaError_t upload_separable_filters(const float* row_filter, const float* column_filter,
                                     const ConvArgs& args, cudaStream_t stream)
{
    if (args.filter_width > kMaxSeparableTaps || args.filter_height > kMaxSeparableTaps) return cudaErrorInvalidValue;
    cudaError_t status = cudaMemcpyToSymbolAsync(c_row_filter, row_filter, args.filter_width * sizeof(float), 0,
                                                 cudaMemcpyHostToDevice, stream);
    if (status != cudaSuccess) return status;
    return cudaMemcpyToSymbolAsync(c_column_filter, column_filter, args.filter_height * sizeof(float), 0,
                                   cudaMemcpyHostToDevice, stream);
}

cudaError_t launch_separable(const float* input, float* rows_done, float* output, const ConvArgs& args,
                             dim3 block, cudaStream_t stream)
{
    convolve_rows<<<grid_for(args, block), block, 0, stream>>>(input, rows_done, args);
    cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) return status;
    convolve_columns<<<grid_for(args, block), block, 0, stream>>>(rows_done, output, args);
    return cudaGetLastError();
}

}  // namespace cc::cuda_kernels
