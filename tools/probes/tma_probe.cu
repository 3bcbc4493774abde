// tma_probe.cu: one block of the tma variant's kernel (kernels_cuda/tma.cu, included as it is) and a textbook TMA copy, each in its own process, to tell on a GPU host which step of the tensor-memory-accelerator path fails.
//
// Not a test: a diagnostic for the GPU host (docs/correctness.md, "The tensor memory accelerator's box corner"). A target
// of backends/cuda/backend.cmake when CUDA is on, out of `all`: `cmake --build build-gpu --target
// tma_probe` (tools/gpu_check.sh does) makes build-gpu/tools/probes/tma_probe. Run with no
// argument it runs every step below in a child process of its own, since an illegal instruction loses
// the CUDA context for the rest of a process (the H100 run that reverted tma lost test_cuda's so):
//   textbook  the CUDA C++ Programming Guide's pattern, written out here: a 16x16 float box of a 64x64
//             image into static shared memory, the map a __grid_constant__ parameter (no L2
//             promotion, as the guide's), launched <<<>>>;
//   l2-128    the same with the 128-byte L2 promotion tensor_map.cpp asks for;
//   oob       the same with the box convolve_tma's first block asks for at r = 1: 24x18 pixels at
//             (-4, -1), the tile's left edge (-1) rounded down to a 16-byte boundary, its first row and
//             first four columns outside the image (TMA's zero fill);
//   plane     the oob copy from an image that starts 12240 bytes into its buffer (16-byte aligned, not
//             128), where the second float plane of the faulting run's 68x45 image started;
// Then the steps that tell which rule a box breaks, where oob-unaligned (a box with its corner at
// x = -1) faults with "illegal instruction" on the H100 and textbook does not (docs/correctness.md).
// kernels_cuda/tma.cu takes the corner's x to be the rule; if oob fails, these name the other:
//   oob-unaligned  20x18 at (-1, -1), the box convolve_tma would ask for without the corner rule;
//   x-unaligned    16x16 at (9, 4), inside the image, x not on a 16-byte boundary (36 bytes);
//   x-negative     16x16 at (-4, 4), x negative but on a 16-byte boundary;
//   y-negative     16x16 at (8, -1), y alone outside the image;
//   oob-positive   20x18 at (0, 0), the unaligned box's size inside the image;
//   box16, box32   16x18 and 32x18 at (-1, -1), the unaligned corner with a box a 64- or 128-byte row;
//   global    the textbook copy with the map in global memory, fenced for the tensor-map proxy;
//   static-barrier  the same copy with a static mbarrier (the layout that faults on the H100),
//             the box in dynamic shared memory 128 bytes after it, fence.mbarrier_init alone;
//   kernel    convolve_tma itself, through cudaLaunchKernel with an argument array as
//             backends/cuda/cuda_variants.cpp builds it, one 16x16 block, zero border;
//   clamp     the same with the clamp border (the threads' fix-up of the apron after the copy).
// Each prints: encode ok / launch ok / sync: <cudaGetErrorString> / first pixels vs expected, and
// exits 0 only when every pixel matched. `tma_probe STEP` runs one step in this process, which is what
// compute-sanitizer should be given: compute-sanitizer --tool memcheck build-gpu/tools/probes/tma_probe kernel
// Reading a run: textbook failing puts the fault in the GPU, driver or toolkit, not in tma.cu; l2-128,
// oob or plane failing alone, in what tensor_map.cpp encodes (the promotion; the box's size or its corner
// outside the image; a plane's start); x-unaligned, box16, box32 and oob-unaligned failing with the other
// new steps passing confirms the corner's x alignment; y-negative or x-negative failing, negative
// corners as such (the corner must then be clamped to >= 0 and the border fix-up cover the apron);
// oob-positive failing, the 20-pixel (80-byte) box width; static-barrier failing alone, in the
// shared-memory layout with a static barrier; every copy step passing and kernel failing, in
// convolve_tma's own arguments or launch.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000

#include "kernels_cuda/tma.cu"  // convolve_tma and its c_filter, for float planes (CC_PIXEL_F32)

namespace {

bool report(const char* what, cudaError_t status) {
  std::printf("  %s: %s\n", what, cudaGetErrorString(status));
  return status == cudaSuccess;
}

// As backends/cuda/tensor_map.cpp asks for it: the runtime's entry point, the ABI of CUDA 12.0.
PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t status =
      cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found);
  if (status != cudaSuccess || found != cudaDriverEntryPointSuccess) {
    std::printf("  entry point: %s, query result %d\n", cudaGetErrorString(status), static_cast<int>(found));
    return nullptr;
  }
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
}

// A float image of `width` x `height` at `device`, rows `width` floats apart, box `box_x` x `box_y`:
// the call tensor_map.cpp makes for a float plane.
bool encode(CUtensorMap& map, const float* device, int width, int height, int box_x, int box_y,
            CUtensorMapL2promotion l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_128B) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode_tiled = encoder();
  if (!encode_tiled) return false;
  const cuuint64_t size[2] = {static_cast<cuuint64_t>(width), static_cast<cuuint64_t>(height)};
  const cuuint64_t stride[1] = {static_cast<cuuint64_t>(width) * sizeof(float)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_x), static_cast<cuuint32_t>(box_y)};
  const cuuint32_t step[2] = {1, 1};
  const CUresult result = encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(device), size,
                                       stride, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                       l2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  std::printf("  encode %s (CUresult %d), %dx%d image, %dx%d box, L2 promotion %d, map at host %p; first words",
              result == CUDA_SUCCESS ? "ok" : "FAILED", static_cast<int>(result), width, height, box_x, box_y,
              static_cast<int>(l2), static_cast<void*>(&map));
  for (int i = 0; i < 4; ++i) std::printf(" %016llx", static_cast<unsigned long long>(map.opaque[i]));
  std::printf("\n");
  return result == CUDA_SUCCESS;
}

constexpr int kBox = 16;                      // the guide-style steps' box side
constexpr int kMaxBoxFloats = 32 * 18;        // the largest box a copy step takes: box32's

// The guide's copy of one box: one thread arms the barrier with the box's bytes and issues the copy,
// every thread waits on phase 0, then each writes its share of the box out. `global_map`: the map
// arrives in global memory instead, made visible to the tensor-map proxy first.
template <bool global_map>
__global__ void textbook_copy(const __grid_constant__ CUtensorMap param_map, const CUtensorMap* global_map_at,
                              float* out, int x0, int y0, int box_floats) {
#if CC_TMA
  __shared__ alignas(128) float box[kMaxBoxFloats];
  __shared__ uint64_t landed;
  const CUtensorMap* map = global_map ? global_map_at : &param_map;
  if (threadIdx.x == 0) {
    if constexpr (global_map)
      cuda::ptx::fence_proxy_tensormap_generic(cuda::ptx::sem_acquire, cuda::ptx::scope_gpu, map, cuda::ptx::n32_t<128>{});
    cuda::ptx::mbarrier_init(&landed, 1);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &landed,
                                         static_cast<uint32_t>(box_floats * sizeof(float)));
    const int32_t corner[2] = {x0, y0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, box, map, corner, &landed);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&landed, 0)) {
  }
  for (int i = threadIdx.x; i < box_floats; i += blockDim.x) out[i] = box[i];
#endif
}

// The same copy in the layout that faults on the H100 (kernels_cuda/tma.cu avoids it): the barrier a
// static __shared__ variable, so the box, in dynamic shared memory, starts 128 bytes after it, and the
// init fenced by fence.mbarrier_init alone (which ptxas makes a NOP on sm_90).
__global__ void static_barrier_copy(const __grid_constant__ CUtensorMap map, float* out, int x0, int y0, int box_floats) {
#if CC_TMA
  extern __shared__ __align__(128) float dynamic_box[];
  __shared__ uint64_t landed;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&landed, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &landed,
                                         static_cast<uint32_t>(box_floats * sizeof(float)));
    const int32_t corner[2] = {x0, y0};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dynamic_box, &map, corner,
                                    &landed);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&landed, 0)) {
  }
  for (int i = threadIdx.x; i < box_floats; i += blockDim.x) out[i] = dynamic_box[i];
#endif
}

// Pixel (x, y) of the probe's images: small integers, so every sum below is exact in float.
float pixel(int x, int y) { return static_cast<float>((x + 3 * y) % 17); }

// Compares `got` with `expected` and prints the first pixels of each; true when all match.
bool compare(const std::vector<float>& got, const std::vector<float>& expected) {
  int wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != expected[i];
  std::printf("  first pixels: got");
  for (int i = 0; i < 6; ++i) std::printf(" %g", got[i]);
  std::printf(", expected");
  for (int i = 0; i < 6; ++i) std::printf(" %g", expected[i]);
  std::printf("; %d of %zu differ\n", wrong, got.size());
  return wrong == 0;
}

// Device memory for the probe, freed at scope exit.
struct DeviceFloats {
  explicit DeviceFloats(std::size_t count) : bytes(count * sizeof(float)) {
    if (cudaMalloc(&at, bytes) != cudaSuccess) at = nullptr;
  }
  ~DeviceFloats() { cudaFree(at); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  float* get() const { return static_cast<float*>(at); }
  void* at = nullptr;
  std::size_t bytes;
};

enum class Copy { Textbook, GlobalMap, StaticBarrier };

// One box copied from a 64x64 float image: `copy` says by which kernel, the box's size and corner and the
// map's L2 promotion what it asks of the copy engine. Cells outside the image come back as zeros.
struct BoxCase {
  Copy copy;
  int box_x, box_y, x0, y0;
  CUtensorMapL2promotion l2;
  int offset = 0;  // floats from cudaMalloc's (256-byte aligned) start to the image's first pixel
};

bool copy_box(const BoxCase& box) {
  constexpr int width = 64, height = 64;
  const int box_floats = box.box_x * box.box_y;
  std::vector<float> image(width * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) image[y * width + x] = pixel(x, y);
  DeviceFloats input(box.offset + image.size()), output(box_floats), map_copy(sizeof(CUtensorMap) / sizeof(float));
  if (!input.at || !output.at || !map_copy.at) return report("cudaMalloc", cudaErrorMemoryAllocation);
  float* const first = input.get() + box.offset;
  if (!report("upload", cudaMemcpy(first, image.data(), image.size() * sizeof(float), cudaMemcpyHostToDevice)))
    return false;
  CUtensorMap map{};
  if (!encode(map, first, width, height, box.box_x, box.box_y, box.l2)) return false;
  if (!report("map to global memory", cudaMemcpy(map_copy.at, &map, sizeof map, cudaMemcpyHostToDevice))) return false;
  const auto* map_at = static_cast<const CUtensorMap*>(map_copy.at);
  std::printf("  launch: 1 block of 32 threads, box corner (%d, %d)\n", box.x0, box.y0);
  if (box.copy == Copy::GlobalMap)
    textbook_copy<true><<<1, 32>>>(map, map_at, output.get(), box.x0, box.y0, box_floats);
  else if (box.copy == Copy::Textbook)
    textbook_copy<false><<<1, 32>>>(map, map_at, output.get(), box.x0, box.y0, box_floats);
  else
    static_barrier_copy<<<1, 32, box_floats * sizeof(float)>>>(map, output.get(), box.x0, box.y0, box_floats);
  if (!report("launch", cudaGetLastError())) return false;
  if (!report("sync", cudaDeviceSynchronize())) return false;
  std::vector<float> got(box_floats), expected(box_floats);
  if (!report("download", cudaMemcpy(got.data(), output.get(), output.bytes, cudaMemcpyDeviceToHost))) return false;
  for (int y = 0; y < box.box_y; ++y)
    for (int x = 0; x < box.box_x; ++x) {
      const int gx = box.x0 + x, gy = box.y0 + y;
      expected[y * box.box_x + x] = gx >= 0 && gx < width && gy >= 0 && gy < height ? pixel(gx, gy) : 0.0f;
    }
  return compare(got, expected);
}

// convolve_tma on a 32x32 float plane (rows of 128 bytes), one 16x16 block at the top-left corner, a
// 3x3 filter of unequal weights (a shifted tile cannot pass), the map and arguments as the backend
// passes them: input, output, the map, the arguments (the filter is in constant memory).
bool convolve(int border) {
  constexpr int width = 32, height = 32, radius = 1, block = 16;
  std::vector<float> image(width * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) image[y * width + x] = pixel(x, y);
  const float weights[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  DeviceFloats input(image.size()), output(image.size());
  if (!input.at || !output.at) return report("cudaMalloc", cudaErrorMemoryAllocation);
  if (!report("upload", cudaMemcpy(input.get(), image.data(), input.bytes, cudaMemcpyHostToDevice))) return false;
  if (!report("filter", cudaMemcpyToSymbol(c_filter, weights, sizeof weights))) return false;
  if (!report("clear output", cudaMemset(output.at, 0, output.bytes))) return false;
  const int pitch = static_cast<int>(cc::tma_tile_pitch(radius, block, sizeof(float)));  // the box's row, padded
  const int rows = block + 2 * radius;
  CUtensorMap map{};
  if (!encode(map, input.get(), width, height, pitch, rows)) return false;
  ConvArgs args{width, height, width, 2 * radius + 1, 2 * radius + 1, radius, radius, border};
  const float* in = input.get();
  float* out = output.get();
  void* parameters[] = {&in, &out, &map, &args};
  const std::size_t shared_bytes = cc::tma_tile_bytes(radius, radius, block, block, sizeof(float));
  std::printf("  launch: 1 block of %dx%d, %zu bytes of dynamic shared memory\n", block, block, shared_bytes);
  if (!report("launch", cudaLaunchKernel(reinterpret_cast<const void*>(&convolve_tma), dim3(1, 1), dim3(block, block),
                                         parameters, shared_bytes, nullptr)))
    return false;
  if (!report("sync", cudaDeviceSynchronize())) return false;
  std::vector<float> result(image.size());
  if (!report("download", cudaMemcpy(result.data(), out, output.bytes, cudaMemcpyDeviceToHost))) return false;
  std::vector<float> got, expected;
  for (int y = 0; y < block; ++y)
    for (int x = 0; x < block; ++x) {
      float sum = 0;
      for (int fy = 0; fy < 3; ++fy)
        for (int fx = 0; fx < 3; ++fx) {
          const int sx = cc_border_index(x + fx - radius, width, border);
          const int sy = cc_border_index(y + fy - radius, height, border);
          if (sx >= 0 && sy >= 0) sum += pixel(sx, sy) * weights[fy * 3 + fx];
        }
      expected.push_back(sum);
      got.push_back(result[y * width + x]);
    }
  return compare(got, expected);
}

constexpr const char* kSteps[] = {"textbook",   "l2-128",     "oob",          "plane",  "global", "static-barrier",
                                  "kernel",     "clamp",      "oob-unaligned", "x-unaligned", "x-negative",
                                  "y-negative", "oob-positive", "box16",        "box32"};

bool run_step(const std::string& step) {
  int device = 0, driver = 0, runtime = 0;
  cudaDeviceProp properties{};
  if (!report("device", cudaGetDevice(&device)) || !report("properties", cudaGetDeviceProperties(&properties, device)))
    return false;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::printf("step %s: %s, compute capability %d.%d, driver %d, runtime %d\n", step.c_str(), properties.name,
              properties.major, properties.minor, driver, runtime);
  if (properties.major < 9) {
    std::printf("  skipped: the tensor memory accelerator needs compute capability 9.0 or later\n");
    return true;
  }
  constexpr auto none = CU_TENSOR_MAP_L2_PROMOTION_NONE, l2_128 = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  if (step == "textbook") return copy_box({Copy::Textbook, kBox, kBox, 8, 4, none});
  if (step == "l2-128") return copy_box({Copy::Textbook, kBox, kBox, 8, 4, l2_128});
  if (step == "oob") return copy_box({Copy::Textbook, 24, 18, -4, -1, l2_128});
  if (step == "plane") return copy_box({Copy::Textbook, 24, 18, -4, -1, l2_128, 68 * 45});
  if (step == "oob-unaligned") return copy_box({Copy::Textbook, 20, 18, -1, -1, l2_128});
  if (step == "x-unaligned") return copy_box({Copy::Textbook, kBox, kBox, 9, 4, none});
  if (step == "x-negative") return copy_box({Copy::Textbook, kBox, kBox, -4, 4, none});
  if (step == "y-negative") return copy_box({Copy::Textbook, kBox, kBox, 8, -1, none});
  if (step == "oob-positive") return copy_box({Copy::Textbook, 20, 18, 0, 0, l2_128});
  if (step == "box16") return copy_box({Copy::Textbook, 16, 18, -1, -1, l2_128});
  if (step == "box32") return copy_box({Copy::Textbook, 32, 18, -1, -1, l2_128});
  if (step == "global") return copy_box({Copy::GlobalMap, kBox, kBox, 8, 4, none});
  if (step == "static-barrier") return copy_box({Copy::StaticBarrier, kBox, kBox, 8, 4, none});
  if (step == "kernel") return convolve(CC_BORDER_ZERO);
  if (step == "clamp") return convolve(CC_BORDER_CLAMP);
  std::printf("  no such step\n");
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2) {
    std::fprintf(stderr, "usage: %s [STEP] (steps: see the top of tools/probes/tma_probe.cu)\n", argv[0]);
    return 2;
  }
  if (argc == 2) {
    for (const char* step : kSteps)
      if (std::strcmp(argv[1], step) == 0) return run_step(step) ? 0 : 1;
    std::fprintf(stderr, "tma_probe: unknown step '%s' (the steps: the top of tools/probes/tma_probe.cu)\n", argv[1]);
    return 2;
  }
  // Every step in a process of its own: a lost context ends only its step.
  int failed = 0;
  for (const char* step : kSteps) {
    const std::string command = std::string("'") + argv[0] + "' " + step;
    const int status = std::system(command.c_str());
    std::printf("step %s: %s\n\n", step, status == 0 ? "passed" : "FAILED");
    std::fflush(stdout);
    failed += status != 0;
  }
  return failed == 0 ? 0 : 1;
}
