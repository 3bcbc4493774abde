// shared_library.h: a shared library opened with dlopen when a backend first needs it, and its functions looked up by name (cuFFT, NVRTC: docs/architecture.md, "Libraries loaded at first use").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cc {

// One dlopen handle, closed on destruction. Opening never throws and never ends the process: a library
// that is missing, or that the dynamic loader cannot map (ulimit -v, a wrong architecture, a missing
// dependency), leaves loaded() false and failure() one line naming the library and dlerror's reason.
class SharedLibrary {
 public:
  // Tries each of `files` in order (a soname, a path, the unversioned name) until one opens;
  // `display_name` ("cuFFT") starts failure(). `keep_mapped` adds RTLD_NODELETE: dlclose then leaves the
  // code in place, for libraries that register kernels with the CUDA runtime, whose own teardown at exit
  // still reaches them.
  SharedLibrary(std::string_view display_name, std::vector<std::string> files, bool keep_mapped = false);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  bool loaded() const { return handle_ != nullptr && failure_.empty(); }
  // "" while loaded(); else "cuFFT (libcufft.so.12) could not be loaded: <dlerror>", or "... has no
  // function cufftExecR2C: <dlerror>" once a lookup failed (an older library than the headers).
  const std::string& failure() const { return failure_; }
  const std::string& opened_file() const { return opened_; }  // which of `files` opened, or ""

  // Sets `function` to the library's `name`; on a missing name, to null, and failure() says so (the
  // library then counts as not loaded: a table with a hole in it is not used).
  template <class Function>
  void find(const char* name, Function*& function) {
    function = reinterpret_cast<Function*>(symbol(name));
  }

 private:
  void* symbol(const char* name);

  std::string display_name_;
  std::string first_file_;
  std::string opened_;
  std::string failure_;
  void* handle_ = nullptr;
};

}  // namespace cc
