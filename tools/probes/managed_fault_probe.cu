// managed_fault_probe.cu: what managed memory without prefetch costs, counted (--memory managed-faults): GPU page faults and bytes migrated by CUPTI, against prefetch and a pinned copy.
// Build and run (GPU host): cmake --build build-gpu --target managed_fault_probe && build-gpu/tools/probes/managed_fault_probe
// (built only where CMake found CUPTI: backends/cuda/backend.cmake). For three frames (2048x2048 RGBA8,
// the 3-channel u8 job as convcompare holds it; 2048x2048 f32; 8192x8192 f32) and two ways of handing a
// frame the host just wrote to the kernel, (a) no prefetch: the kernel's first touches fault the pages
// over, and the host's read of the result faults them back; (b) cudaMemPrefetchAsync to the device
// before the kernel and to the host after it; it prints the kernel time (the `global` 3x3 box: every
// input byte read, every output byte written), the prefetches' times, the GPU page-fault groups and the
// bytes CUPTI's unified-memory counters saw move each way, the migration GB/s (bytes / the time that
// holds them), and the same bytes by pinned cudaMemcpyAsync for the host link's floor, as a markdown
// table (docs/memory-spaces.md, "Managed memory without prefetch"). Where CUPTI cannot start (some
// container runtimes refuse its profiling), one line says so and the timings are still printed.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <cupti.h>

#include "cuda_probe.h"

namespace {

constexpr int kRounds = 5;  // the best round is printed: the first pays for page-table set-up too

// ---- CUPTI's unified-memory counters: every record kept, then summed over a phase's time window ----

struct Counter {
  CUpti_ActivityUnifiedMemoryCounterKind kind;
  std::uint64_t value, start, end;
};
std::mutex g_records_mutex;
std::vector<Counter> g_records;
std::uint64_t g_dropped = 0;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  constexpr std::size_t kBytes = 8u << 20;
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBytes));
  *size = *buffer ? kBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  CUpti_Activity* record = nullptr;
  std::lock_guard lock(g_records_mutex);
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
    if (record->kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
      const auto* um = reinterpret_cast<const CUpti_ActivityUnifiedMemoryCounter3*>(record);
      g_records.push_back({um->counterKind, um->value, um->start, um->end});
    }
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) g_dropped += dropped;
  std::free(buffer);
}

// "" when the counters run, else why not (one line).
std::string start_cupti() {
  const char* what = nullptr;
  CUptiResult status = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (status != CUPTI_SUCCESS) what = "cuptiActivityRegisterCallbacks";
  CUpti_ActivityUnifiedMemoryCounterConfig config[3] = {};
  const CUpti_ActivityUnifiedMemoryCounterKind kinds[3] = {CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
                                                           CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
                                                           CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT};
  for (int i = 0; i < 3; ++i) {
    config[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
    config[i].kind = kinds[i];
    config[i].deviceId = 0;
    config[i].enable = 1;
  }
  if (!what && (status = cuptiActivityConfigureUnifiedMemoryCounter(config, 3)) != CUPTI_SUCCESS)
    what = "cuptiActivityConfigureUnifiedMemoryCounter";
  if (!what && (status = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)) != CUPTI_SUCCESS)
    what = "cuptiActivityEnable(UNIFIED_MEMORY_COUNTER)";
  if (!what) return "";
  const char* text = nullptr;
  cuptiGetResultString(status, &text);
  return std::string(what) + ": " + (text ? text : "unknown CUPTI error");
}

std::uint64_t now_ns() {
  std::uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

// The counters whose records began in [from, to): bytes each way, fault groups (records) and faults.
struct Moved {
  std::uint64_t htod = 0, dtoh = 0, fault_groups = 0, faults = 0;
};
Moved moved_between(std::uint64_t from, std::uint64_t to) {
  Moved moved;
  std::lock_guard lock(g_records_mutex);
  for (const Counter& c : g_records) {
    if (c.start < from || c.start >= to) continue;
    if (c.kind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD) moved.htod += c.value;
    if (c.kind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH) moved.dtoh += c.value;
    if (c.kind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT) {
      ++moved.fault_groups;
      moved.faults += c.value;
    }
  }
  return moved;
}

// ---- the kernels: convcompare's `global` pattern, a 3x3 box with clamped borders ----

__global__ void box3_f32(const float* in, float* out, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float sum = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      sum += in[static_cast<size_t>(min(max(y + dy, 0), height - 1)) * width + min(max(x + dx, 0), width - 1)];
  out[static_cast<size_t>(y) * width + x] = sum * (1.0f / 9.0f);
}

__global__ void box3_rgba8(const uchar4* in, uchar4* out, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float4 sum = make_float4(0, 0, 0, 0);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const uchar4 p = in[static_cast<size_t>(min(max(y + dy, 0), height - 1)) * width + min(max(x + dx, 0), width - 1)];
      sum.x += p.x, sum.y += p.y, sum.z += p.z, sum.w += p.w;
    }
  const auto px = [](float v) { return static_cast<unsigned char>(fminf(v * (1.0f / 9.0f) + 0.5f, 255.0f)); };
  out[static_cast<size_t>(y) * width + x] = make_uchar4(px(sum.x), px(sum.y), px(sum.z), px(sum.w));
}

struct Frame {
  const char* name;
  int width, height;
  bool rgba8;
  std::size_t bytes() const { return static_cast<std::size_t>(width) * height * 4; }  // 4 bytes a pixel either way
};

void launch(const Frame& frame, const void* in, void* out, cudaStream_t stream) {
  const dim3 block(32, 8), grid((frame.width + 31) / 32, (frame.height + 7) / 8);
  if (frame.rgba8)
    box3_rgba8<<<grid, block, 0, stream>>>(static_cast<const uchar4*>(in), static_cast<uchar4*>(out), frame.width, frame.height);
  else
    box3_f32<<<grid, block, 0, stream>>>(static_cast<const float*>(in), static_cast<float*>(out), frame.width, frame.height);
  CHECK(cudaGetLastError());
}

float elapsed(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

void prefetch(const void* data, std::size_t bytes, bool to_device, cudaStream_t stream) {
#if CUDART_VERSION >= 13000
  cudaMemLocation location{};
  location.type = to_device ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
  location.id = 0;
  CHECK(cudaMemPrefetchAsync(data, bytes, location, 0, stream));
#else
  CHECK(cudaMemPrefetchAsync(data, bytes, to_device ? 0 : cudaCpuDeviceId, stream));
#endif
}

// One round's figures: device-event times (ms), the host's read-back (host clock), and what moved.
struct Round {
  float to_device_ms = 0, kernel_ms = 0, to_host_ms = 0;
  double host_read_ms = 0;
  Moved kernel_moved, all_moved;
};

// The host writes the input and reads the last output (both on the host now), then the kernel, then
// the host reads the result: the page traffic of one frame, host to host.
Round one_round(const Frame& frame, unsigned char* in, unsigned char* out, bool prefetched, cudaStream_t stream,
                cudaEvent_t* events, int round) {
  std::memset(in, 17 + round, frame.bytes());
  volatile unsigned char sink = 0;
  for (std::size_t i = 0; i < frame.bytes(); i += 4096) sink = sink + out[i];
  Round r;
  const std::uint64_t t0 = now_ns();
  CHECK(cudaEventRecord(events[0], stream));
  if (prefetched) {
    prefetch(in, frame.bytes(), true, stream);
    prefetch(out, frame.bytes(), true, stream);
  }
  CHECK(cudaEventRecord(events[1], stream));
  CHECK(cudaStreamSynchronize(stream));
  const std::uint64_t t1 = now_ns();
  launch(frame, in, out, stream);
  CHECK(cudaEventRecord(events[2], stream));
  CHECK(cudaStreamSynchronize(stream));
  const std::uint64_t t2 = now_ns();
  if (prefetched) prefetch(out, frame.bytes(), false, stream);
  CHECK(cudaEventRecord(events[3], stream));
  CHECK(cudaStreamSynchronize(stream));
  const auto read_start = std::chrono::steady_clock::now();
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < frame.bytes(); i += 64) sum += out[i];
  r.host_read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - read_start).count();
  sink = sink + static_cast<unsigned char>(sum);
  const std::uint64_t t3 = now_ns();
  r.to_device_ms = elapsed(events[0], events[1]);
  r.kernel_ms = elapsed(events[1], events[2]);
  r.to_host_ms = elapsed(events[2], events[3]);
  cuptiActivityFlushAll(0);
  r.kernel_moved = moved_between(t1, t2);
  r.all_moved = moved_between(t0, t3);
  return r;
}

// The same bytes each way by pinned copies: the host link's floor for one frame.
float pinned_copy_ms(const Frame& frame, cudaStream_t stream, cudaEvent_t* events) {
  void *host = nullptr, *device = nullptr;
  CHECK(cudaMallocHost(&host, frame.bytes()));
  CHECK(cudaMalloc(&device, frame.bytes()));
  std::memset(host, 1, frame.bytes());
  float best = 1e30f;
  for (int round = 0; round < kRounds; ++round) {
    CHECK(cudaEventRecord(events[0], stream));
    CHECK(cudaMemcpyAsync(device, host, frame.bytes(), cudaMemcpyHostToDevice, stream));
    CHECK(cudaMemcpyAsync(host, device, frame.bytes(), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaEventRecord(events[1], stream));
    CHECK(cudaStreamSynchronize(stream));
    best = std::min(best, elapsed(events[0], events[1]));
  }
  CHECK(cudaFree(device));
  CHECK(cudaFreeHost(host));
  return best;
}

double gb_per_s(std::uint64_t bytes, double ms) { return ms > 0 ? static_cast<double>(bytes) / (ms * 1e6) : 0; }

}  // namespace

int main() {
  cuda_probe::program = "managed_fault_probe";
  // Before the first CUDA call: the counters are configured before the context exists.
  const std::string cupti_refusal = start_cupti();
  if (!cupti_refusal.empty())
    std::printf("CUPTI could not start (%s): timings only, no fault or byte counts\n", cupti_refusal.c_str());
  cudaDeviceProp properties{};
  CHECK(cudaGetDeviceProperties(&properties, 0));
  std::printf("device: %s, concurrentManagedAccess=%d, pageableMemoryAccess=%d\n", properties.name,
              properties.concurrentManagedAccess, properties.pageableMemoryAccess);
  if (!properties.concurrentManagedAccess)
    std::printf("no concurrentManagedAccess: prefetch is not allowed and every page moves at launch\n");
  cudaStream_t stream{};
  CHECK(cudaStreamCreate(&stream));
  cudaEvent_t events[4];
  for (cudaEvent_t& event : events) CHECK(cudaEventCreate(&event));

  const Frame frames[] = {{"2048x2048 RGBA8 (u8 x3)", 2048, 2048, true},
                          {"2048x2048 f32", 2048, 2048, false},
                          {"8192x8192 f32", 8192, 8192, false}};
  std::printf("\nBest of %d rounds each (lowest kernel time); each frame moves its bytes in and out once; "
              "GB/s = 10^9 bytes/s.\n\n", kRounds);
  std::printf("| frame | MB each way | mode | to device ms | kernel ms | to host ms | host read ms | GPU fault groups "
              "(faults) | HtoD MB | DtoH MB | migration GB/s | pinned copy in+out ms | pinned GB/s |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const Frame& frame : frames) {
    const float pinned_ms = pinned_copy_ms(frame, stream, events);
    for (const bool prefetched : {false, true}) {
      if (prefetched && !properties.concurrentManagedAccess) continue;
      void *in = nullptr, *out = nullptr;
      CHECK(cudaMallocManaged(&in, frame.bytes()));
      CHECK(cudaMallocManaged(&out, frame.bytes()));
      Round best;
      best.kernel_ms = 1e30f;
      for (int round = 0; round < kRounds; ++round) {
        const Round r = one_round(frame, static_cast<unsigned char*>(in), static_cast<unsigned char*>(out),
                                  prefetched, stream, events, round);
        if (r.kernel_ms < best.kernel_ms) best = r;
      }
      CHECK(cudaFree(in));
      CHECK(cudaFree(out));
      // Migration rate: the bytes the counters saw over the device time that holds them (the kernel
      // without prefetch; the prefetches with it). Without CUPTI: the frame's bytes in and out, the
      // input read and the output (which the host had touched) written.
      const double moving_ms = prefetched ? best.to_device_ms + best.to_host_ms : best.kernel_ms;
      const std::uint64_t bytes = prefetched ? best.all_moved.htod + best.all_moved.dtoh : best.kernel_moved.htod;
      const double mb = static_cast<double>(frame.bytes()) / 1e6;
      if (cupti_refusal.empty())
        std::printf("| %s | %.1f | %s | %.3f | %.3f | %.3f | %.3f | %llu (%llu) | %.1f | %.1f | %.1f | %.3f | %.1f |\n",
                    frame.name, mb, prefetched ? "prefetch" : "no prefetch", best.to_device_ms, best.kernel_ms,
                    best.to_host_ms, best.host_read_ms, static_cast<unsigned long long>(best.kernel_moved.fault_groups),
                    static_cast<unsigned long long>(best.kernel_moved.faults), best.all_moved.htod / 1e6,
                    best.all_moved.dtoh / 1e6, gb_per_s(bytes, moving_ms), pinned_ms, gb_per_s(2 * frame.bytes(), pinned_ms));
      else
        std::printf("| %s | %.1f | %s | %.3f | %.3f | %.3f | %.3f | - | - | - | %.1f (frame bytes) | %.3f | %.1f |\n",
                    frame.name, mb, prefetched ? "prefetch" : "no prefetch", best.to_device_ms, best.kernel_ms,
                    best.to_host_ms, best.host_read_ms,
                    gb_per_s(2 * frame.bytes(), moving_ms), pinned_ms,
                    gb_per_s(2 * frame.bytes(), pinned_ms));
    }
  }
  std::printf("\nno prefetch: HtoD is what the kernel's faults pulled in (input, and output pages the host had "
              "touched); DtoH what the host's read-back faulted home (counted in the round, host clock).\n");
  if (cupti_refusal.empty() && g_dropped > 0)
    std::printf("CUPTI dropped %llu records: the counts above are short\n", static_cast<unsigned long long>(g_dropped));
  for (cudaEvent_t event : events) CHECK(cudaEventDestroy(event));
  CHECK(cudaStreamDestroy(stream));
  cuptiActivityFlushAll(1);
  return 0;
}
