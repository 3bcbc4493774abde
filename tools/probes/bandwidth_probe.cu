// bandwidth_probe.cu: the L2, L1 and shared-memory read peaks docs/memory-spaces.md's hierarchy lacks (tools/memory_spaces.sh --paths).
// Build and run (GPU host): nvcc -O3 -arch=sm_90 tools/probes/bandwidth_probe.cu -o probe && ./probe
// Prints key=value lines (GB/s, best of several launches, CUDA events), read by tools/memory_spaces_paths.py.
// Each kernel reads with one 16-byte load per thread per step, the widest a thread can ask (LDG.128 / LDS.128),
// and keeps its sum live by a store no run takes (flag is 0), so the compiler cannot drop the loads.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "cuda_probe.h"

namespace {

constexpr int kThreads = 512;
constexpr int kSharedFloat4 = 2048;  // 32 KB of shared memory per block: two blocks fit any SM since sm_70

// L2: the whole buffer (smaller than the L2) swept `passes` times with ld.global.cg, which caches in L2
// only, so every load is an L2 hit after the first pass (the first pass is the untimed warm-up launch).
__global__ void l2_read(const float4* data, size_t count, int passes, int flag, float* sink) {
  float4 sum = make_float4(0, 0, 0, 0);
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (int pass = 0; pass < passes; ++pass)
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
      const float4 v = __ldcg(data + i);
      sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
    }
  if (flag) sink[blockIdx.x * blockDim.x + threadIdx.x] = sum.x + sum.y + sum.z + sum.w;
}

// L1: each block sweeps its own 32 KB window (ld.global.ca: cached in L1), so after the first sweep the
// window is in the SM's L1 and the loads are hits.
__global__ void l1_read(const float4* data, int window, int passes, int flag, float* sink) {
  float4 sum = make_float4(0, 0, 0, 0);
  const float4* own = data + static_cast<size_t>(blockIdx.x % 64) * window;
  for (int pass = 0; pass < passes; ++pass)
    for (int i = threadIdx.x; i < window; i += blockDim.x) {
      const float4 v = __ldca(own + i);
      sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
    }
  if (flag) sink[blockIdx.x * blockDim.x + threadIdx.x] = sum.x + sum.y + sum.z + sum.w;
}

// Shared memory: consecutive threads read consecutive float4s (a quarter warp per wavefront, no bank
// conflict), the offset moving each pass so no load is loop-invariant.
__global__ void shared_read(int passes, int flag, float* sink) {
  __shared__ float4 tile[kSharedFloat4];
  for (int i = threadIdx.x; i < kSharedFloat4; i += blockDim.x) tile[i] = make_float4(i, 1, 2, 3);
  __syncthreads();
  float4 sum = make_float4(0, 0, 0, 0);
  for (int pass = 0; pass < passes; ++pass)
    for (int i = threadIdx.x; i < kSharedFloat4; i += blockDim.x) {
      const float4 v = tile[(i + pass * 32) & (kSharedFloat4 - 1)];
      sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
    }
  if (flag) sink[blockIdx.x * blockDim.x + threadIdx.x] = sum.x + sum.y + sum.z + sum.w;
}

template <typename Launch>
double best_ms(Launch launch) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  launch();  // warm-up: fills L2 / L1, loads the module
  CHECK(cudaDeviceSynchronize());
  float best = 1e30f;
  for (int i = 0; i < 5; ++i) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (ms < best) best = ms;
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return best;
}

}  // namespace

int main() {
  cuda_probe::program = "bandwidth_probe";
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount * 4;
  // Half the L2, so the sweep stays resident (H100: 50 MB of L2, a 25 MB buffer).
  const size_t l2_bytes = static_cast<size_t>(prop.l2CacheSize) / 2;
  const size_t count = l2_bytes / sizeof(float4);
  float4* data = nullptr;
  float* sink = nullptr;
  CHECK(cudaMalloc(&data, l2_bytes));
  CHECK(cudaMemset(data, 0, l2_bytes));
  CHECK(cudaMalloc(&sink, static_cast<size_t>(blocks) * kThreads * sizeof(float)));
  std::printf("device=%s\nsms=%d\nl2_bytes=%d\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize);

  const int l2_passes = 100;  // 2.5 GB on an H100: about half a millisecond, well above the events' resolution
  const double l2_ms = best_ms([&] { l2_read<<<blocks, kThreads>>>(data, count, l2_passes, 0, sink); });
  std::printf("l2_read_gb_per_s=%.0f\n", static_cast<double>(l2_bytes) * l2_passes / (l2_ms * 1e6));

  const int window = 2048, l1_passes = 200;  // 32 KB per block, 64 windows: 2 MB, well inside L2 too
  const double l1_ms = best_ms([&] { l1_read<<<blocks, kThreads>>>(data, window, l1_passes, 0, sink); });
  std::printf("l1_read_gb_per_s=%.0f\n", static_cast<double>(blocks) * window * sizeof(float4) * l1_passes / (l1_ms * 1e6));

  const int shared_passes = 400;
  const double shared_ms = best_ms([&] { shared_read<<<blocks, kThreads>>>(shared_passes, 0, sink); });
  std::printf("shared_read_gb_per_s=%.0f\n",
              static_cast<double>(blocks) * kSharedFloat4 * sizeof(float4) * shared_passes / (shared_ms * 1e6));
  CHECK(cudaFree(data));
  CHECK(cudaFree(sink));
  return 0;
}
