// error.cpp: formats ApiError's one-line message from its parts.
#include "common/domain/error.h"

#include <fmt/format.h>

namespace cc {

namespace {
std::string describe(const std::string& api, long code, const std::string& code_name,
                     const std::string& call, const std::string& file, int line,
                     const std::string& detail) {
  std::string message = fmt::format("{} error {} ({}) in {} at {}:{}", api, code_name, code, call, file, line);
  if (!detail.empty()) message += ": " + detail;
  return message;
}
}  // namespace

ApiError::ApiError(std::string api, long code, std::string code_name, std::string call,
                   std::string file, int line, std::string detail, std::string build_log)
    : std::runtime_error(describe(api, code, code_name, call, file, line, detail)),
      api_(std::move(api)),
      code_name_(std::move(code_name)),
      call_(std::move(call)),
      file_(std::move(file)),
      build_log_(std::move(build_log)),
      code_(code),
      line_(line) {}

}  // namespace cc
