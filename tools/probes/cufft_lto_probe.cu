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

// cuFFT and NVRTC opened and their functions found, each failure printed; with --preload-nvjitlink,
// libnvJitLink opened RTLD_GLOBAL first.
bool open_libraries(bool preload_nvjitlink) {
  if (preload_nvjitlink) {
    void* jitlink = dlopen("libnvJitLink.so.13", RTLD_NOW | RTLD_GLOBAL);
    if (!jitlink) jitlink = dlopen("libnvJitLink.so", RTLD_NOW | RTLD_GLOBAL);
    std::printf("result: preloaded libnvJitLink RTLD_GLOBAL: %s\n", jitlink ? "yes" : dlerror());
  }
  void* cufft_library = open(CC_CUFFT_SONAME, CC_CUFFT_TOOLKIT_FILE);
  void* nvrtc_library = open(CC_NVRTC_SONAME, CC_NVRTC_TOOLKIT_FILE);
  if (!cufft_library || !nvrtc_library) return false;
  const bool found = find(cufft_library, "cufftGetVersion", fft.cufftGetVersion) &&
                     find(cufft_library, "cufftCreate", fft.cufftCreate) &&
                     find(cufft_library, "cufftDestroy", fft.cufftDestroy) &&
                     find(cufft_library, "cufftSetAutoAllocation", fft.cufftSetAutoAllocation) &&
                     find(cufft_library, "cufftXtSetJITCallback", fft.cufftXtSetJITCallback) &&
                     find(cufft_library, "cufftMakePlan2d", fft.cufftMakePlan2d) &&
                     find(cufft_library, "cufftMakePlanMany64", fft.cufftMakePlanMany64) &&
                     find(cufft_library, "cufftSetWorkArea", fft.cufftSetWorkArea) &&
                     find(cufft_library, "cufftExecR2C", fft.cufftExecR2C) &&
                     find(cufft_library, "cufftExecC2R", fft.cufftExecC2R);
  return found && find(nvrtc_library, "nvrtcVersion", rtc.nvrtcVersion) &&
         find(nvrtc_library, "nvrtcCreateProgram", rtc.nvrtcCreateProgram) &&
         find(nvrtc_library, "nvrtcCompileProgram", rtc.nvrtcCompileProgram) &&
         find(nvrtc_library, "nvrtcGetProgramLogSize", rtc.nvrtcGetProgramLogSize) &&
         find(nvrtc_library, "nvrtcGetProgramLog", rtc.nvrtcGetProgramLog) &&
         find(nvrtc_library, "nvrtcGetLTOIRSize", rtc.nvrtcGetLTOIRSize) &&
         find(nvrtc_library, "nvrtcGetLTOIR", rtc.nvrtcGetLTOIR) &&
         find(nvrtc_library, "nvrtcDestroyProgram", rtc.nvrtcDestroyProgram);
}

// Device 0's properties, with the versions of the driver, cuFFT and NVRTC printed; false without a device.
bool describe_device(cudaDeviceProp& properties) {
  int cufft_version = 0, nvrtc_major = 0, nvrtc_minor = 0, driver = 0;
  fft.cufftGetVersion(&cufft_version);
  rtc.nvrtcVersion(&nvrtc_major, &nvrtc_minor);
  cudaDriverGetVersion(&driver);
  if (cudaGetDeviceProperties(&properties, 0) != cudaSuccess) {
    std::printf("result: no CUDA device\n");
    return false;
  }
  std::printf("result: %s sm_%d%d, driver %d, cuFFT %d, NVRTC %d.%d\n", properties.name, properties.major,
              properties.minor, driver, cufft_version, nvrtc_major, nvrtc_minor);
  return true;
}

// The tree's callbacks as LTO-IR, and the same with C linkage; empty on a failure.
struct Callbacks {
  std::string tree_ir, c_ir;
};

Callbacks compile_callbacks(const cudaDeviceProp& properties) {
  const std::string conv_args = text_of("common/geometry/conv_args.h");
  const std::string tree = text_of("kernels_cuda/fft_callbacks.cu");
  if (conv_args.empty() || tree.empty()) {
    std::printf("result: run from the project root (kernels_cuda/fft_callbacks.cu not found)\n");
    return {};
  }
  // The same callbacks with C linkage, which cuFFT's C++ wrapper cannot link (docs/performance.md,
  // "fft: the product fused into the transforms").
  std::string c_linkage = tree;
  for (const char* definition : {"__device__ float2 cc_fft_multiply_load", "__device__ float cc_fft_pad_load"}) {
    const std::size_t at = c_linkage.find(definition);
    if (at != std::string::npos) c_linkage.insert(at, "extern \"C\" ");
  }
  Callbacks callbacks;
  callbacks.tree_ir = ltoir(tree, conv_args, properties.major, properties.minor);
  callbacks.c_ir = ltoir(c_linkage, conv_args, properties.major, properties.minor);
  return callbacks;
}

// A padded 40x30 image, 5x3 filter, clamp border, as the backend pads it: 44x32 floats of transform,
// rows of 46; the device buffers, and the callbacks' info on the device.
constexpr int kWidth = 40, kHeight = 30, kRadiusX = 2, kRadiusY = 1;
constexpr Shape kShape{44, 32, 2 * (44 / 2 + 1)};
constexpr long long kRealFloats = kShape.height * kShape.pitch;

struct DeviceProblem {
  float *image = nullptr, *buffer = nullptr, *filter_spectrum = nullptr;
  FftCallbackInfo* info_device = nullptr;
  ConvArgs args{kWidth, kHeight, kWidth, 2 * kRadiusX + 1, 2 * kRadiusY + 1, kRadiusX, kRadiusY, CC_BORDER_CLAMP};
  void* info_address = nullptr;  // what cufftXtSetJITCallback is given

  DeviceProblem() {
    cudaMalloc(&image, sizeof(float) * kWidth * kHeight);
    cudaMalloc(&buffer, sizeof(float) * kRealFloats);
    cudaMalloc(&filter_spectrum, sizeof(float) * kRealFloats);
    cudaMalloc(&info_device, sizeof(FftCallbackInfo));
    const FftCallbackInfo info{reinterpret_cast<const float2*>(filter_spectrum), args, static_cast<int>(kShape.pitch)};
    cudaMemcpy(info_device, &info, sizeof(info), cudaMemcpyHostToDevice);
    info_address = info_device;
  }
};

// The plans the transform check needs (-1: the step failed).
struct Plans {
  int plain_forward = -1, fused_inverse = -1, fused_forward = -1;
};

// Every planning step, one line each; a plan with a callback links it with nvJitLink here.
Plans plan_steps(const Callbacks& callbacks, DeviceProblem& problem) {
  void** info = &problem.info_address;
  std::printf("result: --- steps (one line each; a plan with a callback links it with nvJitLink here)\n");
  Plans plans;
  plans.plain_forward = plan("1 R2C, no callback", kShape, CUFFT_R2C, true);
  plan("2 C2R MakePlan2d, multiply callback, extern \"C\"", kShape, CUFFT_C2R, false,
       "cc_fft_multiply_load", &callbacks.c_ir, CUFFT_CB_LD_COMPLEX, info);
  plan("3 C2R MakePlanMany64, extern \"C\"", kShape, CUFFT_C2R, true, "cc_fft_multiply_load",
       &callbacks.c_ir, CUFFT_CB_LD_COMPLEX, info);
  plan("4 C2R MakePlan2d, multiply callback, C++ (the tree)", kShape, CUFFT_C2R, false, "cc_fft_multiply_load",
       &callbacks.tree_ir, CUFFT_CB_LD_COMPLEX, info);
  plans.fused_inverse = plan("5 C2R MakePlanMany64, multiply callback, C++ (the tree)", kShape, CUFFT_C2R, true,
                             "cc_fft_multiply_load", &callbacks.tree_ir, CUFFT_CB_LD_COMPLEX, info);
  plans.fused_forward = plan("6 R2C MakePlanMany64, padding callback, C++ (the tree)", kShape, CUFFT_R2C, true,
                             "cc_fft_pad_load", &callbacks.tree_ir, CUFFT_CB_LD_REAL, info);
#ifdef CC_PROBE_FATBIN
  const std::string fatbin = text_of(CC_PROBE_FATBIN);  // nvcc -dc -fatbin, code=lto_XX, of the tree's file
  if (fatbin.empty()) std::printf("result: 7 no fatbin at %s\n", CC_PROBE_FATBIN);
  else
    plan("7 C2R MakePlanMany64, multiply callback, nvcc fatbin", kShape, CUFFT_C2R, true, "cc_fft_multiply_load",
         &fatbin, CUFFT_CB_LD_COMPLEX, info);
#endif
  return plans;
}

// The filter's spectrum input: its taps reversed around the origin (a correlation), wrapped, scaled by
// 1 / (W * H) since cuFFT's inverse does not normalize.
std::vector<float> placed_filter(const std::vector<float>& taps, const ConvArgs& args) {
  std::vector<float> placed(kRealFloats, 0.0f);
  const float scale = 1.0f / static_cast<float>(kShape.width * kShape.height);
  for (int j = -kRadiusY; j <= kRadiusY; ++j)
    for (int i = -kRadiusX; i <= kRadiusX; ++i) {
      const long long u = (kShape.width - i) % kShape.width, v = (kShape.height - j) % kShape.height;
      placed[v * kShape.pitch + u] = taps[(j + kRadiusY) * args.filter_width + i + kRadiusX] * scale;
    }
  return placed;
}

// The largest difference of the fused result from the host's correlation (clamp), three pixels printed.
double worst_error(const std::vector<float>& result, const std::vector<float>& pixels, const std::vector<float>& taps,
                   const ConvArgs& args) {
  double worst = 0.0;
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      double expected = 0.0;
      for (int j = -kRadiusY; j <= kRadiusY; ++j)
        for (int i = -kRadiusX; i <= kRadiusX; ++i)
          expected += taps[(j + kRadiusY) * args.filter_width + i + kRadiusX] *
                      pixels[cc_border_index(y + j, kHeight, CC_BORDER_CLAMP) * kWidth +
                             cc_border_index(x + i, kWidth, CC_BORDER_CLAMP)];
      const double got = result[(y + kRadiusY) * kShape.pitch + x + kRadiusX];
      worst = std::max(worst, std::fabs(got - expected));
      if ((x == 0 && y == 0) || (x == 17 && y == 11) || (x == kWidth - 1 && y == kHeight - 1))
        std::printf("result: pixel (%d, %d): fused %.6f, host %.6f\n", x, y, got, expected);
    }
  return worst;
}

// Random pixels and taps through the fused forward and inverse, against the host; true when right.
bool check_fused_transform(const DeviceProblem& problem, const Plans& plans) {
  std::mt19937 random(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> pixels(kWidth * kHeight), taps(problem.args.filter_width * problem.args.filter_height);
  for (float& pixel : pixels) pixel = value(random);
  for (float& tap : taps) tap = value(random);
  const std::vector<float> placed = placed_filter(taps, problem.args);
  cudaMemcpy(problem.image, pixels.data(), sizeof(float) * pixels.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(problem.filter_spectrum, placed.data(), sizeof(float) * placed.size(), cudaMemcpyHostToDevice);
  const cufftResult filter_done = fft.cufftExecR2C(plans.plain_forward, problem.filter_spectrum,
                                                   reinterpret_cast<cufftComplex*>(problem.filter_spectrum));
  const cufftResult forward_done =
      fft.cufftExecR2C(plans.fused_forward, problem.image, reinterpret_cast<cufftComplex*>(problem.buffer));
  const cufftResult inverse_done =
      fft.cufftExecC2R(plans.fused_inverse, reinterpret_cast<cufftComplex*>(problem.buffer), problem.buffer);
  const cudaError_t synchronized = cudaDeviceSynchronize();
  std::printf("result: 8 exec filter R2C %s, fused R2C %s, fused C2R %s, %s\n", name(filter_done), name(forward_done),
              name(inverse_done), cudaGetErrorString(synchronized));
  std::vector<float> result(kRealFloats);
  cudaMemcpy(result.data(), problem.buffer, sizeof(float) * kRealFloats, cudaMemcpyDeviceToHost);
  const double worst = worst_error(result, pixels, taps, problem.args);
  const bool right = worst < 1e-4;
  std::printf("result: 8 fused transform vs host correlation (clamp), max |error| %.3g: %s\n", worst,
              right ? "right" : "WRONG");
  return right && filter_done == CUFFT_SUCCESS && forward_done == CUFFT_SUCCESS && inverse_done == CUFFT_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
  if (!open_libraries(argc > 1 && std::strcmp(argv[1], "--preload-nvjitlink") == 0)) return 1;
  cudaDeviceProp properties{};
  if (!describe_device(properties)) return 1;
  const Callbacks callbacks = compile_callbacks(properties);
  if (callbacks.tree_ir.empty() || callbacks.c_ir.empty()) return 1;
  DeviceProblem problem;
  const Plans plans = plan_steps(callbacks, problem);
  dl_iterate_phdr(print_library, nullptr);
  if (plans.plain_forward < 0 || plans.fused_inverse < 0 || plans.fused_forward < 0) {
    std::printf("result: the tree's callbacks did not plan: no transform to check\n");
    return 1;
  }
  return check_fused_transform(problem, plans) ? 0 : 1;
}
