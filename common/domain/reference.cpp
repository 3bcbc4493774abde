// reference.cpp: the CPU reference convolution: double accumulation, every border rule, all cores.
#include "common/domain/reference.h"

#include <algorithm>
#include <vector>

#include "common/geometry/conv_args.h"
#include "common/domain/parallel.h"

namespace cc {

Image reference_convolve(const Image& input, const Problem& problem) {
  const Filter& filter = problem.filter;
  const int width = input.width, height = input.height;
  const int fw = filter.width, fh = filter.height;
  const int rx = filter.radius_x(), ry = filter.radius_y();
  const int border = static_cast<int>(problem.border);

  // Weights as applied, in double. Flipping by index here rather than through
  // problem.correlation_filter keeps the backends' flipped() under test.
  std::vector<double> weights(static_cast<std::size_t>(fw) * fh);
  for (int j = 0; j < fh; ++j)
    for (int i = 0; i < fw; ++i)
      weights[static_cast<std::size_t>(j) * fw + i] = problem.flip ? filter.at(fh - 1 - j, fw - 1 - i) : filter.at(j, i);

  // Source column of padded column p (-1: a zero-border read), so that padded column x + i holds the
  // pixel tap i of output column x reads.
  const int padded_width = width + fw - 1;
  std::vector<int> column_source(padded_width);
  for (int p = 0; p < padded_width; ++p) column_source[p] = cc_border_index(p - rx, width, border);

  Image output(width, height, input.channels, input.eight_bit);
  // One task per output row of every plane. Each pixel sums its taps in the same order (filter row,
  // then filter column) whichever thread computes it.
  parallel_for_rows(input.channels * height, [&](int begin, int end) {
    std::vector<double> sums(width), padded_row(padded_width);
    for (int row = begin; row < end; ++row) {
      const int c = row / height, y = row % height;
      std::fill(sums.begin(), sums.end(), 0.0);
      for (int j = 0; j < fh; ++j) {
        const int source_y = cc_border_index(y + j - ry, height, border);
        if (source_y < 0) continue;  // a whole row of zero-border reads adds nothing
        // The source row widened by the border rule: the tap loop below is then a plain
        // multiply-add over contiguous doubles.
        const float* source_row = input.plane(c) + static_cast<std::size_t>(source_y) * width;
        for (int p = 0; p < padded_width; ++p) padded_row[p] = column_source[p] < 0 ? 0.0 : source_row[column_source[p]];
        for (int i = 0; i < fw; ++i) {
          const double w = weights[static_cast<std::size_t>(j) * fw + i];
          for (int x = 0; x < width; ++x) sums[x] += w * padded_row[x + i];
        }
      }
      float* out = output.plane(c) + static_cast<std::size_t>(y) * width;
      for (int x = 0; x < width; ++x) out[x] = static_cast<float>(sums[x]);
    }
  });
  return output;
}

}  // namespace cc
