// fft.cu: the `fft` variant's own kernels around cuFFT's transforms: crop the padded result back out, or on the unpadded path recompute the edge bands the transform's wrap-around got wrong; and, where cuFFT could not plan the LTO callbacks (fft_callbacks.cu), the padding and the product as passes of their own.
#include "kernels_cuda/launchers.h"

#define FFT_BAND_ROWS 8  // outputs per thread down a column: common/geometry/fft_shape.h's kFftBandRows

namespace {

// Every float of the padded buffer (padded_pitch x padded_height): the image shifted by the radius,
// its apron read through the border rule as the direct kernels read it, zeros beyond (the room that
// keeps the transform's wrap-around from reaching the result) and in the row padding.
__global__ void fft_pad(const float* __restrict__ input,
                        float* __restrict__ padded,
                        const ConvArgs args,
                        const int padded_height,
                        const int padded_pitch)
{
    const int u = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = blockIdx.y * blockDim.y + threadIdx.y;
    if (u >= padded_pitch || v >= padded_height) return;

    float value = 0.0f;
    if (u < args.width + 2 * args.radius_x && v < args.height + 2 * args.radius_y) {
        const int sx = cc_border_index(u - args.radius_x, args.width, args.border);
        const int sy = cc_border_index(v - args.radius_y, args.height, args.border);
        if (sx >= 0 && sy >= 0) value = input[sy * args.pitch + sx];
    }
    padded[(size_t)v * padded_pitch + u] = value;
}

// The plane's spectrum times the filter's (already reversed and scaled), one complex number each.
__global__ void fft_multiply(float2* __restrict__ spectrum,
                             const float2* __restrict__ filter_spectrum,
                             const int count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;

    const float2 a = spectrum[i];
    const float2 b = filter_spectrum[i];
    spectrum[i] = make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// Output pixel (x, y) is the correlation centred on padded (x + radius_x, y + radius_y).
__global__ void fft_crop(const float* __restrict__ padded,
                         float* __restrict__ output,
                         const ConvArgs args,
                         const int padded_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= args.width || y >= args.height) return;

    output[y * args.pitch + x] = padded[(size_t)(y + args.radius_y) * padded_pitch + x + args.radius_x];
}

// Edge band `band` of the image (common/geometry/fft_shape.h's fft_band_blocks order): top, bottom, left, right.
__device__ void band_rectangle(const int band, const ConvArgs& args, int& x0, int& y0, int& width, int& height)
{
    const bool across = band < 2;  // top and bottom: full width; left and right: the rows between
    x0 = band == 3 ? args.width - args.radius_x : 0;
    y0 = band == 0 ? 0 : band == 1 ? args.height - args.radius_y : args.radius_y;
    width = across ? args.width : args.radius_x;
    height = across ? args.radius_y : args.height - 2 * args.radius_y;
}

// The direct correlation of the edge bands, over what the inverse transform wrote there. Each thread
// computes FFT_BAND_ROWS outputs down one column (a warp's reads are one coalesced row segment), reading
// the input rows in chunks of FFT_BAND_ROWS: each pixel of a chunk feeds every output of the thread,
// through the 16 zero-padded coefficients from the chunk's start (common/geometry/fft_shape.h), so no filter
// row needs a bounds test. Rows are folded once per chunk, columns once per filter column.
__global__ void fft_bands(const float* __restrict__ input,
                          float* __restrict__ output,
                          const float* __restrict__ coefficients,
                          const ConvArgs args,
                          const int column_length)
{
    const int block_rows = blockDim.y * FFT_BAND_ROWS;
    int block = blockIdx.x, band = 0, x0 = 0, y0 = 0, width = 0, height = 0, blocks_across = 0;
    for (; band < 4; ++band) {
        band_rectangle(band, args, x0, y0, width, height);
        blocks_across = width > 0 ? (width + blockDim.x - 1) / blockDim.x : 0;
        const int blocks = height > 0 ? blocks_across * ((height + block_rows - 1) / block_rows) : 0;
        if (block < blocks) break;
        block -= blocks;
    }
    if (band == 4) return;
    const int x = x0 + (block % blocks_across) * blockDim.x + threadIdx.x;
    const int first_row = y0 + (block / blocks_across) * block_rows + threadIdx.y * FFT_BAND_ROWS;
    if (x >= x0 + width || first_row >= y0 + height) return;

    float sum[FFT_BAND_ROWS];
    #pragma unroll
    for (int o = 0; o < FFT_BAND_ROWS; ++o) sum[o] = 0.0f;

    const int input_rows = args.filter_height + FFT_BAND_ROWS - 1;
    for (int chunk = 0; chunk < input_rows; chunk += FFT_BAND_ROWS) {
        int row_start[FFT_BAND_ROWS];  // -1: a row of zeros (zero border)
        #pragma unroll
        for (int j = 0; j < FFT_BAND_ROWS; ++j) {
            const int sy = cc_border_index(first_row - args.radius_y + chunk + j, args.height, args.border);
            row_start[j] = sy < 0 ? -1 : sy * args.pitch;
        }
        for (int fx = 0; fx < args.filter_width; ++fx) {
            const int sx = cc_border_index(x - args.radius_x + fx, args.width, args.border);
            if (sx < 0) continue;  // a column of zeros
            float pixel[FFT_BAND_ROWS];
            #pragma unroll
            for (int j = 0; j < FFT_BAND_ROWS; ++j) pixel[j] = row_start[j] < 0 ? 0.0f : input[row_start[j] + sx];
            // Input row chunk + j feeds output o through filter row chunk + j - o, stored at j - o + 8.
            const float4* column = reinterpret_cast<const float4*>(coefficients + fx * column_length + chunk);
            float c[2 * FFT_BAND_ROWS];
            #pragma unroll
            for (int q = 0; q < FFT_BAND_ROWS / 2; ++q) {
                const float4 four = __ldg(column + q);
                c[4 * q] = four.x;
                c[4 * q + 1] = four.y;
                c[4 * q + 2] = four.z;
                c[4 * q + 3] = four.w;
            }
            #pragma unroll
            for (int j = 0; j < FFT_BAND_ROWS; ++j)
                #pragma unroll
                for (int o = 0; o < FFT_BAND_ROWS; ++o) sum[o] += c[j - o + FFT_BAND_ROWS] * pixel[j];
        }
    }

    #pragma unroll
    for (int o = 0; o < FFT_BAND_ROWS; ++o)
        if (first_row + o < y0 + height) output[(first_row + o) * args.pitch + x] = sum[o];
}

}  // namespace

namespace cc::cuda_kernels {

cudaError_t launch_fft_pad(const float* input, float* padded, const ConvArgs& args, int padded_height,
                           int padded_pitch, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((padded_pitch + block.x - 1) / block.x, (padded_height + block.y - 1) / block.y);
    fft_pad<<<grid, block, 0, stream>>>(input, padded, args, padded_height, padded_pitch);
    return cudaGetLastError();
}

cudaError_t launch_fft_multiply(float2* spectrum, const float2* filter_spectrum, int count, cudaStream_t stream)
{
    const int block = 256;
    fft_multiply<<<(count + block - 1) / block, block, 0, stream>>>(spectrum, filter_spectrum, count);
    return cudaGetLastError();
}

cudaError_t launch_fft_crop(const float* padded, float* output, const ConvArgs& args, int padded_pitch,
                            cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((args.width + block.x - 1) / block.x, (args.height + block.y - 1) / block.y);
    fft_crop<<<grid, block, 0, stream>>>(padded, output, args, padded_pitch);
    return cudaGetLastError();
}

cudaError_t launch_fft_bands(const float* input, float* output, const float* coefficients, int column_length,
                             const ConvArgs& args, int blocks, cudaStream_t stream)
{
    if (blocks == 0) return cudaSuccess;
    const dim3 block(kFftBandBlockX, kFftBandBlockY);
    fft_bands<<<blocks, block, 0, stream>>>(input, output, coefficients, args, column_length);
    return cudaGetLastError();
}

}  // namespace cc::cuda_kernels
