// cl_halo_probe.cpp: --split's halo exchange on two devices of one OpenCL platform, timed route by route: halo rows from the host, copied in one context, staged through the host.
// Usage: cl_halo_probe PLATFORM [WIDTH HEIGHT RADIUS]   (defaults 8192 8192 7; f32 pixels; the first two devices)
//   One context over both devices, as convcompare's --split makes (docs/multi-device.md); each device holds its
//   band (half the rows) and the halo rows next to it. One frame = each band's rows written from a page-locked
//   host frame, the halo rows brought in by the route, then a kernel on each device reading its whole band (as
//   the convolution would). Best and median of 7 frames per route, host clock; the copy commands' own device
//   times from their profiling events. Exit 2 with one line on stderr when the platform lacks two devices.
#define CL_TARGET_OPENCL_VERSION 120
#include "cl_probe.h"

#include <chrono>
#include <functional>

namespace {

using cl_probe::command_ms;
using cl_probe::fail;
using cl_probe::median;

const char* kSource = "__kernel void touch(__global const float* in, __global float* out) {\n"
                      "  size_t i = get_global_id(0); out[i] = in[i] * 0.5f; }\n";

struct Device {
  cl_device_id id{};
  cl_command_queue queue{};
  cl_mem input{}, output{};
  std::size_t first_row = 0, rows = 0;  // the buffer's rows of the image: its band and its halo
  std::size_t own_from = 0, own_rows = 0;
  std::size_t halo_from = 0, halo_rows = 0;  // image rows held by the other device
};

// The two devices, their bands and buffers, the page-locked host frame and the staging buffer.
class HaloProbe {
 public:
  HaloProbe(unsigned platform_index, std::size_t width, std::size_t height, std::size_t radius)
      : width_(width), height_(height), radius_(radius), row_bytes_(width * sizeof(float)) {
    find_devices(platform_index);
    build_program();
    make_bands();
    map_host_frames();
  }

  // Each route's upload and frame times as one table row, and whether its halo rows arrived.
  void print_routes() {
    std::printf("\n| route | upload ms (best / median) | frame ms with the kernels (best / median) | halo commands' device ms "
                "(median each) |\n| --- | --- | --- | --- |\n");
    time_route("halos from the host (through-host route)", [&](std::vector<cl_event>& copies) { halos_from_host(copies); });
    time_route("copyBuffer in one context after a marker (device to device route)",
               [&](std::vector<cl_event>& copies) { halos_by_copy(copies); });
    time_route("readBuffer then writeBuffer through a pinned staging buffer (one context)",
               [&](std::vector<cl_event>& copies) { halos_through_staging(copies); });
  }

 private:
  void find_devices(unsigned platform_index) {
    cl_uint found = 0;
    clGetDeviceIDs(cl_probe::platform_at(platform_index), CL_DEVICE_TYPE_ALL, 2, ids_, &found);
    if (found < 2) fail("platform " + std::to_string(platform_index) + " has fewer than two devices");
    char name[256] = {};
    CHECK(clGetDeviceInfo(ids_[0], CL_DEVICE_NAME, sizeof name, name, nullptr));
    std::printf("platform %u, two devices: %s; %zux%zu f32, r = %zu\n", platform_index, name, width_, height_, radius_);
  }

  void build_program() {
    cl_int status = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 2, ids_, nullptr, nullptr, &status);
    CHECK(status);
    program_ = clCreateProgramWithSource(context_, 1, &kSource, nullptr, &status);
    CHECK(status);
    CHECK(clBuildProgram(program_, 2, ids_, "", nullptr, nullptr));
  }

  // Each device's band (half the rows) with the halo rows next to it, its queue, buffers and kernel.
  void make_bands() {
    cl_int status = CL_SUCCESS;
    // The host frame: page-locked, in the same context, mapped (convcompare's pinned OpenCL frame).
    host_buffer_ = clCreateBuffer(context_, CL_MEM_ALLOC_HOST_PTR, row_bytes_ * height_, nullptr, &status);
    CHECK(status);
    const std::size_t half = height_ / 2;
    device_[0].own_from = 0, device_[0].own_rows = half, device_[0].halo_from = half, device_[0].halo_rows = radius_;
    device_[1].own_from = half, device_[1].own_rows = height_ - half, device_[1].halo_from = half - radius_;
    device_[1].halo_rows = radius_;
    device_[0].first_row = 0, device_[0].rows = half + radius_;
    device_[1].first_row = half - radius_, device_[1].rows = height_ - half + radius_;
    for (int d = 0; d < 2; ++d) {
      Device& dev = device_[d];
      dev.id = ids_[d];
      dev.queue = clCreateCommandQueue(context_, dev.id, CL_QUEUE_PROFILING_ENABLE, &status);
      CHECK(status);
      dev.input = clCreateBuffer(context_, CL_MEM_READ_ONLY, row_bytes_ * dev.rows, nullptr, &status);
      CHECK(status);
      dev.output = clCreateBuffer(context_, CL_MEM_READ_WRITE, row_bytes_ * dev.rows, nullptr, &status);
      CHECK(status);
      cl_mem both[] = {dev.input, dev.output};
      CHECK(clEnqueueMigrateMemObjects(dev.queue, 2, both, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, nullptr, nullptr));
      kernels_.push_back(clCreateKernel(program_, "touch", &status));
      CHECK(status);
      CHECK(clSetKernelArg(kernels_[d], 0, sizeof(cl_mem), &dev.input));
      CHECK(clSetKernelArg(kernels_[d], 1, sizeof(cl_mem), &dev.output));
      CHECK(clFinish(dev.queue));
    }
  }

  // The host frame filled with a pattern, and the staging buffer for the third route, both mapped.
  void map_host_frames() {
    cl_int status = CL_SUCCESS;
    host_ = static_cast<unsigned char*>(clEnqueueMapBuffer(device_[0].queue, host_buffer_, CL_TRUE,
                                                           CL_MAP_READ | CL_MAP_WRITE, 0, row_bytes_ * height_, 0,
                                                           nullptr, nullptr, &status));
    CHECK(status);
    for (std::size_t i = 0; i < row_bytes_ * height_; ++i) host_[i] = static_cast<unsigned char>(i * 7);
    cl_mem staging = clCreateBuffer(context_, CL_MEM_ALLOC_HOST_PTR, row_bytes_ * radius_ * 2, nullptr, &status);
    CHECK(status);
    staged_ = static_cast<unsigned char*>(clEnqueueMapBuffer(device_[0].queue, staging, CL_TRUE,
                                                             CL_MAP_READ | CL_MAP_WRITE, 0, row_bytes_ * radius_ * 2,
                                                             0, nullptr, nullptr, &status));
    CHECK(status);
  }

  // Writes `rows` image rows from `from` into device d's buffer.
  void write_rows(int d, std::size_t from, std::size_t rows) {
    const Device& dev = device_[d];
    CHECK(clEnqueueWriteBuffer(dev.queue, dev.input, CL_FALSE, (from - dev.first_row) * row_bytes_, rows * row_bytes_,
                               host_ + from * row_bytes_, 0, nullptr, nullptr));
  }

  void kernel(int d) {
    const std::size_t items = device_[d].rows * width_;
    CHECK(clEnqueueNDRangeKernel(device_[d].queue, kernels_[d], 1, nullptr, &items, nullptr, 0, nullptr, nullptr));
  }

  // The routes, each queued after the own rows; the copy commands' events go out for their device times.
  void halos_from_host(std::vector<cl_event>&) {
    for (int d = 0; d < 2; ++d) write_rows(d, device_[d].halo_from, device_[d].halo_rows);
  }

  void halos_by_copy(std::vector<cl_event>& copies) {
    for (int d = 0; d < 2; ++d) {
      Device& to = device_[d];
      Device& from = device_[1 - d];
      cl_event marker{}, copy{};
      CHECK(clEnqueueMarkerWithWaitList(from.queue, 0, nullptr, &marker));
      CHECK(clFlush(from.queue));
      CHECK(clEnqueueCopyBuffer(to.queue, from.input, to.input, (to.halo_from - from.first_row) * row_bytes_,
                                (to.halo_from - to.first_row) * row_bytes_, to.halo_rows * row_bytes_, 1, &marker,
                                &copy));
      clReleaseEvent(marker);
      copies.push_back(copy);
    }
  }

  void halos_through_staging(std::vector<cl_event>& copies) {
    for (int d = 0; d < 2; ++d) {
      Device& to = device_[d];
      Device& from = device_[1 - d];
      cl_event read{}, write{};
      unsigned char* slot = staged_ + static_cast<std::size_t>(d) * radius_ * row_bytes_;
      CHECK(clEnqueueReadBuffer(from.queue, from.input, CL_FALSE, (to.halo_from - from.first_row) * row_bytes_,
                                to.halo_rows * row_bytes_, slot, 0, nullptr, &read));
      CHECK(clFlush(from.queue));
      CHECK(clEnqueueWriteBuffer(to.queue, to.input, CL_FALSE, (to.halo_from - to.first_row) * row_bytes_,
                                 to.halo_rows * row_bytes_, slot, 1, &read, &write));
      copies.push_back(read);
      copies.push_back(write);
    }
  }

  // Seven frames by `halos`: best and median upload and frame times, the copy commands' device times
  // (the first round's left out), and whether device 0's halo rows, the image's rows below its band, arrived.
  void time_route(const char* name, const std::function<void(std::vector<cl_event>&)>& halos) {
    std::vector<double> uploads, frames, command_times;
    for (int round = 0; round < 7; ++round) {
      std::vector<cl_event> copies;
      const auto start = std::chrono::steady_clock::now();
      for (int d = 0; d < 2; ++d) write_rows(d, device_[d].own_from, device_[d].own_rows);
      halos(copies);
      for (int d = 0; d < 2; ++d) CHECK(clFlush(device_[d].queue));
      for (int d = 0; d < 2; ++d) CHECK(clFinish(device_[d].queue));
      const auto uploaded = std::chrono::steady_clock::now();
      for (int d = 0; d < 2; ++d) kernel(d);
      for (int d = 0; d < 2; ++d) CHECK(clFinish(device_[d].queue));
      const auto done = std::chrono::steady_clock::now();
      uploads.push_back(std::chrono::duration<double, std::milli>(uploaded - start).count());
      frames.push_back(std::chrono::duration<double, std::milli>(done - start).count());
      for (cl_event event : copies) {
        if (round > 0) command_times.push_back(command_ms(event));
        clReleaseEvent(event);
      }
    }
    std::vector<unsigned char> check_rows(device_[0].halo_rows * row_bytes_);
    CHECK(clEnqueueReadBuffer(device_[0].queue, device_[0].input, CL_TRUE, device_[0].halo_from * row_bytes_,
                              check_rows.size(), check_rows.data(), 0, nullptr, nullptr));
    const bool arrived = std::equal(check_rows.begin(), check_rows.end(), host_ + device_[0].halo_from * row_bytes_);
    std::printf("| %s%s | %.3f / %.3f | %.3f / %.3f | %s |\n", name, arrived ? "" : " (HALO ROWS WRONG)",
                *std::min_element(uploads.begin(), uploads.end()), median(uploads),
                *std::min_element(frames.begin(), frames.end()), median(frames),
                command_times.empty() ? "-" : std::to_string(median(command_times)).c_str());
  }

  const std::size_t width_, height_, radius_, row_bytes_;
  cl_device_id ids_[2]{};
  cl_context context_{};
  cl_program program_{};
  cl_mem host_buffer_{};
  Device device_[2];
  std::vector<cl_kernel> kernels_;
  unsigned char* host_ = nullptr;    // the mapped host frame
  unsigned char* staged_ = nullptr;  // the mapped staging buffer: room for both devices' halo rows
};

}  // namespace

int main(int argc, char** argv) {
  cl_probe::program = "cl_halo_probe";
  if (argc < 2) fail("usage: cl_halo_probe PLATFORM [WIDTH HEIGHT RADIUS]");
  const unsigned platform_index = static_cast<unsigned>(std::atoi(argv[1]));
  const std::size_t width = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 8192;
  const std::size_t height = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 8192;
  const std::size_t radius = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 7;
  HaloProbe(platform_index, width, height, radius).print_routes();
  return 0;
}
