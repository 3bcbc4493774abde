// cufft_lto_probe.cu: which cuFFT LTO-callback plans the device's cuFFT makes, step by step, and whether a fused transform gives the right pixels (docs/performance.md, "fft: the product fused into the transforms").
//
// Opens cuFFT and NVRTC as the backend does (dlopen by soname, backends/cuda/cuda_libraries.cpp), compiles
// kernels_cuda/fft_callbacks.cu with the backend's NVRTC options, and prints one line per step with its
// cufftResult, so one run on the GPU host says which step fails and why. Run from the project root (it
// reads kernels_cuda/fft_callbacks.cu and common/geometry/conv_args.h there); `--preload-nvjitlink` first
// opens libnvJitLink RTLD_GLOBAL, to tell a loader problem from a link problem. Exit status 0 when the
// tree's callbacks plan and the fused transform matches the host, 1 otherwise.
#include <dlfcn.h>
#include <link.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <cufft.h>
#include <cufftXt.h>
#include <nvrtc.h>

#include "common/geometry/conv_args.h"
#include "cuda_library_files.h"

namespace {

// The functions used, looked up in the opened libraries (as cuda_libraries.h's tables).
struct Cufft {
  decltype(&::cufftGetVersion) cufftGetVersion;
  decltype(&::cufftCreate) cufftCreate;
  decltype(&::cufftDestroy) cufftDestroy;
  decltype(&::cufftSetAutoAllocation) cufftSetAutoAllocation;
  decltype(&::cufftXtSetJITCallback) cufftXtSetJITCallback;
  decltype(&::cufftMakePlan2d) cufftMakePlan2d;
  decltype(&::cufftMakePlanMany64) cufftMakePlanMany64;
  decltype(&::cufftSetWorkArea) cufftSetWorkArea;
  decltype(&::cufftExecR2C) cufftExecR2C;
  decltype(&::cufftExecC2R) cufftExecC2R;
} fft;
struct Nvrtc {
  decltype(&::nvrtcVersion) nvrtcVersion;
  decltype(&::nvrtcCreateProgram) nvrtcCreateProgram;
  decltype(&::nvrtcCompileProgram) nvrtcCompileProgram;
  decltype(&::nvrtcGetProgramLogSize) nvrtcGetProgramLogSize;
  decltype(&::nvrtcGetProgramLog) nvrtcGetProgramLog;
  decltype(&::nvrtcGetLTOIRSize) nvrtcGetLTOIRSize;
  decltype(&::nvrtcGetLTOIR) nvrtcGetLTOIR;
  decltype(&::nvrtcDestroyProgram) nvrtcDestroyProgram;
} rtc;

template <class Function>
bool find(void* library, const char* name, Function*& function) {
  function = reinterpret_cast<Function*>(dlsym(library, name));
  if (!function) std::printf("result: %s missing: %s\n", name, dlerror());
  return function != nullptr;
}

void* open(const char* soname, const char* toolkit_file) {
  void* library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!library) library = dlopen(toolkit_file, RTLD_NOW | RTLD_LOCAL);
  if (!library) std::printf("result: %s could not be opened: %s\n", soname, dlerror());
  return library;
}

const char* name(cufftResult status) {
  switch (status) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "another cufftResult";
  }
}

std::string text_of(const char* path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// `source` as LTO-IR, with the options backends/cuda/cuda_fft.cpp's callback_ltoir passes.
std::string ltoir(const std::string& source, const std::string& conv_args, int major, int minor) {
  const char* header_texts[] = {conv_args.c_str()};
  const char* header_names[] = {"common/geometry/conv_args.h"};
  nvrtcProgram program = nullptr;
  rtc.nvrtcCreateProgram(&program, source.c_str(), "fft_callbacks.cu", 1, header_texts, header_names);
  const std::string architecture = "--gpu-architecture=compute_" + std::to_string(major * 10 + minor);
  const char* options[] = {architecture.c_str(), "-std=c++17", "--fmad=true", "--relocatable-device-code=true",
                           "-dlto"};
  const nvrtcResult compiled = rtc.nvrtcCompileProgram(program, 5, options);
  std::string ir;
  if (compiled == NVRTC_SUCCESS) {
    std::size_t size = 0;
    rtc.nvrtcGetLTOIRSize(program, &size);
    ir.resize(size);
    rtc.nvrtcGetLTOIR(program, ir.data());
  } else {
    std::size_t size = 0;
    rtc.nvrtcGetProgramLogSize(program, &size);
    std::string log(size, '\0');
    rtc.nvrtcGetProgramLog(program, log.data());
    std::printf("result: NVRTC failed (%d):\n%s\n", static_cast<int>(compiled), log.c_str());
  }
  rtc.nvrtcDestroyProgram(&program);
  return ir;
}

// What the callbacks read (fft_callbacks.cu's FftCallbackInfo).
struct FftCallbackInfo {
  const float2* filter_spectrum;
  ConvArgs args;
  int padded_pitch;
};

// The transform the backend plans for a padded image: rows of `pitch` floats in place (2 * (w / 2 + 1)).
struct Shape {
  long long width, height, pitch;
  long long complex_width() const { return width / 2 + 1; }
};

// One plan, its steps printed: `label`, then the status of cufftXtSetJITCallback (where a callback is
// given) and of the planning call. `many` plans with cufftMakePlanMany64 and the backend's layout,
// otherwise with cufftMakePlan2d. Returns the plan handle, or -1 when a step failed.
int plan(const char* label, const Shape& shape, cufftType type, bool many, const char* symbol = nullptr,
         const std::string* callback = nullptr, cufftXtCallbackType callback_type = CUFFT_CB_UNDEFINED,
         void** info = nullptr) {
  cufftHandle handle = 0;
  fft.cufftCreate(&handle);
  fft.cufftSetAutoAllocation(handle, 0);
  if (callback) {
    const cufftResult set =
        fft.cufftXtSetJITCallback(handle, symbol, callback->data(), callback->size(), callback_type, info);
    std::printf("result: %-58s cufftXtSetJITCallback(%s, %zu bytes): %s\n", label, symbol, callback->size(), name(set));
    if (set != CUFFT_SUCCESS) return fft.cufftDestroy(handle), -1;
  }
  std::size_t work = 0;
  cufftResult made;
  if (many) {
    long long sizes[] = {shape.height, shape.width};
    long long real_rows[] = {shape.height, shape.pitch};
    long long complex_rows[] = {shape.height, shape.complex_width()};
    const long long real_count = shape.height * shape.pitch, complex_count = shape.height * shape.complex_width();
    made = type == CUFFT_R2C
               ? fft.cufftMakePlanMany64(handle, 2, sizes, real_rows, 1, real_count, complex_rows, 1, complex_count,
                                         type, 1, &work)
               : fft.cufftMakePlanMany64(handle, 2, sizes, complex_rows, 1, complex_count, real_rows, 1, real_count,
                                         type, 1, &work);
  } else {
    made = fft.cufftMakePlan2d(handle, static_cast<int>(shape.height), static_cast<int>(shape.width), type, &work);
  }
  std::printf("result: %-58s %s: %s\n", label, many ? "cufftMakePlanMany64" : "cufftMakePlan2d", name(made));
  if (made != CUFFT_SUCCESS) return fft.cufftDestroy(handle), -1;
  static std::vector<void*> work_areas;  // freed at exit
  void* area = nullptr;
  if (work > 0 && cudaMalloc(&area, work) == cudaSuccess) work_areas.push_back(area);
  fft.cufftSetWorkArea(handle, area);
  return handle;
}

// Where the libraries cuFFT opened itself (nvJitLink, NVRTC) came from.
int print_library(dl_phdr_info* info, std::size_t, void*) {
  if (info->dlpi_name && (std::strstr(info->dlpi_name, "cufft") || std::strstr(info->dlpi_name, "nvJitLink") ||
                          std::strstr(info->dlpi_name, "nvrtc")))
    std::printf("result: loaded %s\n", info->dlpi_name);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--preload-nvjitlink") == 0) {
    void* jitlink = dlopen("libnvJitLink.so.13", RTLD_NOW | RTLD_GLOBAL);
    if (!jitlink) jitlink = dlopen("libnvJitLink.so", RTLD_NOW | RTLD_GLOBAL);
    std::printf("result: preloaded libnvJitLink RTLD_GLOBAL: %s\n", jitlink ? "yes" : dlerror());
  }
  void* cufft_library = open(CC_CUFFT_SONAME, CC_CUFFT_TOOLKIT_FILE);
  void* nvrtc_library = open(CC_NVRTC_SONAME, CC_NVRTC_TOOLKIT_FILE);
  if (!cufft_library || !nvrtc_library) return 1;
  bool found = find(cufft_library, "cufftGetVersion", fft.cufftGetVersion) &&
               find(cufft_library, "cufftCreate", fft.cufftCreate) &&
               find(cufft_library, "cufftDestroy", fft.cufftDestroy) &&
               find(cufft_library, "cufftSetAutoAllocation", fft.cufftSetAutoAllocation) &&
               find(cufft_library, "cufftXtSetJITCallback", fft.cufftXtSetJITCallback) &&
               find(cufft_library, "cufftMakePlan2d", fft.cufftMakePlan2d) &&
               find(cufft_library, "cufftMakePlanMany64", fft.cufftMakePlanMany64) &&
               find(cufft_library, "cufftSetWorkArea", fft.cufftSetWorkArea) &&
               find(cufft_library, "cufftExecR2C", fft.cufftExecR2C) &&
               find(cufft_library, "cufftExecC2R", fft.cufftExecC2R);
  found = found && find(nvrtc_library, "nvrtcVersion", rtc.nvrtcVersion) &&
          find(nvrtc_library, "nvrtcCreateProgram", rtc.nvrtcCreateProgram) &&
          find(nvrtc_library, "nvrtcCompileProgram", rtc.nvrtcCompileProgram) &&
          find(nvrtc_library, "nvrtcGetProgramLogSize", rtc.nvrtcGetProgramLogSize) &&
          find(nvrtc_library, "nvrtcGetProgramLog", rtc.nvrtcGetProgramLog) &&
          find(nvrtc_library, "nvrtcGetLTOIRSize", rtc.nvrtcGetLTOIRSize) &&
          find(nvrtc_library, "nvrtcGetLTOIR", rtc.nvrtcGetLTOIR) &&
          find(nvrtc_library, "nvrtcDestroyProgram", rtc.nvrtcDestroyProgram);
  if (!found) return 1;

  int cufft_version = 0, nvrtc_major = 0, nvrtc_minor = 0, driver = 0, device = 0;
  fft.cufftGetVersion(&cufft_version);
  rtc.nvrtcVersion(&nvrtc_major, &nvrtc_minor);
  cudaDriverGetVersion(&driver);
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
    std::printf("result: no CUDA device\n");
    return 1;
  }
  std::printf("result: %s sm_%d%d, driver %d, cuFFT %d, NVRTC %d.%d\n", properties.name, properties.major,
              properties.minor, driver, cufft_version, nvrtc_major, nvrtc_minor);

  const std::string conv_args = text_of("common/geometry/conv_args.h");
  const std::string tree = text_of("kernels_cuda/fft_callbacks.cu");
  if (conv_args.empty() || tree.empty()) {
    std::printf("result: run from the project root (kernels_cuda/fft_callbacks.cu not found)\n");
    return 1;
  }
  // The same callbacks with C linkage, which cuFFT's C++ wrapper cannot link (docs/performance.md,
  // "fft: the product fused into the transforms").
  std::string c_linkage = tree;
  for (const char* definition : {"__device__ float2 cc_fft_multiply_load", "__device__ float cc_fft_pad_load"}) {
    const std::size_t at = c_linkage.find(definition);
    if (at != std::string::npos) c_linkage.insert(at, "extern \"C\" ");
  }
  const std::string tree_ir = ltoir(tree, conv_args, properties.major, properties.minor);
  const std::string c_ir = ltoir(c_linkage, conv_args, properties.major, properties.minor);
  if (tree_ir.empty() || c_ir.empty()) return 1;

  // A padded 40x30 image, 5x3 filter, clamp border, as the backend pads it: 44x32 floats of
  // transform, rows of 46.
  const int width = 40, height = 30, radius_x = 2, radius_y = 1;
  const Shape shape{44, 32, 2 * (44 / 2 + 1)};
  const long long real_floats = shape.height * shape.pitch;
  float *image = nullptr, *buffer = nullptr, *filter_spectrum = nullptr;
  FftCallbackInfo* info_device = nullptr;
  cudaMalloc(&image, sizeof(float) * width * height);
  cudaMalloc(&buffer, sizeof(float) * real_floats);
  cudaMalloc(&filter_spectrum, sizeof(float) * real_floats);
  cudaMalloc(&info_device, sizeof(FftCallbackInfo));
  const ConvArgs args{width, height, width, 2 * radius_x + 1, 2 * radius_y + 1, radius_x, radius_y, CC_BORDER_CLAMP};
  const FftCallbackInfo info{reinterpret_cast<const float2*>(filter_spectrum), args, static_cast<int>(shape.pitch)};
  cudaMemcpy(info_device, &info, sizeof(info), cudaMemcpyHostToDevice);
  void* info_address = info_device;

  std::printf("result: --- steps (one line each; a plan with a callback links it with nvJitLink here)\n");
  const int plain_forward = plan("1 R2C, no callback", shape, CUFFT_R2C, true);
  plan("2 C2R MakePlan2d, multiply callback, extern \"C\"", shape, CUFFT_C2R, false,
       "cc_fft_multiply_load", &c_ir, CUFFT_CB_LD_COMPLEX, &info_address);
  plan("3 C2R MakePlanMany64, extern \"C\"", shape, CUFFT_C2R, true, "cc_fft_multiply_load", &c_ir,
       CUFFT_CB_LD_COMPLEX, &info_address);
  plan("4 C2R MakePlan2d, multiply callback, C++ (the tree)", shape, CUFFT_C2R, false, "cc_fft_multiply_load",
       &tree_ir, CUFFT_CB_LD_COMPLEX, &info_address);
  const int fused_inverse = plan("5 C2R MakePlanMany64, multiply callback, C++ (the tree)", shape, CUFFT_C2R, true,
                                 "cc_fft_multiply_load", &tree_ir, CUFFT_CB_LD_COMPLEX, &info_address);
  const int fused_forward = plan("6 R2C MakePlanMany64, padding callback, C++ (the tree)", shape, CUFFT_R2C, true,
                                 "cc_fft_pad_load", &tree_ir, CUFFT_CB_LD_REAL, &info_address);
#ifdef CC_PROBE_FATBIN
  const std::string fatbin = text_of(CC_PROBE_FATBIN);  // nvcc -dc -fatbin, code=lto_XX, of the tree's file
  if (fatbin.empty()) std::printf("result: 7 no fatbin at %s\n", CC_PROBE_FATBIN);
  else
    plan("7 C2R MakePlanMany64, multiply callback, nvcc fatbin", shape, CUFFT_C2R, true, "cc_fft_multiply_load",
         &fatbin, CUFFT_CB_LD_COMPLEX, &info_address);
#endif
  dl_iterate_phdr(print_library, nullptr);

  if (plain_forward < 0 || fused_inverse < 0 || fused_forward < 0) {
    std::printf("result: the tree's callbacks did not plan: no transform to check\n");
    return 1;
  }
  // The filter's spectrum: its taps reversed around the origin (a correlation), wrapped, scaled by
  // 1 / (W * H) since cuFFT's inverse does not normalize; then the fused forward and inverse.
  std::mt19937 random(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> pixels(width * height), taps(args.filter_width * args.filter_height);
  for (float& pixel : pixels) pixel = value(random);
  for (float& tap : taps) tap = value(random);
  std::vector<float> placed(real_floats, 0.0f);
  const float scale = 1.0f / static_cast<float>(shape.width * shape.height);
  for (int j = -radius_y; j <= radius_y; ++j)
    for (int i = -radius_x; i <= radius_x; ++i) {
      const long long u = (shape.width - i) % shape.width, v = (shape.height - j) % shape.height;
      placed[v * shape.pitch + u] = taps[(j + radius_y) * args.filter_width + i + radius_x] * scale;
    }
  cudaMemcpy(image, pixels.data(), sizeof(float) * pixels.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(filter_spectrum, placed.data(), sizeof(float) * placed.size(), cudaMemcpyHostToDevice);
  const cufftResult filter_done =
      fft.cufftExecR2C(plain_forward, filter_spectrum, reinterpret_cast<cufftComplex*>(filter_spectrum));
  const cufftResult forward_done = fft.cufftExecR2C(fused_forward, image, reinterpret_cast<cufftComplex*>(buffer));
  const cufftResult inverse_done = fft.cufftExecC2R(fused_inverse, reinterpret_cast<cufftComplex*>(buffer), buffer);
  const cudaError_t synchronized = cudaDeviceSynchronize();
  std::printf("result: 8 exec filter R2C %s, fused R2C %s, fused C2R %s, %s\n", name(filter_done), name(forward_done),
              name(inverse_done), cudaGetErrorString(synchronized));
  std::vector<float> result(real_floats);
  cudaMemcpy(result.data(), buffer, sizeof(float) * real_floats, cudaMemcpyDeviceToHost);
  double worst = 0.0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double expected = 0.0;
      for (int j = -radius_y; j <= radius_y; ++j)
        for (int i = -radius_x; i <= radius_x; ++i)
          expected += taps[(j + radius_y) * args.filter_width + i + radius_x] *
                      pixels[cc_border_index(y + j, height, CC_BORDER_CLAMP) * width +
                             cc_border_index(x + i, width, CC_BORDER_CLAMP)];
      const double got = result[(y + radius_y) * shape.pitch + x + radius_x];
      worst = std::max(worst, std::fabs(got - expected));
      if ((x == 0 && y == 0) || (x == 17 && y == 11) || (x == width - 1 && y == height - 1))
        std::printf("result: pixel (%d, %d): fused %.6f, host %.6f\n", x, y, got, expected);
    }
  const bool right = worst < 1e-4;
  std::printf("result: 8 fused transform vs host correlation (clamp), max |error| %.3g: %s\n", worst,
              right ? "right" : "WRONG");
  return right && filter_done == CUFFT_SUCCESS && forward_done == CUFFT_SUCCESS && inverse_done == CUFFT_SUCCESS ? 0
                                                                                                                 : 1;
}
