// memory.h: how much host memory this process may still take, and the check every large allocation makes first.
#pragma once

#include <cstdint>
#include <string_view>

namespace cc {

// Bytes this process can still allocate and touch: the kernel's MemAvailable, lowered to what is
// left under a cgroup memory limit (a container) and under the address-space limit (ulimit -v).
std::uint64_t available_host_memory();

// Throws InputError "<what> needs 3.0 GB of host memory; 1.2 GB are available" when `needed` bytes
// are more than available_host_memory(). Small requests are not checked (reading /proc for each
// would cost more than they do).
void check_host_memory(std::uint64_t needed, std::string_view what);

}  // namespace cc
