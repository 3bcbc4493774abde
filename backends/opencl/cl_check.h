// cl_check.h: every failing OpenCL call becomes a cc::ApiError naming the code, the call, file and line.
#pragma once

#include <string_view>

#include <CL/opencl.hpp>

namespace cc::opencl {

// "CL_OUT_OF_RESOURCES" for -5, "CL_PLATFORM_NOT_FOUND_KHR" for -1001; "CL_UNKNOWN_ERROR" otherwise.
std::string_view error_name(cl_int code);

// Throws ApiError("OpenCL", code, error_name(code), call, file, line) unless code is CL_SUCCESS.
void check(cl_int code, const char* call, const char* file, int line);

// Runs an opencl.hpp call that reports its status through a trailing `cl_int* err` (constructors,
// getInfo, enqueueMapBuffer) and returns its value once the status is checked.
template <typename Call>
auto checked(Call&& call, const char* text, const char* file, int line) {
  cl_int code = CL_SUCCESS;
  auto value = call(&code);
  check(code, text, file, line);
  return value;
}

}  // namespace cc::opencl

// CC_CL(queue.finish()): a call returning cl_int.
#define CC_CL(...) ::cc::opencl::check((__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)

// CC_CL_OUT(cl::Buffer(context, flags, bytes, nullptr, err)): a call whose last argument is the
// status pointer, spelled `err`.
#define CC_CL_OUT(...) \
  ::cc::opencl::checked([&](cl_int* err) { return __VA_ARGS__; }, #__VA_ARGS__, __FILE__, __LINE__)
