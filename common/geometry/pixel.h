/* pixel.h: how a kernel loads, converts and stores a pixel (f32, u8, RGBA8): one text for C++, CUDA and OpenCL C. */
#ifndef CONVCOMPARE_PIXEL_H
#define CONVCOMPARE_PIXEL_H

/* The device frame's pixel formats (docs/architecture.md, "Adding a pixel type"; FrameLayout in
   backends/device_api.h): float planes, one channel per launch; 8-bit, one channel; 8-bit RGBA, four
   channels interleaved (2 and 3 channels padded to 4). A kernel is compiled for one of them:
   -DCC_PIXEL=CC_PIXEL_U8 among clBuildProgram's options (the plan's defines) or nvcc's (CMakeLists.txt
   compiles each offline kernel file once per format). Without it, f32: the float kernels as they were. */
#define CC_PIXEL_F32 1
#define CC_PIXEL_U8 2
#define CC_PIXEL_U8X4 3
#ifndef CC_PIXEL
#define CC_PIXEL CC_PIXEL_F32
#endif

/* OpenCL programs get conv_args.h prepended (opencl_backend.cpp); everyone else includes it. */
#ifndef __OPENCL_VERSION__
#include "common/geometry/conv_args.h"
#endif

/* What a kernel writes, for each format, in both APIs alike (the CUDA and OpenCL kernels read line by line):
     cc_pixel        the element of the frame in memory: float, uchar, uchar4
     cc_value        what the arithmetic is done in: float, or float4 for RGBA8 (issue #16: 8-bit
                     storage, float arithmetic)
     cc_zero         a cc_value of zeros; cc_pixel_zero, a cc_pixel of zeros (the zero border, tiles)
     cc_load(p, i)   p[i] as a cc_value
     cc_store(p, i, v)  v into p[i]; 8-bit: rounded to nearest, ties to even, and saturated to 0..255,
                     as the CPU backend and the reference's rounding rule do (common/domain/image.cpp's
                     to_8bit; docs/correctness.md, "8-bit results")
     cc_texel(...)   one texel through the texture path as a cc_value; 8-bit images are read as
                     normalized floats (CL_UNORM_INT8 / cudaReadModeNormalizedFloat: the hardware
                     converts), 0..1 for 0..255, so a sum of texels is scaled back by CC_TEXEL_SCALE. */

#if defined(__OPENCL_VERSION__)

/* OpenCL C has the vector types and their conversions built in: every entry is a macro over them,
   which also keeps it free of any address space (__global input, __local tile alike). */
#if CC_PIXEL == CC_PIXEL_F32
typedef float cc_pixel;
typedef float cc_value;
#define cc_zero 0.0f
#define cc_pixel_zero 0.0f
#define cc_to_value(pixel) (pixel)
#define cc_to_pixel(value) (value)
#define cc_texel(image, sampler, coord) read_imagef(image, sampler, coord).x
#define CC_TEXEL_SCALE 1.0f
#elif CC_PIXEL == CC_PIXEL_U8
typedef uchar cc_pixel;
typedef float cc_value;
#define cc_zero 0.0f
#define cc_pixel_zero ((uchar)0)
#define cc_to_value(pixel) convert_float(pixel)
#define cc_to_pixel(value) convert_uchar_sat_rte(value)
#define cc_texel(image, sampler, coord) read_imagef(image, sampler, coord).x
#define CC_TEXEL_SCALE 255.0f
#elif CC_PIXEL == CC_PIXEL_U8X4
typedef uchar4 cc_pixel;
typedef float4 cc_value;
#define cc_zero ((float4)(0.0f))
#define cc_pixel_zero ((uchar4)(0))
#define cc_to_value(pixel) convert_float4(pixel)
#define cc_to_pixel(value) convert_uchar4_sat_rte(value)
#define cc_texel(image, sampler, coord) read_imagef(image, sampler, coord)
#define CC_TEXEL_SCALE 255.0f
#else
#error "CC_PIXEL must be CC_PIXEL_F32, CC_PIXEL_U8 or CC_PIXEL_U8X4"
#endif

#elif defined(__CUDACC__)

/* CUDA has the vector types but no arithmetic on them and no saturating conversions: the few this
   header's users need are here. rintf rounds to nearest, ties to even (one cvt.rni on the device),
   after the clamp, which also sends NaN to 0, as convert_uchar_sat_rte does. */
CC_FN unsigned char cc_saturate_8bit(float value) { return (unsigned char)rintf(fminf(fmaxf(value, 0.0f), 255.0f)); }

#if CC_PIXEL == CC_PIXEL_F32
typedef float cc_pixel;
typedef float cc_value;
#define cc_zero 0.0f
#define cc_pixel_zero 0.0f
CC_FN cc_value cc_to_value(cc_pixel pixel) { return pixel; }
CC_FN cc_pixel cc_to_pixel(cc_value value) { return value; }
#define CC_TEXEL_SCALE 1.0f
#elif CC_PIXEL == CC_PIXEL_U8
typedef unsigned char cc_pixel;
typedef float cc_value;
#define cc_zero 0.0f
#define cc_pixel_zero ((unsigned char)0)
CC_FN cc_value cc_to_value(cc_pixel pixel) { return (float)pixel; }
CC_FN cc_pixel cc_to_pixel(cc_value value) { return cc_saturate_8bit(value); }
#define CC_TEXEL_SCALE 255.0f
#elif CC_PIXEL == CC_PIXEL_U8X4
typedef uchar4 cc_pixel;
typedef float4 cc_value;
#define cc_zero make_float4(0.0f, 0.0f, 0.0f, 0.0f)
#define cc_pixel_zero make_uchar4(0, 0, 0, 0)
CC_FN cc_value cc_to_value(cc_pixel pixel) { return make_float4(pixel.x, pixel.y, pixel.z, pixel.w); }
CC_FN cc_pixel cc_to_pixel(cc_value value) {
  return make_uchar4(cc_saturate_8bit(value.x), cc_saturate_8bit(value.y), cc_saturate_8bit(value.z),
                     cc_saturate_8bit(value.w));
}
#define CC_TEXEL_SCALE 255.0f
/* value * weight and sum += ...: what OpenCL C's float4 does per channel. */
CC_FN float4 operator*(float4 value, float weight) {
  return make_float4(value.x * weight, value.y * weight, value.z * weight, value.w * weight);
}
CC_FN float4& operator+=(float4& sum, float4 value) {
  sum.x += value.x;
  sum.y += value.y;
  sum.z += value.z;
  sum.w += value.w;
  return sum;
}
#else
#error "CC_PIXEL must be CC_PIXEL_F32, CC_PIXEL_U8 or CC_PIXEL_U8X4"
#endif
/* tex2D<float> on a float array, or on uchar1 read as a normalized float; tex2D<float4> on uchar4. */
#define cc_texel(texture, x, y) tex2D<cc_value>(texture, x, y)

#endif /* __OPENCL_VERSION__, __CUDACC__ */

#if defined(__OPENCL_VERSION__) || defined(__CUDACC__)
#define cc_load(pointer, index) cc_to_value((pointer)[index])
#define cc_store(pointer, index, value) ((pointer)[index] = cc_to_pixel(value))
#endif

#endif /* CONVCOMPARE_PIXEL_H */
