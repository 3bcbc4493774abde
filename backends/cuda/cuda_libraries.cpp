// cuda_libraries.cpp: cuFFT and NVRTC opened at first use from the sonames of the toolkit CMake found (generated/cuda_library_files.h), their functions looked up once.
#include "backends/cuda/cuda_libraries.h"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "backends/shared_library.h"
#include "common/domain/variants.h"
#include "cuda_library_files.h"

namespace cc::cuda {

namespace {

// Sets table.name to the library's function of that name (one spelling for both).
#define CC_FIND(library, table, name) (library).find(#name, (table).name)

// The names tried, in order: the soname (the loader's search path: LD_LIBRARY_PATH, the binary's
// RUNPATH, ld.so.cache), the same file in the toolkit CMake found, then the unversioned name (a
// -dev package's link, the last resort). The libraries stay mapped once opened: both hand their
// kernels to the CUDA runtime, whose teardown at exit still reaches them (shared_library.h).
SharedLibrary open_library(const char* display_name, const char* soname, const char* toolkit_file,
                           const char* unversioned) {
  return SharedLibrary(display_name, {soname, toolkit_file, unversioned}, /*keep_mapped=*/true);
}

struct LoadedNvrtc {
  SharedLibrary library = open_library("NVRTC", CC_NVRTC_SONAME, CC_NVRTC_TOOLKIT_FILE, "libnvrtc.so");
  NvrtcFunctions functions;
  LoadedNvrtc() {
    CC_FIND(library, functions, nvrtcCreateProgram);
    CC_FIND(library, functions, nvrtcCompileProgram);
    CC_FIND(library, functions, nvrtcGetProgramLogSize);
    CC_FIND(library, functions, nvrtcGetProgramLog);
    CC_FIND(library, functions, nvrtcGetCUBINSize);
    CC_FIND(library, functions, nvrtcGetCUBIN);
    CC_FIND(library, functions, nvrtcGetLTOIRSize);
    CC_FIND(library, functions, nvrtcGetLTOIR);
    CC_FIND(library, functions, nvrtcDestroyProgram);
    CC_FIND(library, functions, nvrtcGetErrorString);
  }
};

const LoadedNvrtc& loaded_nvrtc() {
  static const LoadedNvrtc loaded;
  return loaded;
}

#ifdef CONVCOMPARE_WITH_CUFFT
struct LoadedCufft {
  SharedLibrary library = open_library("cuFFT", CC_CUFFT_SONAME, CC_CUFFT_TOOLKIT_FILE, "libcufft.so");
  CufftFunctions functions;
  LoadedCufft() {
    CC_FIND(library, functions, cufftCreate);
    CC_FIND(library, functions, cufftDestroy);
    CC_FIND(library, functions, cufftSetAutoAllocation);
    CC_FIND(library, functions, cufftXtSetJITCallback);
    CC_FIND(library, functions, cufftMakePlanMany64);
    CC_FIND(library, functions, cufftSetWorkArea);
    CC_FIND(library, functions, cufftSetStream);
    CC_FIND(library, functions, cufftExecR2C);
    CC_FIND(library, functions, cufftExecC2R);
  }
};

const LoadedCufft& loaded_cufft() {
  static const LoadedCufft loaded;
  return loaded;
}
#endif

#undef CC_FIND

template <class Functions>
const Functions& checked(const SharedLibrary& library, const Functions& functions) {
  if (!library.loaded()) throw std::logic_error(library.failure() + " (a variant that needs it was not refused)");
  return functions;
}

// The variants whose kernels NVRTC builds (their descriptions say CudaBuild::Nvrtc), for the failure line.
std::string nvrtc_variants() {
  std::vector<std::string_view> names;
  for (const ApiVariant& variant : api_variants())
    if (variant.description && variant.description->cuda_build == CudaBuild::Nvrtc) names.push_back(variant.traits->name);
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

const NvrtcFunctions& nvrtc() { return checked(loaded_nvrtc().library, loaded_nvrtc().functions); }

#ifdef CONVCOMPARE_WITH_CUFFT
const CufftFunctions& cufft() { return checked(loaded_cufft().library, loaded_cufft().functions); }
#endif

std::string missing_library(const ApiVariant& variant) {
  if (variant.description && variant.description->cuda_build == CudaBuild::Nvrtc) {
    const SharedLibrary& library = loaded_nvrtc().library;
    if (!library.loaded()) return fmt::format("{}; CUDA's {} need it", library.failure(), nvrtc_variants());
  }
#ifdef CONVCOMPARE_WITH_CUFFT
  if (variant.traits->kind == VariantKind::Fft) {
    const SharedLibrary& library = loaded_cufft().library;
    if (!library.loaded()) return fmt::format("{}; CUDA's fft needs it", library.failure());
  }
#endif
  return "";
}

}  // namespace cc::cuda
