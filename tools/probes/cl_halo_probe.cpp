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

}  // namespace

int main(int argc, char** argv) {
  cl_probe::program = "cl_halo_probe";
  if (argc < 2) fail("usage: cl_halo_probe PLATFORM [WIDTH HEIGHT RADIUS]");
  const unsigned platform_index = static_cast<unsigned>(std::atoi(argv[1]));
  const std::size_t width = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 8192;
  const std::size_t height = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 8192;
  const std::size_t radius = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 7;
  const std::size_t row_bytes = width * sizeof(float);

  cl_uint platforms = 0;
  CHECK(clGetPlatformIDs(0, nullptr, &platforms));
  std::vector<cl_platform_id> platform(platforms);
  CHECK(clGetPlatformIDs(platforms, platform.data(), nullptr));
  if (platform_index >= platforms) fail("no platform " + std::to_string(platform_index));
  cl_device_id ids[2]{};
  cl_uint found = 0;
  clGetDeviceIDs(platform[platform_index], CL_DEVICE_TYPE_ALL, 2, ids, &found);
  if (found < 2) fail("platform " + std::to_string(platform_index) + " has fewer than two devices");
  char name[256] = {};
  CHECK(clGetDeviceInfo(ids[0], CL_DEVICE_NAME, sizeof name, name, nullptr));
  std::printf("platform %u, two devices: %s; %zux%zu f32, r = %zu\n", platform_index, name, width, height, radius);

  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 2, ids, nullptr, nullptr, &status);
  CHECK(status);
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, nullptr, &status);
  CHECK(status);
  CHECK(clBuildProgram(program, 2, ids, "", nullptr, nullptr));

  // The host frame: page-locked, in the same context, mapped (convcompare's pinned OpenCL frame).
  cl_mem host_buffer = clCreateBuffer(context, CL_MEM_ALLOC_HOST_PTR, row_bytes * height, nullptr, &status);
  CHECK(status);
  Device device[2];
  const std::size_t half = height / 2;
  device[0].own_from = 0, device[0].own_rows = half, device[0].halo_from = half, device[0].halo_rows = radius;
  device[1].own_from = half, device[1].own_rows = height - half, device[1].halo_from = half - radius;
  device[1].halo_rows = radius;
  device[0].first_row = 0, device[0].rows = half + radius;
  device[1].first_row = half - radius, device[1].rows = height - half + radius;
  std::vector<cl_kernel> kernels;
  for (int d = 0; d < 2; ++d) {
    Device& dev = device[d];
    dev.id = ids[d];
    dev.queue = clCreateCommandQueue(context, dev.id, CL_QUEUE_PROFILING_ENABLE, &status);
    CHECK(status);
    dev.input = clCreateBuffer(context, CL_MEM_READ_ONLY, row_bytes * dev.rows, nullptr, &status);
    CHECK(status);
    dev.output = clCreateBuffer(context, CL_MEM_READ_WRITE, row_bytes * dev.rows, nullptr, &status);
    CHECK(status);
    cl_mem both[] = {dev.input, dev.output};
    CHECK(clEnqueueMigrateMemObjects(dev.queue, 2, both, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, nullptr, nullptr));
    kernels.push_back(clCreateKernel(program, "touch", &status));
    CHECK(status);
    CHECK(clSetKernelArg(kernels[d], 0, sizeof(cl_mem), &dev.input));
    CHECK(clSetKernelArg(kernels[d], 1, sizeof(cl_mem), &dev.output));
    CHECK(clFinish(dev.queue));
  }
  auto* host = static_cast<unsigned char*>(clEnqueueMapBuffer(device[0].queue, host_buffer, CL_TRUE,
                                                               CL_MAP_READ | CL_MAP_WRITE, 0, row_bytes * height, 0,
                                                               nullptr, nullptr, &status));
  CHECK(status);
  for (std::size_t i = 0; i < row_bytes * height; ++i) host[i] = static_cast<unsigned char>(i * 7);
  cl_mem staging = clCreateBuffer(context, CL_MEM_ALLOC_HOST_PTR, row_bytes * radius * 2, nullptr, &status);
  CHECK(status);
  auto* staged = static_cast<unsigned char*>(clEnqueueMapBuffer(device[0].queue, staging, CL_TRUE,
                                                                 CL_MAP_READ | CL_MAP_WRITE, 0, row_bytes * radius * 2,
                                                                 0, nullptr, nullptr, &status));
  CHECK(status);

  // Writes `rows` image rows from `from` into device d's buffer.
  auto write_rows = [&](int d, std::size_t from, std::size_t rows, cl_uint waits, const cl_event* wait_list,
                        cl_event* event) {
    const Device& dev = device[d];
    CHECK(clEnqueueWriteBuffer(dev.queue, dev.input, CL_FALSE, (from - dev.first_row) * row_bytes, rows * row_bytes,
                               host + from * row_bytes, waits, wait_list, event));
  };
  auto kernel = [&](int d) {
    const std::size_t items = device[d].rows * width;
    CHECK(clEnqueueNDRangeKernel(device[d].queue, kernels[d], 1, nullptr, &items, nullptr, 0, nullptr, nullptr));
  };

  struct Route {
    const char* name;
    std::function<void(std::vector<cl_event>&)> halos;  // after the own rows are queued; copy events out
  };
  const Route routes[] = {
      {"halos from the host (through-host route)",
       [&](std::vector<cl_event>&) {
         for (int d = 0; d < 2; ++d) write_rows(d, device[d].halo_from, device[d].halo_rows, 0, nullptr, nullptr);
       }},
      {"copyBuffer in one context after a marker (device to device route)",
       [&](std::vector<cl_event>& copies) {
         for (int d = 0; d < 2; ++d) {
           Device& to = device[d];
           Device& from = device[1 - d];
           cl_event marker{}, copy{};
           CHECK(clEnqueueMarkerWithWaitList(from.queue, 0, nullptr, &marker));
           CHECK(clFlush(from.queue));
           CHECK(clEnqueueCopyBuffer(to.queue, from.input, to.input, (to.halo_from - from.first_row) * row_bytes,
                                     (to.halo_from - to.first_row) * row_bytes, to.halo_rows * row_bytes, 1, &marker,
                                     &copy));
           clReleaseEvent(marker);
           copies.push_back(copy);
         }
       }},
      {"readBuffer then writeBuffer through a pinned staging buffer (one context)",
       [&](std::vector<cl_event>& copies) {
         for (int d = 0; d < 2; ++d) {
           Device& to = device[d];
           Device& from = device[1 - d];
           cl_event read{}, write{};
           unsigned char* slot = staged + static_cast<std::size_t>(d) * radius * row_bytes;
           CHECK(clEnqueueReadBuffer(from.queue, from.input, CL_FALSE, (to.halo_from - from.first_row) * row_bytes,
                                     to.halo_rows * row_bytes, slot, 0, nullptr, &read));
           CHECK(clFlush(from.queue));
           CHECK(clEnqueueWriteBuffer(to.queue, to.input, CL_FALSE, (to.halo_from - to.first_row) * row_bytes,
                                      to.halo_rows * row_bytes, slot, 1, &read, &write));
           copies.push_back(read);
           copies.push_back(write);
         }
       }},
  };

  std::printf("\n| route | upload ms (best / median) | frame ms with the kernels (best / median) | halo commands' device ms "
              "(median each) |\n| --- | --- | --- | --- |\n");
  for (const Route& route : routes) {
    std::vector<double> uploads, frames, command_times;
    for (int round = 0; round < 7; ++round) {
      std::vector<cl_event> copies;
      const auto start = std::chrono::steady_clock::now();
      for (int d = 0; d < 2; ++d) write_rows(d, device[d].own_from, device[d].own_rows, 0, nullptr, nullptr);
      route.halos(copies);
      for (int d = 0; d < 2; ++d) CHECK(clFlush(device[d].queue));
      for (int d = 0; d < 2; ++d) CHECK(clFinish(device[d].queue));
      const auto uploaded = std::chrono::steady_clock::now();
      for (int d = 0; d < 2; ++d) kernel(d);
      for (int d = 0; d < 2; ++d) CHECK(clFinish(device[d].queue));
      const auto done = std::chrono::steady_clock::now();
      uploads.push_back(std::chrono::duration<double, std::milli>(uploaded - start).count());
      frames.push_back(std::chrono::duration<double, std::milli>(done - start).count());
      for (cl_event event : copies) {
        if (round > 0) command_times.push_back(command_ms(event));
        clReleaseEvent(event);
      }
    }
    // The halo rows must have arrived: device 0's halo rows are the image's rows below its band.
    std::vector<unsigned char> check_rows(device[0].halo_rows * row_bytes);
    CHECK(clEnqueueReadBuffer(device[0].queue, device[0].input, CL_TRUE, device[0].halo_from * row_bytes,
                              check_rows.size(), check_rows.data(), 0, nullptr, nullptr));
    const bool arrived = std::equal(check_rows.begin(), check_rows.end(), host + device[0].halo_from * row_bytes);
    std::printf("| %s%s | %.3f / %.3f | %.3f / %.3f | %s |\n", route.name, arrived ? "" : " (HALO ROWS WRONG)",
                *std::min_element(uploads.begin(), uploads.end()), median(uploads),
                *std::min_element(frames.begin(), frames.end()), median(frames),
                command_times.empty() ? "-" : std::to_string(median(command_times)).c_str());
  }
  return 0;
}
