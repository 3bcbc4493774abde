// opencl_peaks.cpp: peak.cl's copy and FMA kernels, timed as cuda_peaks.cpp times peak.cu's.
#include "backends/opencl/opencl_peaks.h"

#include <algorithm>

#include "backends/measure.h"
#include "common/geometry/peak_shape.h"

namespace cc::opencl {

DevicePeaks measure_peaks(const cl::Device& device, const cl::Context& context, ClQueue& queue,
                          const cl::Program& program) {
  cl::Kernel copy = CC_CL_OUT(cl::Kernel(program, "copy_float4", err));
  cl::Kernel fma = CC_CL_OUT(cl::Kernel(program, "fma_chains", err));
  const std::size_t group_limit =
      std::min(CC_CL_OUT(copy.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device, err)),
               CC_CL_OUT(fma.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device, err)));
  const bool cpu = (CC_CL_OUT(device.getInfo<CL_DEVICE_TYPE>(err)) & CL_DEVICE_TYPE_CPU) != 0;
  const PeakShape shape =
      peak_shape(!cpu, static_cast<int>(CC_CL_OUT(device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>(err))),
                 CC_CL_OUT(device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>(err)),
                 CC_CL_OUT(device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>(err)), group_limit);
  const auto launcher = [&](const cl::Kernel& kernel, int groups) {
    const cl::NDRange global(static_cast<std::size_t>(groups) * shape.group_size), local(shape.group_size);
    return [&queue, &kernel, global, local] {
      CC_CL_ENQUEUE(queue, enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, event));
    };
  };

  double copy_ms = 0;
  {
    const cl::Buffer source = CC_CL_OUT(cl::Buffer(context, CL_MEM_READ_ONLY, shape.copy_bytes, nullptr, err));
    const cl::Buffer target = CC_CL_OUT(cl::Buffer(context, CL_MEM_WRITE_ONLY, shape.copy_bytes, nullptr, err));
    CC_CL_ENQUEUE(queue, enqueueFillBuffer(source, 0.0f, 0, shape.copy_bytes, nullptr, event));
    CC_CL(copy.setArg(0, source));
    CC_CL(copy.setArg(1, target));
    CC_CL(copy.setArg(2, static_cast<cl_int>(shape.copy_bytes / 16)));  // float4s
    copy_ms = best_span_ms(queue, launcher(copy, shape.copy_groups), kPeakTimedLaunches);
  }
  const std::size_t result_bytes = static_cast<std::size_t>(shape.fma_groups) * shape.group_size * sizeof(float);
  const cl::Buffer result = CC_CL_OUT(cl::Buffer(context, CL_MEM_WRITE_ONLY, result_bytes, nullptr, err));
  CC_CL(fma.setArg(0, result));
  CC_CL(fma.setArg(1, kPeakScale));
  CC_CL(fma.setArg(2, kPeakOffset));
  CC_CL(fma.setArg(3, static_cast<cl_int>(shape.fma_iterations)));
  const double fma_ms = best_span_ms(queue, launcher(fma, shape.fma_groups), kPeakTimedLaunches);
  return peaks_from_spans(shape, copy_ms, fma_ms);
}

}  // namespace cc::opencl
