/* conv_args.h: the kernel-argument struct and the border rule, one text read by C++, CUDA and OpenCL C. */
#ifndef CONVCOMPARE_CONV_ARGS_H
#define CONVCOMPARE_CONV_ARGS_H

/* CC_FN marks a function every compiler of this header may call: host C++, CUDA device code, OpenCL C.
   In OpenCL C it is also the form of every helper in kernels_cl/: a full (external) definition, forced
   inline. OpenCL C follows C99, where a plain `inline` definition emits no body: ROCm's clang then leaves
   a call the linker cannot resolve. `static` (with or without `inline`) gives wrong pixels on PoCL 3.1
   once unrolled loops meet it, and Oclgrind 21.10 cannot run the noalias markers inlining a `restrict`
   parameter leaves, so helpers take no `restrict` (the kernels' own parameters keep it, and the inlined
   code derives from them). docs/portability.md has each case and the command that shows it.
   __OPENCL_C_VERSION__ too: a compiler run outside a runtime (clang -x cl, as the CI's vendor check
   does) defines only that one. */
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define CC_FN __attribute__((always_inline))
#elif defined(__CUDACC__)
#define CC_FN __host__ __device__ __forceinline__
#else
#define CC_FN inline
#endif

/* Border modes, numbered the same in every language so one int crosses every API boundary. */
#define CC_BORDER_ZERO 0   /* pixels outside the image read as 0 (the seeds' ghost cells) */
#define CC_BORDER_CLAMP 1  /* replicate the edge pixel: aaa|abcd|ddd */
#define CC_BORDER_MIRROR 2 /* reflect without repeating the edge (OpenCV REFLECT_101): cb|abcd|cb */
#define CC_BORDER_WRAP 3   /* periodic: cd|abcd|ab */

/* Everything a convolution kernel needs to know about one image plane and the filter.
   Plain ints only, so the layout is identical in C++, CUDA and OpenCL C (passed by value). */
typedef struct ConvArgs {
  int width;         /* image width in pixels */
  int height;        /* image height in pixels */
  int pitch;         /* floats from one row to the next, >= width */
  int filter_width;  /* odd: 2 * radius_x + 1 */
  int filter_height; /* odd: 2 * radius_y + 1 */
  int radius_x;
  int radius_y;
  int border; /* CC_BORDER_* */
} ConvArgs;

/* Maps coordinate i (any int, possibly far outside [0, n)) to the index it reads under the border
   rule, or -1 when the read is a zero (zero border). Radii larger than the image are legal, so mirror
   and wrap fold by their period instead of reflecting once. */
CC_FN int cc_border_index(int i, int n, int border) {
  if (i >= 0 && i < n) return i;
  if (border == CC_BORDER_ZERO) return -1;
  if (border == CC_BORDER_CLAMP) return i < 0 ? 0 : n - 1;
  if (border == CC_BORDER_WRAP) {
    int m = i % n;
    return m < 0 ? m + n : m;
  }
  /* mirror (REFLECT_101): period 2n-2; a 1-pixel line has only itself to reflect */
  if (n == 1) return 0;
  {
    int period = 2 * n - 2;
    int m = i % period;
    if (m < 0) m += period;
    return m < n ? m : period - m;
  }
}

#endif /* CONVCOMPARE_CONV_ARGS_H */
