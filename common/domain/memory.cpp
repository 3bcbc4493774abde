// memory.cpp: available host memory from /proc/meminfo, the cgroup limit and RLIMIT_AS, and the check before large allocations.
#include "common/domain/memory.h"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "common/domain/error.h"
#include "common/domain/input_file.h"

namespace cc {

namespace {

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

// "MemAvailable:   24218544 kB" -> bytes; kUnlimited when the key is missing.
std::uint64_t proc_kilobytes(const char* file, std::string_view key) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(key)) return std::stoull(line.substr(key.size())) * 1024;
  return kUnlimited;
}

// One number from a cgroup file; kUnlimited for "max", a missing file or a number that is not one.
std::uint64_t cgroup_value(const char* file) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text == "max") return kUnlimited;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return kUnlimited;
  }
}

std::uint64_t headroom(std::uint64_t limit, std::uint64_t used) {
  if (limit == kUnlimited) return kUnlimited;
  return limit > used ? limit - used : 0;
}

}  // namespace

std::uint64_t available_host_memory() {
  std::uint64_t available = proc_kilobytes("/proc/meminfo", "MemAvailable:");
  // cgroup v2, then v1 (as mounted inside a container: the process's own group at the root).
  available = std::min(available, headroom(cgroup_value("/sys/fs/cgroup/memory.max"),
                                           cgroup_value("/sys/fs/cgroup/memory.current")));
  available = std::min(available, headroom(cgroup_value("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
                                           cgroup_value("/sys/fs/cgroup/memory/memory.usage_in_bytes")));
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    available = std::min(available, headroom(limit.rlim_cur, proc_kilobytes("/proc/self/status", "VmSize:")));
  return available;
}

void check_host_memory(std::uint64_t needed, std::string_view what) {
  constexpr std::uint64_t kAlwaysAllowed = 64u << 20;
  if (needed <= kAlwaysAllowed) return;
  if (const std::uint64_t available = available_host_memory(); needed > available)
    throw InputError(fmt::format("{} needs {} of host memory and only {} is available", what,
                                 describe_bytes(needed), describe_bytes(available)));
}

}  // namespace cc
