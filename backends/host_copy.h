// host_copy.h: fills or empties a page-locked transfer buffer on every core.
#pragma once

#include <cstddef>
#include <cstring>

#include "common/domain/parallel.h"

namespace cc {

// Copies `rows` rows of `width` floats. One core copies about 10 GB/s where a PCIe 5 link moves about
// 50 each way, so a single-threaded copy of a large image would take longer than its transfer; copies
// under a megabyte are not worth the threads.
inline void copy_rows(const float* source, float* destination, int rows, int width) {
  constexpr std::size_t kParallelBytes = std::size_t{1} << 20;
  const std::size_t row = static_cast<std::size_t>(width);
  if (rows * row * sizeof(float) < kParallelBytes) {
    std::memcpy(destination, source, rows * row * sizeof(float));
    return;
  }
  parallel_for_rows(rows, [&](int begin, int end) {
    std::memcpy(destination + begin * row, source + begin * row, (end - begin) * row * sizeof(float));
  });
}

}  // namespace cc
