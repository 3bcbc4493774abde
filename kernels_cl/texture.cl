/* texture.cl: the image is read through the texture path, an image2d_t and a sampler; the filter is in
   __constant, so this differs from constant.cl only in how pixels are fetched.
   Zero and clamp borders come free from the sampler the host made (CLK_ADDRESS_CLAMP returns 0 outside,
   CLK_ADDRESS_CLAMP_TO_EDGE the edge pixel), with unnormalized integer coordinates. Mirror and wrap are
   folded in code instead: CLK_ADDRESS_REPEAT and CLK_ADDRESS_MIRRORED_REPEAT need normalized
   coordinates, and the hardware's mirror repeats the edge pixel (abcd|dcba) where ours, OpenCV's
   REFLECT_101, does not (abcd|cba).
   8-bit images (CL_R or CL_RGBA of CL_UNORM_INT8) are read as normalized floats, 0..1 for 0..255: the
   hardware converts. The sum is scaled back by 255 once, after the loop (CC_TEXEL_SCALE, 1 for float
   images): one multiply per output rather than one per tap, and the filter stays the one every variant
   uploads. CLK_ADDRESS_CLAMP's border colour reads 0 in every channel used (CL_R's .x, CL_RGBA's four). */

__kernel void convolve_texture(__read_only image2d_t input,
                               sampler_t sampler,
                               __global cc_pixel* restrict output,
                               __constant float* filter,
                               const ConvArgs args)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= args.width || y >= args.height) return;

    const int fold = args.border == CC_BORDER_MIRROR || args.border == CC_BORDER_WRAP;
    cc_value sum = cc_zero;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        int sy = y + fy - args.radius_y;
        if (fold) sy = cc_border_index(sy, args.height, args.border);
        for (int fx = 0; fx < args.filter_width; ++fx) {
            int sx = x + fx - args.radius_x;
            if (fold) sx = cc_border_index(sx, args.width, args.border);
            sum += cc_texel(input, sampler, (int2)(sx, sy)) * filter[fy * args.filter_width + fx];
        }
    }
    cc_store(output, y * args.pitch + x, sum * CC_TEXEL_SCALE);
}
