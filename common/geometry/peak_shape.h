// peak_shape.h: how much work the peak kernels (kernels_cuda/peak.cu, kernels_cl/peak.cl) do, the same in both APIs.
#pragma once

#include <algorithm>
#include <cstddef>

namespace cc {

// fma_chains runs 8 independent chains of 16 unrolled steps per loop iteration (the kernels' bodies).
inline constexpr int kPeakFmasPerIteration = 8 * 16;
// The best of this many event-timed launches of each kernel, after one untimed warm-up launch.
inline constexpr int kPeakTimedLaunches = 5;
// Values that keep every FMA chain finite (scale < 1): the chains tend to offset / (1 - scale).
inline constexpr float kPeakScale = 0.999f, kPeakOffset = 0.001f;

struct PeakShape {
  std::size_t copy_bytes = 0;  // each of the copy's two buffers (one read, one written)
  int group_size = 256;        // threads per block / work-items per work-group, both kernels
  int copy_groups = 0;         // blocks / work-groups of the copy
  int fma_groups = 0;          // blocks / work-groups of the FMA chains
  int fma_iterations = 0;
};

// A GPU: a 256 MB copy (1/8 of the memory if that is smaller), far beyond any L2; 32 groups of 256 per
// compute unit for both kernels, four waves even at 2048 resident threads, so every unit stays busy;
// 1024 iterations, a few milliseconds at H100 rates. A CPU (PoCL) runs a work-group's work-items one
// after another on one core, so a grid stride would make each of them jump through memory: there the
// copy gets one work-item per float4 (its grid-stride loop runs once) and the FMA chains one group per
// core; a 64 MB copy and 256 iterations keep the measurement well under a second.
inline PeakShape peak_shape(bool gpu, int compute_units, std::size_t global_memory, std::size_t max_allocation,
                            std::size_t max_group_size) {
  constexpr std::size_t kMB = std::size_t{1} << 20;
  PeakShape shape;
  shape.copy_bytes = std::min({gpu ? 256 * kMB : 64 * kMB, global_memory / 8, max_allocation});
  shape.copy_bytes -= shape.copy_bytes % 16;  // whole float4s
  shape.group_size = static_cast<int>(std::min<std::size_t>(256, std::max<std::size_t>(1, max_group_size)));
  const int float4s = static_cast<int>(shape.copy_bytes / 16);
  shape.fma_groups = std::max(1, compute_units) * (gpu ? 32 : 1);
  shape.copy_groups = gpu ? shape.fma_groups : std::max(1, (float4s + shape.group_size - 1) / shape.group_size);
  shape.fma_iterations = gpu ? 1024 : 256;
  return shape;
}

// Bytes read plus bytes written per second by one copy of `shape.copy_bytes` taking `ms`.
inline double copy_gb_per_s(const PeakShape& shape, double ms) { return 2.0 * shape.copy_bytes / (ms * 1e6); }

// Two flops per FMA, every thread of every group running kPeakFmasPerIteration per iteration.
inline double fma_gflop_per_s(const PeakShape& shape, double ms) {
  const double fmas = static_cast<double>(shape.fma_groups) * shape.group_size * shape.fma_iterations * kPeakFmasPerIteration;
  return 2.0 * fmas / (ms * 1e6);
}

}  // namespace cc
