// cuda_libraries.h: the cuFFT and NVRTC functions the CUDA backend calls, loaded with dlopen at their first use, not at process start (docs/architecture.md, "Libraries loaded at first use").
#pragma once

#include <string>

#include <nvrtc.h>
#ifdef CONVCOMPARE_WITH_CUFFT
#include <cufft.h>
#include <cufftXt.h>
#endif

#include "backends/cuda/cuda_variants.h"

namespace cc::cuda {

// Each table holds the functions under their own names, so a call reads as the library's documentation
// spells it: nvrtc().nvrtcCompileProgram(...). The first call of nvrtc() or cufft() opens the library
// (thread-safe, once per process); a library that did not load throws std::logic_error there, since the
// backend refuses the variants that need it first (missing_library).
struct NvrtcFunctions {
  decltype(&::nvrtcCreateProgram) nvrtcCreateProgram = nullptr;
  decltype(&::nvrtcCompileProgram) nvrtcCompileProgram = nullptr;
  decltype(&::nvrtcGetProgramLogSize) nvrtcGetProgramLogSize = nullptr;
  decltype(&::nvrtcGetProgramLog) nvrtcGetProgramLog = nullptr;
  decltype(&::nvrtcGetCUBINSize) nvrtcGetCUBINSize = nullptr;
  decltype(&::nvrtcGetCUBIN) nvrtcGetCUBIN = nullptr;
  decltype(&::nvrtcGetLTOIRSize) nvrtcGetLTOIRSize = nullptr;  // fft's cuFFT callbacks (cuda_fft.cpp)
  decltype(&::nvrtcGetLTOIR) nvrtcGetLTOIR = nullptr;
  decltype(&::nvrtcDestroyProgram) nvrtcDestroyProgram = nullptr;
  decltype(&::nvrtcGetErrorString) nvrtcGetErrorString = nullptr;
};
const NvrtcFunctions& nvrtc();

#ifdef CONVCOMPARE_WITH_CUFFT
struct CufftFunctions {
  decltype(&::cufftCreate) cufftCreate = nullptr;
  decltype(&::cufftDestroy) cufftDestroy = nullptr;
  decltype(&::cufftSetAutoAllocation) cufftSetAutoAllocation = nullptr;
  decltype(&::cufftXtSetJITCallback) cufftXtSetJITCallback = nullptr;
  decltype(&::cufftMakePlanMany64) cufftMakePlanMany64 = nullptr;
  decltype(&::cufftSetWorkArea) cufftSetWorkArea = nullptr;
  decltype(&::cufftSetStream) cufftSetStream = nullptr;
  decltype(&::cufftExecR2C) cufftExecR2C = nullptr;
  decltype(&::cufftExecC2R) cufftExecC2R = nullptr;
};
const CufftFunctions& cufft();
#endif

// Why `variant` cannot run because a library it needs did not load: one line naming the library,
// dlerror's reason and the variants that need it ("cuFFT (libcufft.so.12) could not be loaded: ...;
// CUDA's fft needs it"); "" where it needs none or they loaded. Opens the library on the first ask.
std::string missing_library(const ApiVariant& variant);

}  // namespace cc::cuda
