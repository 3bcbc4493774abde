// cl_svm.cpp: the OpenCL 2.0 SVM calls, declared by CL/cl.h only for a 2.0 target, kept to this file (CMakeLists.txt targets 1.2).
#define CL_TARGET_OPENCL_VERSION 200
#include "backends/opencl/cl_svm.h"

#include <CL/cl.h>

#include "backends/opencl/cl_check.h"
#include "common/domain/error.h"

namespace cc::opencl {

namespace {

// Keeps a raw event as opencl.hpp's, which releases it. PoCL answers an SVM map or unmap on its
// unified memory with CL_SUCCESS and no event (nothing to do): the caller gets an empty cl::Event.
cl_int give_event(cl_int status, cl_event raw, cl::Event* event) {
  if (status != CL_SUCCESS || raw == nullptr) return status;
  if (event) *event = cl::Event(raw);
  else clReleaseEvent(raw);
  return status;
}

}  // namespace

std::string svm_refusal(const cl::Device& device, SvmGrain grain) {
  const std::string mode = grain == SvmGrain::Coarse ? "--memory managed" : "--memory managed-faults";
  cl_device_svm_capabilities capabilities = 0;
  // A 1.x device does not know the query (CL_INVALID_VALUE): no SVM there.
  const cl_int status =
      clGetDeviceInfo(device(), CL_DEVICE_SVM_CAPABILITIES, sizeof(capabilities), &capabilities, nullptr);
  if (status != CL_SUCCESS)
    return mode + ": the device has no shared virtual memory (CL_DEVICE_SVM_CAPABILITIES unknown: an OpenCL 1.x "
                  "device)";
  if (grain == SvmGrain::Coarse && (capabilities & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) == 0)
    return mode + ": the device offers no coarse-grained SVM buffers (CL_DEVICE_SVM_CAPABILITIES)";
  if (grain == SvmGrain::Fine && (capabilities & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) == 0)
    return mode + ((capabilities & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0
                       ? ": the device offers coarse-grained SVM only (CL_DEVICE_SVM_CAPABILITIES = " +
                             std::to_string(capabilities) + "): no fine-grained buffers the host reaches without map"
                       : ": the device offers no fine-grained SVM buffers (CL_DEVICE_SVM_CAPABILITIES = " +
                             std::to_string(capabilities) + ")");
  return "";
}

SvmBuffer::SvmBuffer(const cl::Context& context, std::size_t bytes, SvmGrain grain)
    : context_(context),
      data_(clSVMAlloc(context(), CL_MEM_READ_WRITE | (grain == SvmGrain::Fine ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0),
                       bytes, 0)) {
  if (!data_)  // clSVMAlloc has no status: a null pointer is its only word
    throw ApiError("OpenCL", CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES", "clSVMAlloc", __FILE__, __LINE__,
                   "the device could not allocate " + std::to_string(bytes) + " bytes of SVM");
}

SvmBuffer::SvmBuffer(SvmBuffer&& other) noexcept : context_(std::move(other.context_)), data_(other.data_) {
  other.data_ = nullptr;
}

SvmBuffer::~SvmBuffer() {
  if (data_) clSVMFree(context_(), data_);
}

cl_int enqueue_svm_map(const cl::CommandQueue& queue, void* data, std::size_t bytes, cl_map_flags flags,
                       cl::Event* event) {
  cl_event raw = nullptr;
  return give_event(clEnqueueSVMMap(queue(), CL_FALSE, flags, data, bytes, 0, nullptr, &raw),
                    raw, event);
}

cl_int enqueue_svm_unmap(const cl::CommandQueue& queue, void* data, cl::Event* event) {
  cl_event raw = nullptr;
  return give_event(clEnqueueSVMUnmap(queue(), data, 0, nullptr, &raw), raw, event);
}

cl_int enqueue_svm_fill(const cl::CommandQueue& queue, void* data, unsigned char byte, std::size_t bytes,
                        cl::Event* event) {
  cl_event raw = nullptr;
  const cl_uchar pattern = byte;
  return give_event(clEnqueueSVMMemFill(queue(), data, &pattern, sizeof(pattern), bytes, 0, nullptr, &raw), raw,
                    event);
}

cl_int set_svm_arg(const cl::Kernel& kernel, cl_uint index, const void* data) {
  return clSetKernelArgSVMPointer(kernel(), index, data);
}

}  // namespace cc::opencl
