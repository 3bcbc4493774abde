/* global.cl: one output pixel per work-item; image and filter both read from __global memory. */
/* (common/geometry/conv_args.h, with ConvArgs and cc_border_index, and common/geometry/pixel.h, with the
   frame's pixel type cc_pixel, cc_load and cc_store, are prepended to every program by the backend.) */

__kernel void convolve_global(__global const cc_pixel* restrict input,
                              __global cc_pixel* restrict output,
                              __global const float* restrict filter,
                              const ConvArgs args)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= args.width || y >= args.height) return;  /* the grid is rounded up to whole work-groups */

    cc_value sum = cc_zero;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        const int sy = cc_border_index(y + fy - args.radius_y, args.height, args.border);
        for (int fx = 0; fx < args.filter_width; ++fx) {
            const int sx = cc_border_index(x + fx - args.radius_x, args.width, args.border);
            const cc_value pixel = (sx < 0 || sy < 0) ? cc_zero : cc_load(input, sy * args.pitch + sx);
            sum += pixel * filter[fy * args.filter_width + fx];
        }
    }
    cc_store(output, y * args.pitch + x, sum);
}
