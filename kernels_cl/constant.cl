/* constant.cl: as global.cl, but the filter is a __constant kernel argument: every work-item of a
   wavefront reads the same coefficient at once, which the constant cache broadcasts. */

__kernel void convolve_constant(__global const cc_pixel* restrict input,
                                __global cc_pixel* restrict output,
                                __constant float* filter,
                                const ConvArgs args)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= args.width || y >= args.height) return;

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
