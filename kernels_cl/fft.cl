/* fft.cl: the `fft` variant's own kernels around VkFFT's transforms: pad a plane into the transform
   buffer by the border rule, multiply its spectrum by the filter's, crop the result back out. */

/* Every float of the padded buffer (padded_pitch x padded_height): the image shifted by the radius,
   its apron read through the border rule as the direct kernels read it, zeros beyond (the room that
   keeps the transform's wrap-around from reaching the result) and in the row padding. */
__kernel void fft_pad(__global const float* restrict input,
                      __global float* restrict padded,
                      const ConvArgs args,
                      const int padded_height,
                      const int padded_pitch)
{
    const int u = get_global_id(0);
    const int v = get_global_id(1);
    if (u >= padded_pitch || v >= padded_height) return;

    float value = 0.0f;
    if (u < args.width + 2 * args.radius_x && v < args.height + 2 * args.radius_y) {
        const int sx = cc_border_index(u - args.radius_x, args.width, args.border);
        const int sy = cc_border_index(v - args.radius_y, args.height, args.border);
        if (sx >= 0 && sy >= 0) value = input[sy * args.pitch + sx];
    }
    padded[(size_t)v * padded_pitch + u] = value;
}

/* The plane's spectrum times the filter's (already reversed and scaled), one complex number each. */
__kernel void fft_multiply(__global float2* restrict spectrum,
                           __global const float2* restrict filter_spectrum,
                           const int count)
{
    const int i = get_global_id(0);
    if (i >= count) return;

    const float2 a = spectrum[i];
    const float2 b = filter_spectrum[i];
    spectrum[i] = (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* Output pixel (x, y) is the correlation centred on padded (x + radius_x, y + radius_y). */
__kernel void fft_crop(__global const float* restrict padded,
                       __global float* restrict output,
                       const ConvArgs args,
                       const int padded_pitch)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= args.width || y >= args.height) return;

    output[y * args.pitch + x] = padded[(size_t)(y + args.radius_y) * padded_pitch + x + args.radius_x];
}
