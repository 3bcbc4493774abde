// runtime_module.h: CUDA kernels compiled at run time by NVRTC with -D options, as OpenCL builds its programs.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>

namespace cc::cuda {

// A source file and the headers it includes by name (NVRTC reads no files: it is handed their text).
struct RuntimeSource {
  std::string name;  // "fast.cu", shown in errors
  std::string text;
  std::vector<std::pair<std::string, std::string>> headers;  // include name -> text
};

// One compiled module (a cudaLibrary_t, unloaded on destruction). Compilation failures throw
// ApiError("NVRTC", ...) with the compiler log attached.
class RuntimeModule {
 public:
  // Compiles for the current device's architecture (sm_XY, machine code, no PTX JIT at load).
  RuntimeModule(const RuntimeSource& source, const std::vector<std::string>& options);

  cudaKernel_t kernel(const char* name) const;
  void* global(const char* name, std::size_t* bytes) const;  // a __constant__ or __device__ symbol
  const std::string& options_text() const { return options_text_; }

 private:
  struct Unload {
    void operator()(std::remove_pointer_t<cudaLibrary_t>* library) const noexcept { cudaLibraryUnload(library); }
  };
  std::unique_ptr<std::remove_pointer_t<cudaLibrary_t>, Unload> library_;
  std::string options_text_;
};

}  // namespace cc::cuda
