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

}  // namespace cc::npp
