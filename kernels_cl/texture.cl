/* texture.cl: the image is read through the texture path, an image2d_t and a sampler; the filter is in
   __constant, so this differs from constant.cl only in how pixels are fetched.
   Zero and clamp borders come free from the sampler the host made (CLK_ADDRESS_CLAMP returns 0 outside,
   CLK_ADDRESS_CLAMP_TO_EDGE the edge pixel), with unnormalized integer coordinates. Mirror and wrap are
   folded in code instead: CLK_ADDRESS_REPEAT and CLK_ADDRESS_MIRRORED_REPEAT need normalized
   coordinates, and the hardware's mirror repeats the edge pixel (abcd|dcba) where ours, OpenCV's
   REFLECT_101, does not (abcd|cba). */

__kernel void convolve_texture(__read_only image2d_t input,
                               sampler_t sampler,
                               __global float* restrict output,
                               __constant float* filter,
                               const ConvArgs args)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= args.width || y >= args.height) return;

    const int fold = args.border == CC_BORDER_MIRROR || args.border == CC_BORDER_WRAP;
    float sum = 0.0f;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        int sy = y + fy - args.radius_y;
        if (fold) sy = cc_border_index(sy, args.height, args.border);
        for (int fx = 0; fx < args.filter_width; ++fx) {
            int sx = x + fx - args.radius_x;
            if (fold) sx = cc_border_index(sx, args.width, args.border);
            sum += read_imagef(input, sampler, (int2)(sx, sy)).x * filter[fy * args.filter_width + fx];
        }
    }
    output[y * args.pitch + x] = sum;
}
