// opencl_peaks.h: an OpenCL device's measured ceilings: copy bandwidth and FP32 FMA rate (kernels_cl/peak.cl).
#pragma once

#include <CL/opencl.hpp>

#include "common/report/record.h"

namespace cc::opencl {

// Runs the copy and FMA kernels of `program` (kernels_cl/peak.cl, built for `device`) on `queue`,
// which must have profiling enabled, sized by peak_shape(); each the best of a few event-timed
// launches after a warm-up. Throws ApiError on an OpenCL failure.
DevicePeaks measure_peaks(const cl::Device& device, const cl::Context& context, const cl::CommandQueue& queue,
                          const cl::Program& program);

}  // namespace cc::opencl
