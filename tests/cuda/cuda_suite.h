// cuda_suite.h: what the CUDA suites share: the backend, made once per process, and a quick check's run options.
#pragma once

#include <doctest/doctest.h>

#include <memory>

#include "backends/backend.h"
#include "tests/support/backend_matrix.h"

namespace cc::testing {

// cuda_main.cpp runs the cases only when the backend has a device, so device 0 exists.
inline Backend& cuda() {
  static const std::unique_ptr<Backend> backend = find_backend("cuda");
  REQUIRE(backend);
  return *backend;
}

// Three timed launches after one warm-up, through host memory of the kind given.
inline RunOptions quick_options(HostMemory memory = HostMemory::Pinned) {
  RunOptions options;
  options.repetitions = 3;
  options.warmup = 1;
  options.memory = memory;
  return options;
}

}  // namespace cc::testing
