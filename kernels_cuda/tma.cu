// tma.cu: tiled's tile + apron in __shared__ memory, brought in by the tensor memory accelerator (TMA, sm_90): one thread asks for the whole 2D tile with cp.async.bulk.tensor and the hardware fills what lies outside the image with zeros.
// The copy is described on the host by a tensor map (CUtensorMap, cuTensorMapEncodeTiled: the image's
// address, size and row pitch, the box of one tile; backends/cuda/tensor_map.cpp), passed as a
// __grid_constant__ parameter, and one thread of the block issues one instruction for the whole tile
// (cp.async.bulk.tensor.2d, UTMALDG in sm_90's SASS). Its completion is counted in bytes on an mbarrier in shared memory, which every
// thread waits on instead of issuing loads of its own (docs/architecture.md, "Adding a variant", on
// tma). OpenCL has no TMA: its nearest path is the async variant's async_work_group_copy
// (kernels_cl/async.cl), so this variant is CUDA's alone (the variant table's apis).
//
// Borders: TMA's out-of-bounds fill writes zeros, which is the zero border exactly, so for it the tile
// is complete when the copy lands. TMA has no clamp, mirror or wrap (its only fills are zero and NaN),
// and the alternatives are more copies and more code: a box per folded region (up to nine per tile, a
// different shape each; not measured against this). So for those borders the copy still brings every
// pixel inside the image, and once it has landed the threads overwrite the apron cells outside the
// image with the pixel the border rule folds them to, read from global memory as tiled reads them.
// Only blocks at the image's edges have such cells; the others skip that loop.
//
// The tile's layout is tiled's but for its rows: a TMA box's rows are whole multiples of 16 bytes in
// shared memory (cuTensorMapEncodeTiled's boxDim[0]), and the box's corner must lie on a 16-byte
// boundary in x (the H100 raised "illegal instruction" at the copy for a box at x = -1), so
// the box starts up to a few pixels before the tile's left edge (tile_lead) and each row is padded to
// kTmaRowBytes (common/geometry/tile_shape.h's tma_tile_lead and tma_tile_pitch, which the plan's
// on-chip bytes count); the tile proper starts `lead` pixels into each box row. What TMA cannot do at all (a
// row pitch that is no multiple of 16 bytes, a tile over 256 pixels a side, a device before 9.0) is a
// reasoned skip before launch (backends/cuda/tensor_map.cpp, DeviceLimits::missing[Capability::TensorMaps]), not a
// second path in here.
#include <cuda.h>  // CUtensorMap

#include <cuda/ptx>

#include "common/geometry/pixel.h"
#include "common/geometry/tile_shape.h"
#include "kernels_cuda/filter_in_constant.cuh"

namespace {

// TMA exists from sm_90. CMAKE_CUDA_ARCHITECTURES may name older targets too: their copy of this
// kernel is empty and never launched, since the backend declines a kernel built below compute_90
// (backends/cuda/tensor_map.cpp) and a device below 9.0 (DeviceLimits::missing[Capability::TensorMaps]).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CC_TMA 1
#else
#define CC_TMA 0
#endif

__global__ void convolve_tma(const cc_pixel* __restrict__ input,
                             cc_pixel* __restrict__ output,
                             const __grid_constant__ CUtensorMap input_map,  // the box is this block's tile
                             const ConvArgs args)
{
#if CC_TMA
    // (blockDim + 2 * radius) pixels per side after each row's lead, rows padded to kTmaRowBytes, then
    // the mbarrier the copy signals (its phase 0 completes with the box's bytes); sized at launch
    // (tile_shape.h's tma_tile_bytes). The kernel declares no static shared memory, so the box starts
    // the block's shared memory (1024-byte aligned) and the barrier follows it, as in the CUDA C++
    // Programming Guide's TMA example; the H100 faulted on the copy with the barrier declared static
    // and the box after it (tools/probes/tma_probe.cu's "static-barrier" step keeps that
    // layout to tell).
    extern __shared__ __align__(128) cc_pixel tile[];

    const int tile_width = blockDim.x + 2 * args.radius_x;
    const int tile_height = blockDim.y + 2 * args.radius_y;
    const int row_pixels = static_cast<int>(cc::kTmaRowBytes / sizeof(cc_pixel));  // one 16-byte step
    const int tile_x0 = blockIdx.x * blockDim.x - args.radius_x;  // image position of the tile's first column
    const int tile_y0 = blockIdx.y * blockDim.y - args.radius_y;
    // The box's corner: tile_x0 rounded down to a 16-byte step, `lead` pixels before it; the pitch holds
    // the most lead any block has (tma_tile_lead: the host's box has this width).
    const int lead = (tile_x0 % row_pixels + row_pixels) % row_pixels;
    const int box_x0 = tile_x0 - lead;
    const int radius_over = args.radius_x % row_pixels;
    const int most_lead = blockDim.x % row_pixels != 0 ? row_pixels - 1
                          : radius_over == 0          ? 0
                                                      : row_pixels - radius_over;
    const int tile_pitch = (most_lead + tile_width + row_pixels - 1) / row_pixels * row_pixels;  // a box row
    const uint32_t box_bytes = static_cast<uint32_t>(tile_pitch * tile_height * sizeof(cc_pixel));
    uint64_t* const tile_landed = reinterpret_cast<uint64_t*>(reinterpret_cast<char*>(tile) + box_bytes);  // 16-byte aligned
    const int lx = threadIdx.x;
    const int ly = threadIdx.y;
    const int thread = ly * blockDim.x + lx;
    const int threads = blockDim.x * blockDim.y;

    // One arrival (the issuing thread's) and the box's bytes complete the barrier's phase. The init is
    // made visible to the copy engine (the async proxy) before any copy may signal it, by the proxy
    // fence the Programming Guide's example uses (fence.proxy.async.shared::cta), and to the other
    // threads by the block barrier.
    if (thread == 0) {
        cuda::ptx::mbarrier_init(tile_landed, 1);
        cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    }
    __syncthreads();

    // One thread asks for the whole tile: the box at (box_x0, tile_y0), negative or past the image
    // where the apron is, the hardware writing zeros there; box_x0 a whole number of 16-byte steps.
    // The bytes expected are the whole box's, the zero-filled cells and the lead included.
    if (thread == 0) {
        cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                             tile_landed, box_bytes);
        const int32_t corner[2] = {box_x0, tile_y0};  // innermost dimension first: x, then y
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, tile, &input_map, corner,
                                        tile_landed);
    }
    // Every thread waits for phase 0 (parity 0); try_wait suspends the thread for a while in hardware
    // rather than spinning on loads.
    while (!cuda::ptx::mbarrier_try_wait_parity(tile_landed, 0)) {
    }

    // Clamp, mirror, wrap: the apron cells outside the image hold TMA's zeros; each becomes the pixel
    // the border rule reads there (the zero border's zeros are already right).
    const bool tile_inside = tile_x0 >= 0 && tile_y0 >= 0 && tile_x0 + tile_width <= args.width &&
                             tile_y0 + tile_height <= args.height;
    if (args.border != CC_BORDER_ZERO && !tile_inside) {
        for (int i = thread; i < tile_width * tile_height; i += threads) {
            const int gx = tile_x0 + i % tile_width;
            const int gy = tile_y0 + i / tile_width;
            if (gx >= 0 && gx < args.width && gy >= 0 && gy < args.height) continue;  // copied by TMA
            const int sx = cc_border_index(gx, args.width, args.border);
            const int sy = cc_border_index(gy, args.height, args.border);
            tile[(i / tile_width) * tile_pitch + lead + i % tile_width] = input[sy * args.pitch + sx];
        }
    }
    __syncthreads();  // the fixed cells, before any thread reads a neighbour's

    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= args.width || y >= args.height) return;  // only after the barrier: every thread fixes cells

    cc_value sum = cc_zero;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        for (int fx = 0; fx < args.filter_width; ++fx) {
            sum += cc_load(tile, (ly + fy) * tile_pitch + lead + lx + fx) * c_filter[fy * args.filter_width + fx];
        }
    }
    cc_store(output, y * args.pitch + x, sum);
#endif
}

}  // namespace

namespace cc::cuda_kernels {

// Launched by the CUDA backend with the plan's grid, block and shared bytes, and the unit's tensor map
// (backends/cuda/cuda_variants.cpp, ArgRole::TensorMap).
extern const OfflineKernel CC_PIXEL_ENTRY(tma_kernel) =
    {"convolve_tma", reinterpret_cast<const void*>(&convolve_tma), &c_filter};

}  // namespace cc::cuda_kernels
