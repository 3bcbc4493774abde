// runtime_module.cpp: NVRTC compilation to machine code and loading it as a CUDA library.
#include "backends/cuda/runtime_module.h"

#include <fmt/format.h>
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_libraries.h"
#include "backends/build_text.h"
#include "common/domain/error.h"

namespace cc::cuda {

namespace {

struct ProgramDestroy {
  void operator()(nvrtcProgram* program) const noexcept {
    if (*program) nvrtc().nvrtcDestroyProgram(program);  // null: never created (NVRTC may not have loaded)
    delete program;
  }
};

[[noreturn]] void throw_nvrtc(nvrtcResult code, const std::string& call, int line, std::string log = {}) {
  // The first error line says most (all of a log that names none); the whole log travels with the exception.
  const std::vector<std::string> errors = error_lines(log, 1);
  std::string detail = errors.empty() ? log : errors.front();
  throw ApiError("NVRTC", code, nvrtc().nvrtcGetErrorString(code), call, __FILE__, line, detail, std::move(log));
}

#define CC_NVRTC(expr)                                                            \
  do {                                                                            \
    const nvrtcResult cc_nvrtc_status = (expr);                                   \
    if (cc_nvrtc_status != NVRTC_SUCCESS) throw_nvrtc(cc_nvrtc_status, #expr, __LINE__); \
  } while (false)

}  // namespace

RuntimeModule::RuntimeModule(const RuntimeSource& source, const std::vector<std::string>& options) {
  int device = 0;
  CC_CUDA_CHECK(cudaGetDevice(&device));
  int major = 0, minor = 0;
  CC_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CC_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));

  std::vector<std::string> all_options = {fmt::format("--gpu-architecture=sm_{}{}", major, minor), "-std=c++17",
                                          "--fmad=true"};
  all_options.insert(all_options.end(), options.begin(), options.end());
  options_text_ = fmt::format("{}", fmt::join(all_options, " "));

  std::vector<const char*> header_texts, header_names;
  for (const auto& [name, text] : source.headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  std::unique_ptr<nvrtcProgram, ProgramDestroy> program(new nvrtcProgram{});
  CC_NVRTC(nvrtc().nvrtcCreateProgram(program.get(), source.text.c_str(), source.name.c_str(),
                              static_cast<int>(header_texts.size()), header_texts.data(), header_names.data()));

  std::vector<const char*> option_pointers;
  for (const std::string& option : all_options) option_pointers.push_back(option.c_str());
  const nvrtcResult compiled =
      nvrtc().nvrtcCompileProgram(*program, static_cast<int>(option_pointers.size()), option_pointers.data());
  if (compiled != NVRTC_SUCCESS) {
    std::size_t log_size = 0;
    std::string log;
    if (nvrtc().nvrtcGetProgramLogSize(*program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
      log.resize(log_size);
      nvrtc().nvrtcGetProgramLog(*program, log.data());
      log.resize(log_size - 1);
    }
    throw_nvrtc(compiled, fmt::format("nvrtcCompileProgram({}, \"{}\")", source.name, options_text_), __LINE__,
                std::move(log));
  }

  std::size_t cubin_size = 0;
  CC_NVRTC(nvrtc().nvrtcGetCUBINSize(*program, &cubin_size));
  std::string cubin(cubin_size, '\0');
  CC_NVRTC(nvrtc().nvrtcGetCUBIN(*program, cubin.data()));

  cudaLibrary_t library = nullptr;
  CC_CUDA_CHECK(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  library_.reset(library);
}

cudaKernel_t RuntimeModule::kernel(const char* name) const {
  cudaKernel_t kernel = nullptr;
  CC_CUDA_CHECK(cudaLibraryGetKernel(&kernel, library_.get(), name));
  return kernel;
}

void* RuntimeModule::global(const char* name, std::size_t* bytes) const {
  void* address = nullptr;
  CC_CUDA_CHECK(cudaLibraryGetGlobal(&address, bytes, library_.get(), name));
  return address;
}

}  // namespace cc::cuda
