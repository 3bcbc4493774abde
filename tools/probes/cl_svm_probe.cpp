// cl_svm_probe.cpp: what --memory managed's hand-overs cost on an OpenCL device, command by command: coarse-grained SVM unmaps and maps beside a mapped buffer's and pinned copies.
// Usage: cl_svm_probe PLATFORM DEVICE [BYTES]   (default 16777216: a 2048x2048 RGBA8 or f32 plane)
//   Each round hands an input and an output of BYTES to the device and takes the output back, as one
//   managed frame of convcompare does (backends/opencl/opencl_variants.cpp, ClFrame): the unmap of both
//   (the upload), then the map of the output (the download); beside them the same for CL_MEM_ALLOC_HOST_PTR
//   buffers (--memory mapped), pinned copies of the input up and the output down (--memory pinned), and
//   the SVM unmap of the input alone (what the upload would cost were the output not handed over). Each
//   command's device time from its profiling event, median of 9 rounds after one warm-up. Exit 2 with one
//   line on stderr when the device has no coarse-grained SVM or OpenCL 2.0.
#define CL_TARGET_OPENCL_VERSION 200
#include "cl_probe.h"

#include <cstring>

namespace {

using cl_probe::command_ms;
using cl_probe::fail;
using cl_probe::median;

}  // namespace

int main(int argc, char** argv) {
  cl_probe::program = "cl_svm_probe";
  if (argc < 3) fail("usage: cl_svm_probe PLATFORM DEVICE [BYTES]");
  const auto platform_index = static_cast<cl_uint>(std::atoi(argv[1]));
  const auto device_index = static_cast<cl_uint>(std::atoi(argv[2]));
  const std::size_t bytes = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : std::size_t{16777216};

  cl_uint platforms = 0;
  CHECK(clGetPlatformIDs(0, nullptr, &platforms));
  std::vector<cl_platform_id> platform(platforms);
  CHECK(clGetPlatformIDs(platforms, platform.data(), nullptr));
  if (platform_index >= platforms) fail("no platform " + std::to_string(platform_index));
  cl_uint devices = 0;
  CHECK(clGetDeviceIDs(platform[platform_index], CL_DEVICE_TYPE_ALL, 0, nullptr, &devices));
  std::vector<cl_device_id> device(devices);
  CHECK(clGetDeviceIDs(platform[platform_index], CL_DEVICE_TYPE_ALL, devices, device.data(), nullptr));
  if (device_index >= devices) fail("no device " + std::to_string(device_index));
  const cl_device_id id = device[device_index];
  cl_device_svm_capabilities svm = 0;
  if (clGetDeviceInfo(id, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, nullptr) != CL_SUCCESS ||
      !(svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
    fail("the device offers no coarse-grained SVM buffers");
  char name[256] = {};
  CHECK(clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof name, name, nullptr));
  std::printf("%s: %zu bytes an input and an output; median of 9 rounds, device ms from profiling events\n", name, bytes);

  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &status);
  CHECK(status);
  const cl_queue_properties profiling[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, id, profiling, &status);
  CHECK(status);

  // --memory managed: coarse-grained SVM, both mapped for the host at first, as ClFrame makes them.
  void* svm_in = clSVMAlloc(context, CL_MEM_READ_WRITE, bytes, 0);
  void* svm_out = clSVMAlloc(context, CL_MEM_READ_WRITE, bytes, 0);
  if (!svm_in || !svm_out) fail("clSVMAlloc failed");
  // --memory mapped: CL_MEM_ALLOC_HOST_PTR buffers, mapped at first.
  cl_mem mapped_in = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &status);
  CHECK(status);
  cl_mem mapped_out = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &status);
  CHECK(status);
  // --memory pinned: device buffers, copied from and to page-locked host memory (a mapped host buffer).
  cl_mem device_in = clCreateBuffer(context, CL_MEM_READ_ONLY, bytes, nullptr, &status);
  CHECK(status);
  cl_mem device_out = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  CHECK(status);
  cl_mem host_buffer = clCreateBuffer(context, CL_MEM_ALLOC_HOST_PTR, 2 * bytes, nullptr, &status);
  CHECK(status);
  auto* host = static_cast<unsigned char*>(clEnqueueMapBuffer(queue, host_buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                                              0, 2 * bytes, 0, nullptr, nullptr, &status));
  CHECK(status);
  std::memset(host, 3, 2 * bytes);

  const cl_map_flags both_ways = CL_MAP_READ | CL_MAP_WRITE;
  CHECK(clEnqueueSVMMap(queue, CL_TRUE, both_ways, svm_in, bytes, 0, nullptr, nullptr));
  CHECK(clEnqueueSVMMap(queue, CL_TRUE, both_ways, svm_out, bytes, 0, nullptr, nullptr));
  std::memset(svm_in, 1, bytes);
  std::memset(svm_out, 2, bytes);
  void* mapped_in_host = clEnqueueMapBuffer(queue, mapped_in, CL_TRUE, both_ways, 0, bytes, 0, nullptr, nullptr, &status);
  CHECK(status);
  void* mapped_out_host = clEnqueueMapBuffer(queue, mapped_out, CL_TRUE, both_ways, 0, bytes, 0, nullptr, nullptr, &status);
  CHECK(status);
  std::memset(mapped_in_host, 1, bytes);

  struct Row {
    const char* what;
    std::vector<double> ms;
  };
  std::vector<Row> rows = {{"SVM unmap, input (upload)", {}},       {"SVM unmap, output (upload)", {}},
                           {"SVM map, output (download)", {}},      {"SVM unmap of the input alone", {}},
                           {"mapped buffer unmap, input", {}},      {"mapped buffer unmap, output", {}},
                           {"mapped buffer map, output", {}},       {"pinned copy up (clEnqueueWriteBuffer)", {}},
                           {"pinned copy down (clEnqueueReadBuffer)", {}}};
  for (int round = 0; round < 10; ++round) {
    cl_event event[9] = {};
    // Managed, as ClFrame: both handed over, the output taken back; then the input mapped again for the
    // next round's host (outside the figures).
    CHECK(clEnqueueSVMUnmap(queue, svm_in, 0, nullptr, &event[0]));
    CHECK(clEnqueueSVMUnmap(queue, svm_out, 0, nullptr, &event[1]));
    CHECK(clEnqueueSVMMap(queue, CL_FALSE, both_ways, svm_out, bytes, 0, nullptr, &event[2]));
    CHECK(clEnqueueSVMMap(queue, CL_TRUE, both_ways, svm_in, bytes, 0, nullptr, nullptr));
    // The input alone handed over and back.
    CHECK(clEnqueueSVMUnmap(queue, svm_in, 0, nullptr, &event[3]));
    CHECK(clEnqueueSVMMap(queue, CL_TRUE, both_ways, svm_in, bytes, 0, nullptr, nullptr));
    // Mapped buffers, the same hand-overs.
    CHECK(clEnqueueUnmapMemObject(queue, mapped_in, mapped_in_host, 0, nullptr, &event[4]));
    CHECK(clEnqueueUnmapMemObject(queue, mapped_out, mapped_out_host, 0, nullptr, &event[5]));
    mapped_out_host = clEnqueueMapBuffer(queue, mapped_out, CL_FALSE, both_ways, 0, bytes, 0, nullptr, &event[6], &status);
    CHECK(status);
    mapped_in_host = clEnqueueMapBuffer(queue, mapped_in, CL_TRUE, both_ways, 0, bytes, 0, nullptr, nullptr, &status);
    CHECK(status);
    // Pinned copies.
    CHECK(clEnqueueWriteBuffer(queue, device_in, CL_FALSE, 0, bytes, host, 0, nullptr, &event[7]));
    CHECK(clEnqueueReadBuffer(queue, device_out, CL_FALSE, 0, bytes, host + bytes, 0, nullptr, &event[8]));
    CHECK(clFinish(queue));
    for (int i = 0; i < 9; ++i) {
      const double ms = command_ms(event[i]);
      CHECK(clReleaseEvent(event[i]));
      if (round > 0) rows[static_cast<std::size_t>(i)].ms.push_back(ms);
    }
  }
  std::printf("\n| command | device ms | GB/s of %zu bytes |\n| --- | --- | --- |\n", bytes);
  for (const Row& row : rows) {
    const double ms = median(row.ms);
    std::printf("| %s | %.3f | %.1f |\n", row.what, ms, ms > 0 ? static_cast<double>(bytes) / (ms * 1e6) : 0.0);
  }
  return 0;
}
