// cluster.cu: tiled's tile in __shared__ memory, but each block loads only its own pixels: the apron comes from the neighbouring blocks' shared memory in its thread-block cluster (distributed shared memory, sm_90), and from global memory only where no block of the cluster holds it.
// A cluster (here 4x2 blocks, common/geometry/tile_shape.h's kClusterGroups) is scheduled at once on
// one GPC, and each of its blocks may read the others' shared memory through the SM-to-SM network
// (cluster.map_shared_rank). So every input pixel of the cluster's rectangle is read from global memory
// once, by the block that owns it, instead of once by it and again by each neighbour whose apron covers
// it (docs/memory-spaces.md, "Thread-block clusters"). OpenCL has no clusters and no way to read another
// work-group's __local memory: this variant is CUDA's alone (the variant table's apis).
//
// The tile is tiled's, (blockDim + 2 * radius) per side, and so is its layout in every block: a block's
// own pixels sit at the same offset in each block's tile, which is what lets a neighbour find them.
// What a tile cell holds is the pixel the border rule puts at that image position (the "extended image":
// folded, or zero), whether the position lies inside the image or not; so the blocks the launch adds past
// the right and bottom edges to make whole clusters (backends/launch_plan.cpp) hold the border's pixels
// there, and a neighbour's apron read from them is right for every border.
#include <cooperative_groups.h>

#include "common/geometry/pixel.h"
#include "kernels_cuda/filter_in_constant.cuh"

namespace {

namespace cg = cooperative_groups;

// Clusters exist from sm_90. CMAKE_CUDA_ARCHITECTURES may name older targets too: their copy of this
// kernel is empty and never launched, since the backend declines a kernel built below compute_90
// (backends/cuda/cuda_variants.cpp) and a device below 9.0 (DeviceLimits::missing[Capability::Clusters]).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CC_CLUSTERS 1
#else
#define CC_CLUSTERS 0
#endif

#if CC_CLUSTERS
// The pixel at image position (x, y) of the extended image: the border rule's fold, or zero.
__device__ __forceinline__ cc_pixel extended_pixel(const cc_pixel* __restrict__ input, int x, int y,
                                                   const ConvArgs& args)
{
    const int sx = cc_border_index(x, args.width, args.border);
    const int sy = cc_border_index(y, args.height, args.border);
    return (sx < 0 || sy < 0) ? cc_pixel_zero : input[sy * args.pitch + sx];
}
#endif

__global__ void convolve_cluster(const cc_pixel* __restrict__ input,
                                 cc_pixel* __restrict__ output,
                                 const ConvArgs args)
{
#if CC_CLUSTERS
    extern __shared__ cc_pixel tile[];  // (blockDim + 2 * radius) pixels per side, as stored; sized at launch
    const cg::cluster_group cluster = cg::this_cluster();

    const int block_width = blockDim.x;
    const int block_height = blockDim.y;
    const int tile_width = block_width + 2 * args.radius_x;
    const int tile_height = block_height + 2 * args.radius_y;
    const int block_x0 = blockIdx.x * block_width;  // image position of the block's first output
    const int block_y0 = blockIdx.y * block_height;
    const int tile_x0 = block_x0 - args.radius_x;   // image position of tile[0]
    const int tile_y0 = block_y0 - args.radius_y;
    const int own = args.radius_y * tile_width + args.radius_x;  // where a block's own pixels start in its tile
    const int lx = threadIdx.x;
    const int ly = threadIdx.y;

    // 1. Each thread stages the one pixel at its output position, inside the image or not.
    tile[own + ly * tile_width + lx] = extended_pixel(input, block_x0 + lx, block_y0 + ly, args);

    // Every block of the cluster has staged its pixels (barrier.cluster: arrive with release, wait with
    // acquire, so their shared-memory writes are visible to every thread of the cluster) ...
    cluster.sync();

    // 2. ... so each apron cell comes from the block of the cluster that holds it, or from global memory
    // when it lies outside the cluster's rectangle (the cluster's outer edges, and radii wider than a
    // block reach beyond it). Blocks are numbered in the cluster x first (block_rank = x + y * width, as
    // cluster.block_index() and %cluster_ctarank count them).
    const int cluster_columns = cluster.dim_blocks().x;  // blocks across the cluster
    const int cluster_rows = cluster.dim_blocks().y;
    const int cluster_x0 = block_x0 - static_cast<int>(cluster.block_index().x) * block_width;  // its first output
    const int cluster_y0 = block_y0 - static_cast<int>(cluster.block_index().y) * block_height;
    const int cluster_width = cluster_columns * block_width;
    const int cluster_height = cluster_rows * block_height;
    for (int i = ly * block_width + lx; i < tile_width * tile_height; i += block_width * block_height) {
        const int tx = i % tile_width;
        const int ty = i / tile_width;
        if (tx >= args.radius_x && tx < args.radius_x + block_width &&
            ty >= args.radius_y && ty < args.radius_y + block_height)
            continue;  // the block's own pixel, staged in step 1
        const int cx = tile_x0 + tx - cluster_x0;  // the cell's position in the cluster's rectangle
        const int cy = tile_y0 + ty - cluster_y0;
        if (cx >= 0 && cx < cluster_width && cy >= 0 && cy < cluster_height) {
            const int holder_x = cx / block_width;  // which block of the cluster holds it ...
            const int holder_y = cy / block_height;
            const cc_pixel* holder_tile = cluster.map_shared_rank(tile, holder_y * cluster_columns + holder_x);
            // ... at the same place in its tile as the cell would be in its own
            tile[i] = holder_tile[own + (cy - holder_y * block_height) * tile_width + cx - holder_x * block_width];
        } else {
            tile[i] = extended_pixel(input, tile_x0 + tx, tile_y0 + ty, args);
        }
    }

    // No block may leave, and so release its shared memory, while a neighbour still reads it; this
    // barrier is also the block's own before it convolves from the tile.
    cluster.sync();

    const int x = block_x0 + lx;
    const int y = block_y0 + ly;
    if (x >= args.width || y >= args.height) return;  // only after the barriers: every thread stages

    cc_value sum = cc_zero;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        for (int fx = 0; fx < args.filter_width; ++fx) {
            sum += cc_load(tile, (ly + fy) * tile_width + lx + fx) * c_filter[fy * args.filter_width + fx];
        }
    }
    cc_store(output, y * args.pitch + x, sum);
#endif
}

}  // namespace

namespace cc::cuda_kernels {

// Launched by the CUDA backend with the plan's grid, block, shared bytes and cluster shape
// (cudaLaunchKernelExC with cudaLaunchAttributeClusterDimension: backends/cuda/cuda_variants.cpp).
extern const OfflineKernel CC_PIXEL_ENTRY(cluster_kernel) =
    {"convolve_cluster", reinterpret_cast<const void*>(&convolve_cluster), &c_filter};

}  // namespace cc::cuda_kernels
