// reference.h: the CPU reference convolution every result is checked against (double accumulation).
#pragma once

#include "common/domain/image.h"
#include "common/domain/problem.h"

namespace cc {

// Convolves every plane with problem.filter (flipped here, independently of correlation_filter, when
// problem.flip is set), reading outside pixels by problem.border, accumulating in double. Uses all
// cores; the result is the same whatever the thread count.
Image reference_convolve(const Image& input, const Problem& problem);

}  // namespace cc
