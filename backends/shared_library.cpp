// shared_library.cpp: dlopen, dlsym and dlerror behind SharedLibrary, every failure kept as one line.
#include "backends/shared_library.h"

#include <dlfcn.h>
#include <sys/resource.h>

#include <utility>

#include <fmt/format.h>

#include "common/domain/error.h"

namespace cc {

namespace {

// dlerror() consumed (it is reset by reading), as one printable line.
std::string last_dl_error() {
  const char* text = dlerror();
  return printable(text ? text : "unknown dynamic loader error");
}

// dlerror's "cannot open shared object file: No such file or directory": a name not found on the search
// path. A later file that is found but cannot be mapped says more, so that reason wins.
bool not_found(const std::string& reason) { return reason.find("No such file") != std::string::npos; }

// The loader says only "failed to map segment" when ulimit -v refuses the mapping (cuFFT alone is 280 MB
// of address space): a limit that is set is named beside it, so the line says what to raise.
std::string address_space_note() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return "";
  return fmt::format(" (the address-space limit, ulimit -v, is {} MB)", limit.rlim_cur >> 20);
}

}  // namespace

SharedLibrary::SharedLibrary(std::string_view display_name, std::vector<std::string> files, bool keep_mapped)
    : display_name_(display_name), first_file_(files.empty() ? std::string() : files.front()) {
  // RTLD_NOW: an unresolved dependency is found here, as this failure line, not as a crash at the first
  // call. RTLD_LOCAL: the library's symbols stay out of the global scope other libraries resolve in.
  const int flags = RTLD_NOW | RTLD_LOCAL | (keep_mapped ? RTLD_NODELETE : 0);
  std::string reason;
  for (const std::string& file : files) {
    if (file.empty()) continue;
    dlerror();
    handle_ = dlopen(file.c_str(), flags);
    if (handle_) {
      opened_ = file;
      return;
    }
    std::string error = last_dl_error();
    if (reason.empty() || (not_found(reason) && !not_found(error))) reason = std::move(error);
  }
  if (reason.empty()) reason = "no file to open";
  else if (!not_found(reason)) reason += address_space_note();
  failure_ = fmt::format("{} ({}) could not be loaded: {}", display_name_, printable(first_file_), reason);
}

SharedLibrary::~SharedLibrary() {
  if (handle_) dlclose(handle_);
}

void* SharedLibrary::symbol(const char* name) {
  if (!handle_) return nullptr;
  dlerror();
  void* address = dlsym(handle_, name);
  if (!address && failure_.empty())
    failure_ = fmt::format("{} ({}) has no function {}: {}", display_name_, printable(opened_), name, last_dl_error());
  return address;
}

}  // namespace cc
