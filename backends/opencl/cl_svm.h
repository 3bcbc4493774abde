// cl_svm.h: OpenCL 2.0's shared virtual memory (--memory managed, managed-faults) for a build that targets OpenCL 1.2 elsewhere.
#pragma once

#include <cstddef>
#include <string>

#include <CL/opencl.hpp>

namespace cc::opencl {

// The two kinds of SVM buffer a frame may live in: coarse-grained (--memory managed), which the host
// reaches only while mapped, and fine-grained (managed-faults), which it reaches directly whenever no
// command using it is in flight (the runtime moves or shares the pages on demand).
enum class SvmGrain : unsigned char { Coarse, Fine };

// Why `device` cannot hold a frame in SVM buffers of `grain` (CL_DEVICE_SVM_CAPABILITIES, a device
// older than 2.0), or "" when it can.
std::string svm_refusal(const cl::Device& device, SvmGrain grain);

// One SVM allocation (clSVMAlloc / clSVMFree). Coarse-grained, the host reaches it only while mapped
// (clEnqueueSVMMap), the device only while unmapped; fine-grained, the host reaches it between the
// commands using it. Whoever frees it has finished every queue using it.
class SvmBuffer {
 public:
  SvmBuffer(const cl::Context& context, std::size_t bytes, SvmGrain grain);
  ~SvmBuffer();
  SvmBuffer(SvmBuffer&& other) noexcept;
  SvmBuffer& operator=(SvmBuffer&&) = delete;
  SvmBuffer(const SvmBuffer&) = delete;
  SvmBuffer& operator=(const SvmBuffer&) = delete;
  void* get() const { return data_; }

 private:
  cl::Context context_;
  void* data_ = nullptr;
};

// The SVM commands, each giving its event as opencl.hpp's enqueue calls do (for CC_CL_ENQUEUE's spans).
cl_int enqueue_svm_map(const cl::CommandQueue& queue, void* data, std::size_t bytes, cl_map_flags flags, cl::Event* event);
cl_int enqueue_svm_unmap(const cl::CommandQueue& queue, void* data, cl::Event* event);
cl_int enqueue_svm_fill(const cl::CommandQueue& queue, void* data, unsigned char byte, std::size_t bytes,
                        cl::Event* event);
cl_int set_svm_arg(const cl::Kernel& kernel, cl_uint index, const void* data);

}  // namespace cc::opencl
