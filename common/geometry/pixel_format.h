// pixel_format.h: a problem's device pixel format (common/geometry/pixel.h) and the -D that builds kernels for it.
#pragma once

#include <string>

#include "common/domain/problem.h"
#include "common/geometry/pixel.h"

namespace cc {

static_assert(static_cast<int>(KernelFormat::F32) == CC_PIXEL_F32 && static_cast<int>(KernelFormat::U8) == CC_PIXEL_U8 &&
              static_cast<int>(KernelFormat::U8x4) == CC_PIXEL_U8X4);

// CC_PIXEL_F32, CC_PIXEL_U8 or CC_PIXEL_U8X4: how a kernel reads and writes one unit of this
// problem's frame (Problem::format, backends/device_api.h's FrameLayout).
inline int pixel_format(const Problem& problem) { return static_cast<int>(problem.format.kernel); }

// The -D option that builds a run-time compiled program for a format, or "" for f32, the header's
// default, so float programs are built exactly as before.
inline std::string pixel_format_define(int format) {
  switch (format) {
    case CC_PIXEL_U8: return "-DCC_PIXEL=CC_PIXEL_U8";
    case CC_PIXEL_U8X4: return "-DCC_PIXEL=CC_PIXEL_U8X4";
    default: return "";
  }
}
inline std::string pixel_define(const Problem& problem) { return pixel_format_define(pixel_format(problem)); }

// The floats a kernel holds for one pixel of the format (its cc_value): a float4 for RGBA8, else one;
// for a format alone (tools/cl_configurations.cpp lists them without a problem), else DeviceFormat::values.
inline int pixel_format_values(int format) { return format == CC_PIXEL_U8X4 ? 4 : 1; }

}  // namespace cc
