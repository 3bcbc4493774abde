/* separable.cl: a rank-1 filter (column x row) as two 1D passes, along the rows into a temporary, then
   down its columns: 2r+1 + 2r+1 taps per pixel instead of (2r+1)^2. Borders stay exact: the row pass
   folds x, the column pass folds y, and a zero border zeroes a product whenever either coordinate is
   outside. Both 1D filters are in __constant. */

__kernel void convolve_rows(__global const float* restrict input,
                            __global float* restrict rows_done,
                            __constant float* row_filter,
                            const ConvArgs args)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= args.width || y >= args.height) return;

    float sum = 0.0f;
    for (int fx = 0; fx < args.filter_width; ++fx) {
        const int sx = cc_border_index(x + fx - args.radius_x, args.width, args.border);
        const float pixel = sx < 0 ? 0.0f : input[y * args.pitch + sx];
        sum += pixel * row_filter[fx];
    }
    rows_done[y * args.pitch + x] = sum;
}

__kernel void convolve_columns(__global const float* restrict rows_done,
                               __global float* restrict output,
                               __constant float* column_filter,
                               const ConvArgs args)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= args.width || y >= args.height) return;

    float sum = 0.0f;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        const int sy = cc_border_index(y + fy - args.radius_y, args.height, args.border);
        const float pixel = sy < 0 ? 0.0f : rows_done[sy * args.pitch + x];
        sum += pixel * column_filter[fy];
    }
    output[y * args.pitch + x] = sum;
}
