// cl_program_binary.cpp: what an OpenCL driver makes of a kernel, saved: the program binary (NVIDIA's is PTX text) of one build.
// Usage: cl_program_binary PLATFORM DEVICE "OPTIONS" OUT SOURCE...
//   The SOURCEs are joined as opencl_backend.cpp's program_source joins the embedded ones (conv_args.h,
//   pixel.h, then the kernel), and OPTIONS are the run's (its report's compile_time: "options: ..."), so
//   the build is the one convcompare timed. tools/memory_spaces.sh --paths runs it for async, tiled and
//   shuffle on NVIDIA's OpenCL; docs/memory-spaces-evidence.md's async section asks what async_work_group_copy becomes.
// Exit 2 with one line on stderr when the platform, device, a source or the build is not there.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

int fail(const std::string& why) {
  std::cerr << "cl_program_binary: " << why << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) return fail("usage: cl_program_binary PLATFORM DEVICE \"OPTIONS\" OUT SOURCE...");
  unsigned long platform_index = 0, device_index = 0;
  try {
    platform_index = std::stoul(argv[1]);
    device_index = std::stoul(argv[2]);
  } catch (const std::exception&) {
    return fail(std::string("PLATFORM and DEVICE are indices, not '") + argv[1] + "', '" + argv[2] + "'");
  }
  const std::string options = argv[3], out = argv[4];
  std::string source;
  for (int i = 5; i < argc; ++i) {
    std::ifstream file(argv[i]);
    if (!file) return fail(std::string("cannot read ") + argv[i]);
    std::ostringstream text;
    text << file.rdbuf();
    source += text.str() + "\n";
  }
  cl_uint platforms = 0;
  if (clGetPlatformIDs(0, nullptr, &platforms) != CL_SUCCESS || platform_index >= platforms)
    return fail("no OpenCL platform " + std::to_string(platform_index));
  std::vector<cl_platform_id> platform_ids(platforms);
  clGetPlatformIDs(platforms, platform_ids.data(), nullptr);
  cl_uint devices = 0;
  clGetDeviceIDs(platform_ids[platform_index], CL_DEVICE_TYPE_ALL, 0, nullptr, &devices);
  if (device_index >= devices) return fail("no device " + std::to_string(device_index) + " on that platform");
  std::vector<cl_device_id> device_ids(devices);
  clGetDeviceIDs(platform_ids[platform_index], CL_DEVICE_TYPE_ALL, devices, device_ids.data(), nullptr);
  cl_device_id device = device_ids[device_index];
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  if (status != CL_SUCCESS) return fail("clCreateContext: " + std::to_string(status));
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_program program = clCreateProgramWithSource(context, 1, &text, &length, &status);
  status = status == CL_SUCCESS ? clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr) : status;
  if (status != CL_SUCCESS) {
    size_t log_size = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &log_size);
    std::string log(log_size, '\0');
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, log_size, log.data(), nullptr);
    std::cerr << log;
    clReleaseProgram(program);
    clReleaseContext(context);
    return fail("clBuildProgram(\"" + options + "\") failed: " + std::to_string(status));
  }
  // One device: one binary. NVIDIA's is the PTX the driver then compiles to SASS; PoCL's is its own format.
  size_t size = 0;
  clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr);
  std::vector<unsigned char> binary(size);
  unsigned char* pointer = binary.data();
  clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(pointer), &pointer, nullptr);
  clReleaseProgram(program);
  clReleaseContext(context);
  std::ofstream file(out, std::ios::binary);
  file.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(binary.size()));
  if (!file) return fail("cannot write " + out);
  std::cout << out << ": " << size << " bytes\n";
  return 0;
}
