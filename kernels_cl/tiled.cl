/* tiled.cl: each work-group copies its output tile plus the apron around it into __local memory, then
   every work-item convolves from there: each input pixel is read from global memory about once per
   work-group instead of once per tap. The filter is in __constant. The tile holds the pixels as stored
   (cc_pixel: an 8-bit tile takes a quarter of the bytes of float channels) and converts as it reads them. */

__kernel void convolve_tiled(__global const cc_pixel* restrict input,
                             __global cc_pixel* restrict output,
                             __constant float* filter,
                             const ConvArgs args,
                             __local cc_pixel* tile)  /* (local_size + 2 * radius) pixels per side, as stored */
{
    const int tile_width = get_local_size(0) + 2 * args.radius_x;
    const int tile_height = get_local_size(1) + 2 * args.radius_y;
    const int tile_x0 = get_group_id(0) * get_local_size(0) - args.radius_x;  /* image position of tile[0] */
    const int tile_y0 = get_group_id(1) * get_local_size(1) - args.radius_y;
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);

    /* The work-items walk the whole tile, apron corners included, as many rounds as it takes: with a
       large radius each loads several pixels. Loading only tile-sized blocks per side is how the
       lower-right apron corner goes missing. */
    for (int i = ly * get_local_size(0) + lx; i < tile_width * tile_height;
         i += get_local_size(0) * get_local_size(1)) {
        const int sx = cc_border_index(tile_x0 + i % tile_width, args.width, args.border);
        const int sy = cc_border_index(tile_y0 + i / tile_width, args.height, args.border);
        tile[i] = (sx < 0 || sy < 0) ? cc_pixel_zero : input[sy * args.pitch + sx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= args.width || y >= args.height) return;  /* only after the barrier: every work-item loads */

    cc_value sum = cc_zero;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        for (int fx = 0; fx < args.filter_width; ++fx) {
            sum += cc_load(tile, (ly + fy) * tile_width + lx + fx) * filter[fy * args.filter_width + fx];
        }
    }
    cc_store(output, y * args.pitch + x, sum);
}
