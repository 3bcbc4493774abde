// cuda_peaks.h: a CUDA device's measured ceilings: copy bandwidth and FP32 FMA rate (kernels_cuda/peak.cu).
#pragma once

#include "common/domain/measurement.h"

namespace cc::cuda {

// Runs peak.cu's copy and FMA kernels on device `ordinal` (sized by peak_shape()), each the best of a
// few event-timed launches after a warm-up. Throws ApiError on a CUDA failure.
DevicePeaks measure_peaks(int ordinal);

}  // namespace cc::cuda
