// opencl_peaks.h: an OpenCL device's measured ceilings: copy bandwidth and FP32 FMA rate (kernels_cl/peak.cl).
#pragma once

#include <CL/opencl.hpp>

#include "backends/opencl/cl_api.h"
#include "common/domain/measurement.h"

namespace cc::opencl {

// Runs the copy and FMA kernels of `program` (kernels_cl/peak.cl, built for `device`) on `queue`, sized
// by peak_shape(); each the best of a few spans after a warm-up (backends/measure.h's best_span_ms,
// as the CUDA backend times peak.cu). Throws ApiError on an OpenCL failure.
DevicePeaks measure_peaks(const cl::Device& device, const cl::Context& context, ClQueue& queue,
                          const cl::Program& program);

}  // namespace cc::opencl
