// fast_shape.h: the compile-time shape of the `fast` variant, chosen per radius, the same in both APIs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace cc {

// Work-group / block of BLOCK_X x BLOCK_Y threads, each computing OUT_Y outputs down a column, so a
// block covers BLOCK_X x (BLOCK_Y * OUT_Y) outputs and stages that plus its apron on chip.
struct FastShape {
  int block_x = 32;  // a warp wide: the tile reads of a warp are consecutive words, no bank conflicts
  int block_y = 8;
  int out_y = 8;  // outputs per thread: each pixel read from the tile serves up to out_y of them
};

// Beyond this radius the fully unrolled kernel grows too large to compile in reasonable time; the
// variant is skipped there (the separable and FFT variants are the tools for such filters).
inline constexpr int kFastMaxRadius = 32;

// Why the fast variant cannot take this radius, or "" when it can: the same words in both backends.
inline std::string fast_radius_limit_reason(int radius_x, int radius_y) {
  if (radius_x <= kFastMaxRadius && radius_y <= kFastMaxRadius) return "";
  return fmt::format("radius {}x{} is over the fast variant's compile-time limit of {}", radius_x, radius_y,
                     kFastMaxRadius);
}

inline FastShape fast_shape(int /*radius_x*/, int radius_y) {
  FastShape shape;
  if (radius_y > 16) shape.out_y = 4;  // keep the unrolled body and the tile height in bounds
  return shape;
}

inline std::size_t fast_tile_bytes(const FastShape& shape, int radius_x, int radius_y) {
  return static_cast<std::size_t>(shape.block_x + 2 * radius_x) * (shape.block_y * shape.out_y + 2 * radius_y) *
         sizeof(float);
}

// The -D options both compilers get (clBuildProgram and NVRTC).
inline std::vector<std::string> fast_defines(const FastShape& shape, int radius_x, int radius_y) {
  return {fmt::format("-DRADIUS_X={}", radius_x), fmt::format("-DRADIUS_Y={}", radius_y),
          fmt::format("-DBLOCK_X={}", shape.block_x), fmt::format("-DBLOCK_Y={}", shape.block_y),
          fmt::format("-DOUT_Y={}", shape.out_y)};
}

}  // namespace cc
