// fast_kernel_probe.cu: times one build of kernels_cuda/fast.cu (or an edited copy) outside convcompare, for kernel experiments.
//
// Not part of the build or the tests: a diagnostic for the GPU host, where a variant of the kernel is
// compiled in seconds instead of rebuilding convcompare (docs/performance.md, "8-bit", cites its runs).
// The shape and format come as -D, as the backend passes them; KERNEL names the file to time:
//   nvcc -O3 -arch=sm_90 -std=c++17 -I. '-DKERNEL="kernels_cuda/fast.cu"' -DCC_PIXEL=CC_PIXEL_U8 \
//     -DRADIUS_X=1 -DRADIUS_Y=1 -DBLOCK_X=32 -DBLOCK_Y=8 -DOUT_X=4 -DOUT_Y=4 tools/probes/fast_kernel_probe.cu -o probe
//   ./probe [label] [size]
// It prints the median and fastest of 40 launches on a size^2 frame (default 8192) of pseudo-random
// pixels under a box filter and the clamp border, the kernel's registers and local bytes, and a hash of
// the output: two edits of the kernel that print the same hash wrote the same frame. Validation against
// the reference stays convcompare's; this only compares edits. Quads only: the on-chip schemes take
// dynamic shared memory, which this launch does not pass.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#ifndef KERNEL
#define KERNEL "kernels_cuda/fast.cu"
#endif
#include KERNEL

#if OUT_X != 4
#error "fast_kernel_probe.cu times fast's quads (OUT_X == 4) only"
#endif

#define PROBE_CHECK(call)                                                                   \
  do {                                                                                      \
    const cudaError_t probe_status = (call);                                                \
    if (probe_status != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(probe_status));            \
      return 1;                                                                             \
    }                                                                                       \
  } while (0)

int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : KERNEL;
  const int size = argc > 2 ? std::atoi(argv[2]) : 8192;
  if (size < 1 || size > 32768) {
    std::fprintf(stderr, "size must be 1 to 32768\n");
    return 2;
  }
  std::vector<cc_pixel> host(static_cast<size_t>(size) * size);
  unsigned int state = 1;
  for (cc_pixel& pixel : host) {
    state = state * 1664525u + 1013904223u;
#if CC_PIXEL == CC_PIXEL_F32
    pixel = static_cast<float>(state >> 24);
#else
    unsigned char* bytes = reinterpret_cast<unsigned char*>(&pixel);
    for (size_t k = 0; k < sizeof pixel; ++k) bytes[k] = static_cast<unsigned char>(state >> (8 * k));
#endif
  }
  const size_t bytes = host.size() * sizeof(cc_pixel);
  cc_pixel *input = nullptr, *output = nullptr;
  PROBE_CHECK(cudaMalloc(&input, bytes));
  PROBE_CHECK(cudaMalloc(&output, bytes));
  PROBE_CHECK(cudaMemcpy(input, host.data(), bytes, cudaMemcpyHostToDevice));
  const int filter_w = 2 * RADIUS_X + 1, filter_h = 2 * RADIUS_Y + 1;
  const std::vector<float> box(filter_w * filter_h, 1.0f / (filter_w * filter_h));
  PROBE_CHECK(cudaMemcpyToSymbol(c_filter, box.data(), box.size() * sizeof(float)));
  const ConvArgs args{size, size, size, filter_w, filter_h, RADIUS_X, RADIUS_Y, CC_BORDER_CLAMP};
  const dim3 block(BLOCK_X, BLOCK_Y);
  const dim3 grid((size + BLOCK_X * OUT_X - 1) / (BLOCK_X * OUT_X), (size + BLOCK_Y * OUT_Y - 1) / (BLOCK_Y * OUT_Y));

  cudaEvent_t start, stop;
  PROBE_CHECK(cudaEventCreate(&start));
  PROBE_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 5; ++i) convolve_fast<<<grid, block>>>(input, output, args);
  std::vector<float> ms;
  for (int i = 0; i < 40; ++i) {
    PROBE_CHECK(cudaEventRecord(start));
    convolve_fast<<<grid, block>>>(input, output, args);
    PROBE_CHECK(cudaEventRecord(stop));
    PROBE_CHECK(cudaEventSynchronize(stop));
    float span = 0;
    PROBE_CHECK(cudaEventElapsedTime(&span, start, stop));
    ms.push_back(span);
  }
  PROBE_CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());

  std::vector<unsigned char> result(bytes);
  PROBE_CHECK(cudaMemcpy(result.data(), output, bytes, cudaMemcpyDeviceToHost));
  unsigned long long hash = 1469598103934665603ull;  // FNV-1a
  for (unsigned char byte : result) hash = (hash ^ byte) * 1099511628211ull;
  cudaFuncAttributes attributes{};
  PROBE_CHECK(cudaFuncGetAttributes(&attributes, convolve_fast));
  std::printf("%-28s median %.4f ms  fastest %.4f  registers %d  local bytes %zu  hash %016llx\n", label,
              ms[ms.size() / 2], ms.front(), attributes.numRegs, attributes.localSizeBytes, hash);
  cudaFree(input);
  cudaFree(output);
  return 0;
}
