// npp_baseline.h: NVIDIA's NPP filters, the vendor baseline the CUDA backend times like its own kernels.
#pragma once

#include <span>
#include <vector>

#include <cuda_runtime_api.h>
#include <nppdefs.h>

#include "common/geometry/conv_args.h"

namespace cc::npp {

// The context every NPP *_Ctx call takes, filled from the device's attributes and the stream's flags
// (what the deprecated nppGetStreamContext did for the legacy default stream).
NppStreamContext make_stream_context(int device, cudaStream_t stream);

// NPP applies its coefficients "stored in reverse order", as a true convolution: the last coefficient
// meets the first pixel under the mask. Passing the correlation filter reversed, with the anchor at
// the centre, makes NPP compute the same correlation as this project's kernels. For a 2D filter
// stored row by row, reversing the whole array is the 180-degree rotation.
std::vector<float> reversed(std::span<const float> coefficients);

// One plane (args.pitch floats per row), the whole 2D filter at once (nppiFilterBorder_32f_C1R_Ctx),
// replicate border. `reversed_filter` is in device memory.
void filter_2d(const float* input, float* output, const ConvArgs& args, const float* reversed_filter,
               const NppStreamContext& context);

// One plane, a rank-1 filter as a row pass into `rows_done` then a column pass into `output`
// (nppiFilterRowBorder / nppiFilterColumnBorder), replicate border: the column pass replicating the
// row pass's edge rows equals replicating the input's, so the result is exact for the clamp border.
void filter_separable(const float* input, float* rows_done, float* output, const ConvArgs& args,
                      const float* reversed_row, const float* reversed_column, const NppStreamContext& context);

// The 8-bit baselines: one unit of `channels` (1, or 4 interleaved: RGBA8) 8-bit pixels, args.pitch pixels
// per row, float coefficients and float arithmetic, an 8-bit result. How NPP rounds its result to 8 bits
// it does not document, so these are not held to this project's rounding rule: validation accepts any
// value within 1 of the exact one saturated to 0..255 (common/domain/validate.h, Tolerance::any_rounding).

// The whole 2D filter at once: nppiFilterBorder32f_8u_C1R_Ctx / _C4R_Ctx, replicate border.
void filter_2d(const unsigned char* input, unsigned char* output, int channels, const ConvArgs& args,
               const float* reversed_filter, const NppStreamContext& context);

// A rank-1 filter as two passes, row then column or column then row (eight_bit_passes.h), the first
// into `first_done` as 8-bit pixels (nppiFilterRowBorder32f_8u / nppiFilterColumnBorder32f_8u, _C1R_Ctx or
// _C4R_Ctx: NPP has no float intermediate for 8-bit), replicate border, which is exact for the clamp
// border in either order. So the result carries the first pass's rounding too, up to 1 per pixel of
// it, which the second pass weighs by the sum of its |coefficients| (the filter's sum |w|).
void filter_separable(const unsigned char* input, unsigned char* first_done, unsigned char* output, int channels,
                      const ConvArgs& args, bool column_first, const float* reversed_first,
                      const float* reversed_second, const NppStreamContext& context);

}  // namespace cc::npp
