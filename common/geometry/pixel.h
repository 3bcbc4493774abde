/* pixel.h: how a kernel loads, converts and stores a pixel (f32, u8, RGBA8): one text for C++, CUDA and OpenCL C. */
#ifndef CONVCOMPARE_PIXEL_H
#define CONVCOMPARE_PIXEL_H

/* The device frame's pixel formats (docs/architecture.md, "Adding a pixel type"; FrameLayout in
   backends/device_api.h): float planes, one channel per launch; 8-bit, one channel; 8-bit RGBA, four
   channels interleaved (2 and 3 channels padded to 4). A kernel is compiled for one of them:
   -DCC_PIXEL=CC_PIXEL_U8 among clBuildProgram's options (the plan's defines) or nvcc's (backends/cuda/backend.cmake
   compiles each offline kernel file once per format). Without it, f32: the float kernels as they were. */
#define CC_PIXEL_F32 1
#define CC_PIXEL_U8 2
#define CC_PIXEL_U8X4 3
#ifndef CC_PIXEL
#define CC_PIXEL CC_PIXEL_F32
#endif

/* OpenCL programs get conv_args.h prepended (opencl_backend.cpp); everyone else includes it.
   __OPENCL_C_VERSION__ too, as conv_args.h's CC_FN: a compiler run outside a runtime (clang -x cl)
   defines only that one. */
#if !defined(__OPENCL_VERSION__) && !defined(__OPENCL_C_VERSION__)
#include "common/geometry/conv_args.h"
#endif

/* What a kernel writes, for each format, in both APIs alike (the CUDA and OpenCL kernels read line by line):
     cc_pixel        the element of the frame in memory: float, uchar, uchar4
     cc_value        what the arithmetic is done in: float, or float4 for RGBA8 (8-bit storage,
                     float arithmetic)
     cc_zero         a cc_value of zeros; cc_pixel_zero, a cc_pixel of zeros (the zero border, tiles)
     cc_load(p, i)   p[i] as a cc_value
     cc_store(p, i, v)  v into p[i]; 8-bit: rounded to nearest, ties to even, and saturated to 0..255,
                     as the CPU backend and the reference's rounding rule do (common/domain/image.cpp's
                     to_8bit; docs/correctness.md, "8-bit results")
     cc_texel(...)   one texel through the texture path as a cc_value; 8-bit images are read as
                     normalized floats (CL_UNORM_INT8 / cudaReadModeNormalizedFloat: the hardware
                     converts), 0..1 for 0..255, so a sum of texels is scaled back by CC_TEXEL_SCALE.
   Per channel, for the kernels that stage one channel at a time as float on chip (fast's rows and
   columns, separable: their inner loops stay the f32 ones, docs/architecture.md, "Adding a pixel type"):
     cc_channel      one channel of a pixel in memory: float, or uchar (1 and 4 channels alike)
     CC_CHANNELS     channels interleaved per pixel: 1, 1, 4; channel c of pixel i is element
                     i * CC_CHANNELS + c of the frame read as cc_channel
     cc_load_channel(p, i), cc_store_channel(p, i, v)  as cc_load and cc_store, for one float
   Quads, for fast's small radii (four neighbouring pixels in one load and one store: 16 bytes of f32 or
   RGBA8, 4 bytes of 8-bit):
     cc_quad         float4, uchar4, or four RGBA8 pixels (OpenCL uchar16, CUDA uint4)
     cc_quad_values(quad, values)   the four pixels as cc_values, into values[0..3]
     cc_quad_of(a, b, c, d)         four cc_values stored as a quad (8-bit: rounded and saturated) */

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)

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
typedef float cc_channel;
#define CC_CHANNELS 1
#define cc_channel_value(channel) (channel)
#define cc_value_channel(value) (value)
typedef float4 cc_quad;
#define cc_quad_values(quad, values) ((values)[0] = (quad).x, (values)[1] = (quad).y, (values)[2] = (quad).z, \
                                      (values)[3] = (quad).w)
#define cc_quad_of(a, b, c, d) ((float4)(a, b, c, d))
#elif CC_PIXEL == CC_PIXEL_U8
typedef uchar cc_pixel;
typedef float cc_value;
#define cc_zero 0.0f
#define cc_pixel_zero ((uchar)0)
#define cc_to_value(pixel) convert_float(pixel)
#define cc_to_pixel(value) convert_uchar_sat_rte(value)
#define cc_texel(image, sampler, coord) read_imagef(image, sampler, coord).x
#define CC_TEXEL_SCALE 255.0f
typedef uchar cc_channel;
#define CC_CHANNELS 1
#define cc_channel_value(channel) convert_float(channel)
#define cc_value_channel(value) convert_uchar_sat_rte(value)
typedef uchar4 cc_quad;
#define cc_quad_values(quad, values) ((values)[0] = convert_float((quad).x), (values)[1] = convert_float((quad).y), \
                                      (values)[2] = convert_float((quad).z), (values)[3] = convert_float((quad).w))
#define cc_quad_of(a, b, c, d) convert_uchar4_sat_rte((float4)(a, b, c, d))
#elif CC_PIXEL == CC_PIXEL_U8X4
typedef uchar4 cc_pixel;
typedef float4 cc_value;
#define cc_zero ((float4)(0.0f))
#define cc_pixel_zero ((uchar4)(0))
#define cc_to_value(pixel) convert_float4(pixel)
#define cc_to_pixel(value) convert_uchar4_sat_rte(value)
#define cc_texel(image, sampler, coord) read_imagef(image, sampler, coord)
#define CC_TEXEL_SCALE 255.0f
typedef uchar cc_channel;
#define CC_CHANNELS 4
#define cc_channel_value(channel) convert_float(channel)
#define cc_value_channel(value) convert_uchar_sat_rte(value)
typedef uchar16 cc_quad;
#define cc_quad_values(quad, values) ((values)[0] = convert_float4((quad).s0123), \
                                      (values)[1] = convert_float4((quad).s4567), \
                                      (values)[2] = convert_float4((quad).s89ab), \
                                      (values)[3] = convert_float4((quad).scdef))
#define cc_quad_of(a, b, c, d) ((uchar16)(convert_uchar4_sat_rte(a), convert_uchar4_sat_rte(b), \
                                          convert_uchar4_sat_rte(c), convert_uchar4_sat_rte(d)))
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
typedef float cc_channel;
#define CC_CHANNELS 1
CC_FN float cc_channel_value(cc_channel channel) { return channel; }
CC_FN cc_channel cc_value_channel(float value) { return value; }
typedef float4 cc_quad;
CC_FN void cc_quad_values(cc_quad quad, cc_value* values) {
  values[0] = quad.x;
  values[1] = quad.y;
  values[2] = quad.z;
  values[3] = quad.w;
}
CC_FN cc_quad cc_quad_of(cc_value a, cc_value b, cc_value c, cc_value d) { return make_float4(a, b, c, d); }
#elif CC_PIXEL == CC_PIXEL_U8
typedef unsigned char cc_pixel;
typedef float cc_value;
#define cc_zero 0.0f
#define cc_pixel_zero ((unsigned char)0)
CC_FN cc_value cc_to_value(cc_pixel pixel) { return (float)pixel; }
CC_FN cc_pixel cc_to_pixel(cc_value value) { return cc_saturate_8bit(value); }
#define CC_TEXEL_SCALE 255.0f
typedef unsigned char cc_channel;
#define CC_CHANNELS 1
CC_FN float cc_channel_value(cc_channel channel) { return (float)channel; }
CC_FN cc_channel cc_value_channel(float value) { return cc_saturate_8bit(value); }
typedef uchar4 cc_quad;
CC_FN void cc_quad_values(cc_quad quad, cc_value* values) {
  values[0] = (float)quad.x;
  values[1] = (float)quad.y;
  values[2] = (float)quad.z;
  values[3] = (float)quad.w;
}
CC_FN cc_quad cc_quad_of(cc_value a, cc_value b, cc_value c, cc_value d) {
  return make_uchar4(cc_saturate_8bit(a), cc_saturate_8bit(b), cc_saturate_8bit(c), cc_saturate_8bit(d));
}
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
typedef unsigned char cc_channel;
#define CC_CHANNELS 4
CC_FN float cc_channel_value(cc_channel channel) { return (float)channel; }
CC_FN cc_channel cc_value_channel(float value) { return cc_saturate_8bit(value); }
/* Four RGBA8 pixels as one 16-byte word each way: CUDA has no uchar16; byte k of a word is channel k
   (little-endian, as uchar4's x, y, z, w lie in memory). */
typedef uint4 cc_quad;
CC_FN float4 cc_unpack_rgba8(unsigned int word) {
  return make_float4((float)(word & 0xffu), (float)((word >> 8) & 0xffu), (float)((word >> 16) & 0xffu),
                     (float)(word >> 24));
}
CC_FN unsigned int cc_pack_rgba8(float4 value) {
  const uchar4 pixel = cc_to_pixel(value);
  return (unsigned int)pixel.x | ((unsigned int)pixel.y << 8) | ((unsigned int)pixel.z << 16) |
         ((unsigned int)pixel.w << 24);
}
CC_FN void cc_quad_values(cc_quad quad, cc_value* values) {
  values[0] = cc_unpack_rgba8(quad.x);
  values[1] = cc_unpack_rgba8(quad.y);
  values[2] = cc_unpack_rgba8(quad.z);
  values[3] = cc_unpack_rgba8(quad.w);
}
CC_FN cc_quad cc_quad_of(cc_value a, cc_value b, cc_value c, cc_value d) {
  return make_uint4(cc_pack_rgba8(a), cc_pack_rgba8(b), cc_pack_rgba8(c), cc_pack_rgba8(d));
}
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

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__) || defined(__CUDACC__)
#define cc_load(pointer, index) cc_to_value((pointer)[index])
#define cc_store(pointer, index, value) ((pointer)[index] = cc_to_pixel(value))
#define cc_load_channel(pointer, index) cc_channel_value((pointer)[index])
#define cc_store_channel(pointer, index, value) ((pointer)[index] = cc_value_channel(value))
#endif

#endif /* CONVCOMPARE_PIXEL_H */
