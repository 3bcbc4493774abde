// error.h: the project's exception types: bad user input (exit 2; a stuck device is one) and a failed API call (CUDA or OpenCL).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cc {

// Bad usage or bad input (a missing file, a malformed filter spec, an image over the size cap...).
// The driver prints what() as one line on stderr and exits with status 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A wait for the device passed --kernel-timeout (backends/device_watchdog.h): a kernel that never
// returns (a --kernel-dir source's endless loop) or a stuck driver. Exit status 2, as for bad input.
class DeviceStuckError : public InputError {
 public:
  using InputError::InputError;
};

// `text` made safe to print on a terminal as part of one line: safe_text (common/domain/safe_text.h:
// control characters, an escape sequence from a hostile argument or a newline, and bytes that are not
// UTF-8 shown as \n, \t or \xNN), and every run of more than
// `longest_word` characters without a space is cut in its middle to "first...last [N bytes]", so a
// long argument echoed twice still gives a short line. Used on every message the driver prints.
std::string printable(std::string_view text, std::size_t longest_word = 160);

// A failed call into a GPU API. The same type serves CUDA, OpenCL and NPP, so the driver can report
// either API's failure the same way; an OpenCL build failure carries the build log.
class ApiError : public std::runtime_error {
 public:
  ApiError(std::string api, long code, std::string code_name, std::string call, std::string file,
           int line, std::string detail = {}, std::string build_log = {});

  const std::string& api() const { return api_; }  // "CUDA", "OpenCL", "NPP", "cuFFT", ...
  long code() const { return code_; }
  const std::string& code_name() const { return code_name_; }  // "CL_OUT_OF_RESOURCES"
  const std::string& call() const { return call_; }             // the failing expression
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& build_log() const { return build_log_; }

 private:
  std::string api_, code_name_, call_, file_, build_log_;
  long code_;
  int line_;
};

}  // namespace cc
