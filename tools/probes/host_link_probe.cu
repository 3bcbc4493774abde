// host_link_probe.cu: how many GB/s the host moves to and from one GPU and from all at once (the two-GPU stream's ceiling).
// Build and run (GPU host): nvcc -O3 -arch=sm_90 tools/probes/host_link_probe.cu -o host_link_probe && ./host_link_probe [MB]
// Prints key=value lines, GB/s (10^9 bytes a second), best of five rounds timed by the host clock around
// cudaMemcpyAsync from and to pinned memory, the copies convcompare's --stream makes with --memory pinned
// (docs/performance.md, "Two GPUs"). Each GPU gets its own pinned buffers and two streams (one a direction),
// so "both" directions overlap on a link as the stream's uploads and downloads do. Then the host's own memory:
// memcpy between two pinned buffers on 1, 2, 4 and 8 threads, the bound a host-side ceiling would show.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "cuda_probe.h"

namespace {

constexpr int kRounds = 5;
constexpr int kCopiesPerRound = 8;

struct GpuSide {
  int device = 0;
  void* host_up = nullptr;    // pinned, read by the uploads
  void* host_down = nullptr;  // pinned, written by the downloads
  void* device_up = nullptr;
  void* device_down = nullptr;
  cudaStream_t up{};
  cudaStream_t down{};
};

enum class Direction { kUp, kDown, kBoth };

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Best rate over kRounds of kCopiesPerRound copies per direction on every GPU in `sides`, all at once.
double best_rate(std::vector<GpuSide>& sides, size_t bytes, Direction direction) {
  double best = 0;
  for (int round = 0; round < kRounds + 1; ++round) {  // round 0 warms the links up, untimed
    const auto start = std::chrono::steady_clock::now();
    for (int copy = 0; copy < kCopiesPerRound; ++copy)
      for (GpuSide& side : sides) {
        CHECK(cudaSetDevice(side.device));
        if (direction != Direction::kDown)
          CHECK(cudaMemcpyAsync(side.device_up, side.host_up, bytes, cudaMemcpyHostToDevice, side.up));
        if (direction != Direction::kUp)
          CHECK(cudaMemcpyAsync(side.host_down, side.device_down, bytes, cudaMemcpyDeviceToHost, side.down));
      }
    for (GpuSide& side : sides) {
      CHECK(cudaSetDevice(side.device));
      CHECK(cudaDeviceSynchronize());
    }
    const double elapsed = seconds_since(start);
    const double moved = static_cast<double>(bytes) * kCopiesPerRound * sides.size() *
                         (direction == Direction::kBoth ? 2 : 1);
    if (round > 0 && moved / elapsed > best) best = moved / elapsed;
  }
  return best / 1e9;
}

// memcpy between two pinned host buffers on `threads` threads, each its slice: the host memory's own rate
// (read plus write counted once, as a copy's bytes are above).
double host_copy_rate(void* to, const void* from, size_t bytes, int threads) {
  double best = 0;
  for (int round = 0; round < kRounds + 1; ++round) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    const size_t slice = bytes / threads;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([=] {
        std::memcpy(static_cast<char*>(to) + t * slice, static_cast<const char*>(from) + t * slice, slice);
      });
    for (std::thread& worker : workers) worker.join();
    const double rate = static_cast<double>(slice) * threads / seconds_since(start);
    if (round > 0 && rate > best) best = rate;
  }
  return best / 1e9;
}

const char* name_of(Direction direction) {
  return direction == Direction::kUp ? "up" : direction == Direction::kDown ? "down" : "both";
}

}  // namespace

int main(int argc, char** argv) {
  cuda_probe::program = "host_link_probe";
  const size_t megabytes = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  const size_t bytes = megabytes << 20;
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  std::printf("devices=%d\nbytes_per_copy=%zu\n", count, bytes);
  std::vector<GpuSide> sides(count);
  for (int d = 0; d < count; ++d) {
    GpuSide& side = sides[d];
    side.device = d;
    CHECK(cudaSetDevice(d));
    cudaDeviceProp properties{};
    CHECK(cudaGetDeviceProperties(&properties, d));
    std::printf("device%d=%s pci=%04x:%02x:%02x\n", d, properties.name, properties.pciDomainID, properties.pciBusID,
                properties.pciDeviceID);
    CHECK(cudaHostAlloc(&side.host_up, bytes, cudaHostAllocPortable));
    CHECK(cudaHostAlloc(&side.host_down, bytes, cudaHostAllocPortable));
    std::memset(side.host_up, 1, bytes);
    std::memset(side.host_down, 2, bytes);
    CHECK(cudaMalloc(&side.device_up, bytes));
    CHECK(cudaMalloc(&side.device_down, bytes));
    CHECK(cudaMemset(side.device_down, 3, bytes));
    CHECK(cudaStreamCreateWithFlags(&side.up, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&side.down, cudaStreamNonBlocking));
  }
  for (Direction direction : {Direction::kUp, Direction::kDown, Direction::kBoth}) {
    for (int d = 0; d < count; ++d) {
      std::vector<GpuSide> one{sides[d]};
      std::printf("gpu%d_%s_gbs=%.1f\n", d, name_of(direction), best_rate(one, bytes, direction));
    }
    if (count > 1) std::printf("all_%s_gbs=%.1f\n", name_of(direction), best_rate(sides, bytes, direction));
  }
  for (int threads : {1, 2, 4, 8})
    std::printf("host_memcpy_%dthreads_gbs=%.1f\n", threads,
                host_copy_rate(sides[0].host_down, sides[0].host_up, bytes, threads));
  for (GpuSide& side : sides) {
    CHECK(cudaSetDevice(side.device));
    CHECK(cudaStreamDestroy(side.up));
    CHECK(cudaStreamDestroy(side.down));
    CHECK(cudaFree(side.device_up));
    CHECK(cudaFree(side.device_down));
    CHECK(cudaFreeHost(side.host_up));
    CHECK(cudaFreeHost(side.host_down));
  }
  return 0;
}
