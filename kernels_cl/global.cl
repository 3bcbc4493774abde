/* global.cl: one output pixel per work-item; image and filter both read from __global memory. */
/* (common/geometry/conv_args.h, with ConvArgs and cc_border_index, is prepended to every program by the backend.) */

__kernel void convolve_global(__global const float* restrict input,
                              __global float* restrict output,
                              __global const float* restrict filter,
                              const ConvArgs args)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= args.width || y >= args.height) return;  /* the grid is rounded up to whole work-groups */

    float sum = 0.0f;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        const int sy = cc_border_index(y + fy - args.radius_y, args.height, args.border);
        for (int fx = 0; fx < args.filter_width; ++fx) {
            const int sx = cc_border_index(x + fx - args.radius_x, args.width, args.border);
            const float pixel = (sx < 0 || sy < 0) ? 0.0f : input[sy * args.pitch + sx];
            sum += pixel * filter[fy * args.filter_width + fx];
        }
    }
    output[y * args.pitch + x] = sum;
}
