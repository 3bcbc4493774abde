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

// The device with coarse-grained SVM, or exit 2 naming what is missing.
cl_device_id find_svm_device(cl_uint platform_index, cl_uint device_index) {
  const cl_platform_id platform = cl_probe::platform_at(platform_index);
  cl_uint devices = 0;
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &devices));
  std::vector<cl_device_id> device(devices);
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, devices, device.data(), nullptr));
  if (device_index >= devices) fail("no device " + std::to_string(device_index));
  const cl_device_id id = device[device_index];
  cl_device_svm_capabilities svm = 0;
  if (clGetDeviceInfo(id, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, nullptr) != CL_SUCCESS ||
      !(svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
    fail("the device offers no coarse-grained SVM buffers");
  return id;
}

constexpr cl_map_flags kBothWays = CL_MAP_READ | CL_MAP_WRITE;
constexpr int kCommands = 9;  // the commands of one round, each a row of the table

// One input and one output of `bytes` in each memory mode, on one profiling queue, all mapped for the
// host at first as convcompare's frames are.
class SvmProbe {
 public:
  SvmProbe(cl_device_id id, std::size_t bytes) : bytes_(bytes) {
    cl_int status = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &status);
    CHECK(status);
    const cl_queue_properties profiling[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    queue_ = clCreateCommandQueueWithProperties(context_, id, profiling, &status);
    CHECK(status);
    make_buffers();
    map_for_the_host();
  }

  // One warm-up round and 9 timed ones; each command's median device time.
  void print_table() {
    std::vector<std::vector<double>> ms(kCommands);
    for (int round = 0; round < 10; ++round) {
      cl_event event[kCommands] = {};
      hand_over_once(event);
      CHECK(clFinish(queue_));
      for (int i = 0; i < kCommands; ++i) {
        const double command = command_ms(event[i]);
        CHECK(clReleaseEvent(event[i]));
        if (round > 0) ms[static_cast<std::size_t>(i)].push_back(command);
      }
    }
    const char* const what[kCommands] = {"SVM unmap, input (upload)",     "SVM unmap, output (upload)",
                                         "SVM map, output (download)",    "SVM unmap of the input alone",
                                         "mapped buffer unmap, input",    "mapped buffer unmap, output",
                                         "mapped buffer map, output",     "pinned copy up (clEnqueueWriteBuffer)",
                                         "pinned copy down (clEnqueueReadBuffer)"};
    std::printf("\n| command | device ms | GB/s of %zu bytes |\n| --- | --- | --- |\n", bytes_);
    for (int i = 0; i < kCommands; ++i) {
      const double median_ms = median(ms[static_cast<std::size_t>(i)]);
      std::printf("| %s | %.3f | %.1f |\n", what[i], median_ms,
                  median_ms > 0 ? static_cast<double>(bytes_) / (median_ms * 1e6) : 0.0);
    }
  }

 private:
  void make_buffers() {
    cl_int status = CL_SUCCESS;
    // --memory managed: coarse-grained SVM, both mapped for the host at first, as ClFrame makes them.
    svm_in_ = clSVMAlloc(context_, CL_MEM_READ_WRITE, bytes_, 0);
    svm_out_ = clSVMAlloc(context_, CL_MEM_READ_WRITE, bytes_, 0);
    if (!svm_in_ || !svm_out_) fail("clSVMAlloc failed");
    // --memory mapped: CL_MEM_ALLOC_HOST_PTR buffers, mapped at first.
    mapped_in_ = clCreateBuffer(context_, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes_, nullptr, &status);
    CHECK(status);
    mapped_out_ = clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes_, nullptr, &status);
    CHECK(status);
    // --memory pinned: device buffers, copied from and to page-locked host memory (a mapped host buffer).
    device_in_ = clCreateBuffer(context_, CL_MEM_READ_ONLY, bytes_, nullptr, &status);
    CHECK(status);
    device_out_ = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes_, nullptr, &status);
    CHECK(status);
    host_buffer_ = clCreateBuffer(context_, CL_MEM_ALLOC_HOST_PTR, 2 * bytes_, nullptr, &status);
    CHECK(status);
  }

  void map_for_the_host() {
    cl_int status = CL_SUCCESS;
    host_ = static_cast<unsigned char*>(clEnqueueMapBuffer(queue_, host_buffer_, CL_TRUE, kBothWays, 0, 2 * bytes_, 0,
                                                           nullptr, nullptr, &status));
    CHECK(status);
    std::memset(host_, 3, 2 * bytes_);
    CHECK(clEnqueueSVMMap(queue_, CL_TRUE, kBothWays, svm_in_, bytes_, 0, nullptr, nullptr));
    CHECK(clEnqueueSVMMap(queue_, CL_TRUE, kBothWays, svm_out_, bytes_, 0, nullptr, nullptr));
    std::memset(svm_in_, 1, bytes_);
    std::memset(svm_out_, 2, bytes_);
    mapped_in_host_ = clEnqueueMapBuffer(queue_, mapped_in_, CL_TRUE, kBothWays, 0, bytes_, 0, nullptr, nullptr, &status);
    CHECK(status);
    mapped_out_host_ = clEnqueueMapBuffer(queue_, mapped_out_, CL_TRUE, kBothWays, 0, bytes_, 0, nullptr, nullptr, &status);
    CHECK(status);
    std::memset(mapped_in_host_, 1, bytes_);
  }

  // One round's commands, event[i] the table's row i.
  void hand_over_once(cl_event (&event)[kCommands]) {
    cl_int status = CL_SUCCESS;
    // Managed, as ClFrame: both handed over, the output taken back; then the input mapped again for the
    // next round's host (outside the figures).
    CHECK(clEnqueueSVMUnmap(queue_, svm_in_, 0, nullptr, &event[0]));
    CHECK(clEnqueueSVMUnmap(queue_, svm_out_, 0, nullptr, &event[1]));
    CHECK(clEnqueueSVMMap(queue_, CL_FALSE, kBothWays, svm_out_, bytes_, 0, nullptr, &event[2]));
    CHECK(clEnqueueSVMMap(queue_, CL_TRUE, kBothWays, svm_in_, bytes_, 0, nullptr, nullptr));
    // The input alone handed over and back.
    CHECK(clEnqueueSVMUnmap(queue_, svm_in_, 0, nullptr, &event[3]));
    CHECK(clEnqueueSVMMap(queue_, CL_TRUE, kBothWays, svm_in_, bytes_, 0, nullptr, nullptr));
    // Mapped buffers, the same hand-overs.
    CHECK(clEnqueueUnmapMemObject(queue_, mapped_in_, mapped_in_host_, 0, nullptr, &event[4]));
    CHECK(clEnqueueUnmapMemObject(queue_, mapped_out_, mapped_out_host_, 0, nullptr, &event[5]));
    mapped_out_host_ = clEnqueueMapBuffer(queue_, mapped_out_, CL_FALSE, kBothWays, 0, bytes_, 0, nullptr, &event[6], &status);
    CHECK(status);
    mapped_in_host_ = clEnqueueMapBuffer(queue_, mapped_in_, CL_TRUE, kBothWays, 0, bytes_, 0, nullptr, nullptr, &status);
    CHECK(status);
    // Pinned copies.
    CHECK(clEnqueueWriteBuffer(queue_, device_in_, CL_FALSE, 0, bytes_, host_, 0, nullptr, &event[7]));
    CHECK(clEnqueueReadBuffer(queue_, device_out_, CL_FALSE, 0, bytes_, host_ + bytes_, 0, nullptr, &event[8]));
  }

  const std::size_t bytes_;
  cl_context context_{};
  cl_command_queue queue_{};
  void* svm_in_ = nullptr;
  void* svm_out_ = nullptr;
  cl_mem mapped_in_{}, mapped_out_{}, device_in_{}, device_out_{}, host_buffer_{};
  unsigned char* host_ = nullptr;  // the pinned copies' host side: the input, then the output
  void* mapped_in_host_ = nullptr;
  void* mapped_out_host_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  cl_probe::program = "cl_svm_probe";
  if (argc < 3) fail("usage: cl_svm_probe PLATFORM DEVICE [BYTES]");
  const auto platform_index = static_cast<cl_uint>(std::atoi(argv[1]));
  const auto device_index = static_cast<cl_uint>(std::atoi(argv[2]));
  const std::size_t bytes = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : std::size_t{16777216};
  const cl_device_id id = find_svm_device(platform_index, device_index);
  char name[256] = {};
  CHECK(clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof name, name, nullptr));
  std::printf("%s: %zu bytes an input and an output; median of 9 rounds, device ms from profiling events\n", name, bytes);
  SvmProbe(id, bytes).print_table();
  return 0;
}
