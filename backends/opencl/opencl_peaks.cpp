// opencl_peaks.cpp: peak.cl's copy and FMA kernels, timed as cuda_peaks.cpp times peak.cu's, cached per device.
#include "backends/opencl/opencl_peaks.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "backends/embedded_sources.h"
#include "backends/opencl/cl_check.h"
#include "backends/opencl/opencl_backend_impl.h"
#include "common/domain/error.h"
#include "common/geometry/peak_shape.h"

namespace cc::opencl {

namespace {

// OpenCL C 1.2 without math flags, as the variants' programs are built.
constexpr const char* kPeakBuildOptions = "-cl-std=CL1.2";

// One untimed launch (first-touch and clock ramp-up stay out), then the fastest of the timed ones:
// the ceiling is what the device can do, not what it does on average.
double best_launch_ms(const cl::CommandQueue& queue, const cl::Kernel& kernel, int groups, int group_size) {
  const cl::NDRange global(static_cast<std::size_t>(groups) * group_size);
  const cl::NDRange local(group_size);
  CC_CL(queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local));
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < kPeakTimedLaunches; ++i) {
    cl::Event event;
    CC_CL(queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &event));
    CC_CL(queue.finish());
    const cl_ulong start = CC_CL_OUT(event.getProfilingInfo<CL_PROFILING_COMMAND_START>(err));
    const cl_ulong end = CC_CL_OUT(event.getProfilingInfo<CL_PROFILING_COMMAND_END>(err));
    best = std::min(best, static_cast<double>(end - start) * 1e-6);  // nanoseconds
  }
  return best;
}

}  // namespace

DevicePeaks measure_peaks(const cl::Device& device, const cl::Context& context, const cl::CommandQueue& queue,
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

  DevicePeaks peaks;
  {
    const cl::Buffer source = CC_CL_OUT(cl::Buffer(context, CL_MEM_READ_ONLY, shape.copy_bytes, nullptr, err));
    const cl::Buffer target = CC_CL_OUT(cl::Buffer(context, CL_MEM_WRITE_ONLY, shape.copy_bytes, nullptr, err));
    CC_CL(queue.enqueueFillBuffer(source, 0.0f, 0, shape.copy_bytes));
    CC_CL(copy.setArg(0, source));
    CC_CL(copy.setArg(1, target));
    CC_CL(copy.setArg(2, static_cast<cl_int>(shape.copy_bytes / 16)));  // float4s
    peaks.copy_gb_per_s = copy_gb_per_s(shape, best_launch_ms(queue, copy, shape.copy_groups, shape.group_size));
  }
  const std::size_t result_bytes = static_cast<std::size_t>(shape.fma_groups) * shape.group_size * sizeof(float);
  const cl::Buffer result = CC_CL_OUT(cl::Buffer(context, CL_MEM_WRITE_ONLY, result_bytes, nullptr, err));
  CC_CL(fma.setArg(0, result));
  CC_CL(fma.setArg(1, kPeakScale));
  CC_CL(fma.setArg(2, kPeakOffset));
  CC_CL(fma.setArg(3, static_cast<cl_int>(shape.fma_iterations)));
  peaks.fma_gflop_per_s = fma_gflop_per_s(shape, best_launch_ms(queue, fma, shape.fma_groups, shape.group_size));
  return peaks;
}

DevicePeaks OpenClBackend::measure_peaks(int device) {
  discover();
  if (device < 0 || device >= static_cast<int>(discovery_.devices.size()))
    throw InputError(fmt::format("no OpenCL device {} ({} found)", device, discovery_.devices.size()));
  if (auto found = peaks_.find(device); found != peaks_.end()) return found->second;
  const BuiltProgram& built =
      program_for(device, "peak", embedded_source(embedded_cl_sources(), "peak.cl"), kPeakBuildOptions);
  const DeviceQueue& device_queue = queue_for(device);
  return peaks_[device] = opencl::measure_peaks(discovery_.devices[device].device, device_queue.context,
                                                device_queue.queue, built.program);
}

}  // namespace cc::opencl
