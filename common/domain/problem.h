// problem.h: one convolution problem: image shape, filter as applied, border mode, flip.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/geometry/conv_args.h"
#include "common/domain/filter.h"
#include "common/domain/image.h"

namespace cc {

enum class Border { Zero = CC_BORDER_ZERO, Clamp = CC_BORDER_CLAMP, Mirror = CC_BORDER_MIRROR, Wrap = CC_BORDER_WRAP };

std::string_view to_string(Border border);
Border parse_border(std::string_view name);  // throws InputError on an unknown name

struct Problem {
  int width = 0;
  int height = 0;
  int channels = 0;
  Filter filter;  // as the user gave it
  Border border = Border::Zero;
  bool flip = false;  // true convolution instead of correlation

  // The filter every backend correlates with: `filter`, or flipped(filter) when flip is set. Backends
  // never flip themselves; the CPU reference applies `flip` on its own, so --flip is still checked.
  Filter correlation_filter;

  int radius_x() const { return filter.radius_x(); }
  int radius_y() const { return filter.radius_y(); }

  // The kernel arguments for one plane of this problem, rows packed (pitch = width).
  ConvArgs conv_args() const;
};

Problem make_problem(const Image& image, const Filter& filter, Border border, bool flip);

}  // namespace cc
