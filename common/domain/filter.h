// filter.h: filters: the built-in bank, the --filter spec parser, the filter-file format, separability.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cc {

// A 2D filter of odd width and height, anchored at its centre, weights row by row.
struct Filter {
  std::string spec;  // as the user wrote it ("gaussian:sigma=3.2"), used as the filter's name in reports
  int width = 0;
  int height = 0;
  std::vector<float> weights;  // width * height, row-major

  int radius_x() const { return (width - 1) / 2; }
  int radius_y() const { return (height - 1) / 2; }
  int taps() const { return width * height; }
  float at(int row, int col) const { return weights[static_cast<std::size_t>(row) * width + col]; }
  double abs_sum() const;              // sum of |w|
  bool integer_weights() const;        // every weight an exact integer
};

// Largest filter side accepted from a spec or file: well over any GPU's constant memory, small
// enough that a typo cannot ask for gigabytes.
inline constexpr int kMaxFilterSide = 1025;

// Parses one --filter spec: box:r=3, gaussian:sigma=3.2[,r=N], log:sigma=2[,r=N] (Laplacian of Gaussian,
// sigma^2-scaled, zero-sum), dog:sigma1=1,sigma2=2[,r=N] (G(sigma1) - G(sigma2), each of sum 1; radius
// ceil(4 max(sigma1, sigma2))), sharpen:strength=0.8, sobel-x, sobel-y,
// laplacian, emboss, highpass, lowpass, identity, file:PATH. Parameters are name=value, comma
// separated. Throws InputError naming the spec and what is wrong.
Filter parse_filter_spec(const std::string& spec);

// Reads a filter file: whitespace-separated numbers, width, height, then width*height coefficients row
// by row; '#' starts a comment to the end of the line. Throws InputError on a missing file, a wrong
// count, a non-number, an even or zero size, NaN or Inf.
Filter load_filter_file(const std::string& path);
Filter parse_filter_text(const std::string& text, const std::string& origin);

// The filter rotated by 180 degrees: true convolution with f equals correlation with flipped(f).
Filter flipped(const Filter& filter);

// Rank-1 factors: weights[r][c] ~= column[r] * row[c].
struct SeparableFactors {
  std::vector<float> column;  // height values (applied down the columns, second pass)
  std::vector<float> row;     // width values (applied along the rows, first pass)
};

// Relative tolerance of the rank-1 test: max |w - column*row| <= kSeparableTolerance * max |w|.
inline constexpr double kSeparableTolerance = 1e-6;

// The rank-1 factors when the filter is separable within kSeparableTolerance, else nullopt.
std::optional<SeparableFactors> separate(const Filter& filter);

// Bytes a kernel holds of the filter on the device: its row and column when it runs as `factors`,
// else every tap.
std::size_t filter_device_bytes(const Filter& filter, const std::optional<SeparableFactors>& factors);

// File-name-safe form: lowercase, anything but [a-z0-9.-] becomes '-'.
std::string slug(std::string_view text);

// A filter spec as a file-name part (--output-dir's images), distinct for distinct accepted specs: its
// slug, plus a stable short hash of the spec where the slug lost information (a file: path, other
// characters) or was shortened, so file:a/b.txt, file:a-b.txt and file:a_b.txt never share a name.
// At most 73 characters of [a-z0-9.-].
std::string filter_stem(std::string_view spec);

// The built-in filter names, for --help and --list.
std::vector<std::string> builtin_filter_names();
// What the shell completion offers for --filter: a name whose first parameter is required with it
// ("gaussian:sigma="), a name whose parameters are optional alone and with its first ("box", "box:r=").
std::vector<std::string> builtin_filter_completions();

// The filters run when no --filter is given.
std::vector<std::string> default_filter_specs();

}  // namespace cc
