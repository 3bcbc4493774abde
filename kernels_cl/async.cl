/* async.cl: tiled's tile + apron in __local memory, brought in by async_work_group_copy (core OpenCL 1.0): the work-group asks for rows, the implementation moves them.
   The part of the tile the image covers (its rows folded by the border rule) is copied asynchronously,
   one async_work_group_copy per tile row; the apron columns outside the image, and the zero border's
   rows, are filled by the work-items through the border rule while those copies fly
   (docs/memory-spaces.md, "Asynchronous copies"). One tile per work-group, as tiled: the launch is
   tiled's plan. What each vendor's compiler makes of the copy (a DMA engine, cp.async, or a loop of
   loads and stores) is its own business: the measurement says. Every format copies the same way:
   async_work_group_copy takes float, uchar and uchar4 alike. */

__kernel void convolve_async(__global const cc_pixel* restrict input,
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
    const int item = ly * get_local_size(0) + lx;
    const int items = get_local_size(0) * get_local_size(1);

    /* The columns of the tile inside the image: never empty, the group's own outputs lie there. */
    const int copy_x0 = max(tile_x0, 0);
    const int copy_width = min(tile_x0 + tile_width, args.width) - copy_x0;

    /* Each tile row's in-image columns, from the image row the border rule folds it to (a zero border's
       rows above and below the image have none): raw memory, so asynchronous. Every work-item meets
       every copy with the same arguments, as the call requires (they depend on the group only); one
       event carries them all. The middle row is always in the image, so at least one copy is made. */
    event_t copied = 0;
    for (int row = 0; row < tile_height; ++row) {
        const int sy = cc_border_index(tile_y0 + row, args.height, args.border);
        if (sy < 0) continue;
        copied = async_work_group_copy(tile + row * tile_width + copy_x0 - tile_x0,
                                       input + sy * args.pitch + copy_x0, (size_t)copy_width, copied);
    }

    /* Meanwhile every cell the copies do not reach: the apron columns outside the image (clamped,
       mirrored, wrapped or zero) and the zero border's rows, as tiled fills them. */
    for (int i = item; i < tile_width * tile_height; i += items) {
        const int gx = tile_x0 + i % tile_width;
        const int sy = cc_border_index(tile_y0 + i / tile_width, args.height, args.border);
        if (sy >= 0 && gx >= copy_x0 && gx < copy_x0 + copy_width) continue;  /* copied above */
        const int sx = cc_border_index(gx, args.width, args.border);
        tile[i] = (sx < 0 || sy < 0) ? cc_pixel_zero : input[sy * args.pitch + sx];
    }
    wait_group_events(1, &copied);  /* the group's copies have landed ... */
    barrier(CLK_LOCAL_MEM_FENCE);   /* ... and everyone's own stores, before any work-item reads a neighbour's cell */

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
