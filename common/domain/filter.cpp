// filter.cpp: the --filter spec parser over the built-in bank, filter files, file-name stems and the rank-1 test.
#include "common/domain/filter.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/domain/error.h"
#include "common/domain/filter_shapes.h"
#include "common/domain/input_file.h"
#include "common/domain/suggest.h"

namespace cc {

using filter_shapes::make_filter;
using filter_shapes::square;
using filter_shapes::delta;
using filter_shapes::gaussian;
using filter_shapes::gaussian_1d;
using filter_shapes::laplacian_of_gaussian;
using filter_shapes::difference_of_gaussians;
using filter_shapes::sharpen;
using filter_shapes::fixed3x3;

double Filter::abs_sum() const {
  double sum = 0;
  for (float w : weights) sum += std::fabs(w);
  return sum;
}

bool Filter::integer_weights() const {
  return std::all_of(weights.begin(), weights.end(),
                     [](float w) { return std::isfinite(w) && w == std::trunc(w); });
}

namespace {

// std::from_chars over the whole text: locale-independent, and a trailing character is an error. A
// leading '+' is accepted because people write "+1" in filter files; from_chars alone refuses it.
template <typename Number>
bool parse_number(std::string_view text, Number& value) {
  if (text.size() > 1 && text[0] == '+' && text[1] != '-' && text[1] != '+') text.remove_prefix(1);
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

struct FilterParameters {
  std::map<std::string, std::string, std::less<>> values;
  std::string spec;

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("bad filter '{}': {}", spec, what));
  }
  bool has(std::string_view name) const { return values.count(name) != 0; }

  int radius(int fallback) const {
    auto it = values.find("r");
    if (it == values.end()) return fallback;
    long long r = 0;
    if (!parse_number(it->second, r)) fail(fmt::format("r must be an integer, got '{}'", it->second));
    if (r < 0) fail("r must be >= 0");
    if (r > (kMaxFilterSide - 1) / 2) fail(fmt::format("r={} makes a side over {}", r, kMaxFilterSide));
    return static_cast<int>(r);
  }

  // A required positive finite parameter (sigma and the like).
  double positive(std::string_view name, std::string_view usage) const {
    if (!has(name)) fail(fmt::format("{} is required ({})", name, usage));
    const double value = real(name, 0);
    if (value <= 0) fail(fmt::format("{} must be > 0", name));
    return value;
  }

  // r= when given, else ceil(4 sigma) (where a Gaussian has fallen to 3.4e-4 of its peak), refused
  // when that side is over kMaxFilterSide.
  int radius_for_sigma(double sigma) const {
    if (has("r")) return radius(0);
    const double natural = std::ceil(4 * sigma);
    if (2 * natural + 1 > kMaxFilterSide)
      fail(fmt::format("sigma={} gives radius {}, a side over {}; give r=N", sigma, natural, kMaxFilterSide));
    return static_cast<int>(natural);
  }

  double real(std::string_view name, double fallback) const {
    auto it = values.find(name);
    if (it == values.end()) return fallback;
    double value = 0;
    if (!parse_number(it->second, value) || !std::isfinite(value))
      fail(fmt::format("{} must be a finite number, got '{}'", name, it->second));
    return value;
  }
};

// The built-ins in --help order, with the parameters each takes; any other parameter is a user mistake.
struct Builtin {
  std::string name;
  std::vector<std::string> parameters;
  bool first_required = false;  // the spec is incomplete without its first parameter (gaussian:sigma=)
};
const std::vector<Builtin> kBuiltins = {
    {"box", {"r"}},
    {"gaussian", {"sigma", "r"}, true},
    {"log", {"sigma", "r"}, true},
    {"dog", {"sigma1", "sigma2", "r"}, true},
    {"sharpen", {"strength"}},
    {"sobel-x", {}},
    {"sobel-y", {}},
    {"laplacian", {}},
    {"emboss", {}},
    {"highpass", {}},
    {"lowpass", {}},
    {"identity", {"r"}},
};

Filter build(const std::string& name, const FilterParameters& p) {
  if (name == "box") {
    const int side = 2 * p.radius(1) + 1;
    return square(side, static_cast<float>(1.0 / (static_cast<double>(side) * side)));
  }
  if (name == "gaussian") {
    const double sigma = p.positive("sigma", "gaussian:sigma=S[,r=N]");
    return gaussian(sigma, p.radius_for_sigma(sigma));
  }
  if (name == "log" || name == "dog") {
    Filter filter;
    double smallest_sigma = 0;
    if (name == "log") {
      const double sigma = p.positive("sigma", "log:sigma=S[,r=N]");
      filter = laplacian_of_gaussian(sigma, p.radius_for_sigma(sigma));
      smallest_sigma = sigma;
    } else {
      const double sigma1 = p.positive("sigma1", "dog:sigma1=A,sigma2=B[,r=N]");
      const double sigma2 = p.positive("sigma2", "dog:sigma1=A,sigma2=B[,r=N]");
      if (sigma1 == sigma2) p.fail("sigma1 and sigma2 must differ (equal ones cancel to an all-zero filter)");
      filter = difference_of_gaussians(sigma1, sigma2, p.radius_for_sigma(std::max(sigma1, sigma2)));
      smallest_sigma = std::min(sigma1, sigma2);
    }
    // A sigma far from the grid's scale (tiny beside one tap, or huge beside r) leaves nothing after
    // the zero-sum but rounding: weights under 1e-6 of the narrower Gaussian's own peak (the 2D peak
    // of its grid form) are noise, not a filter.
    const double gaussian_peak = std::pow(gaussian_1d(smallest_sigma, filter.radius_x())[filter.radius_x()], 2);
    const double peak = std::fabs(*std::max_element(filter.weights.begin(), filter.weights.end(),
                                                    [](float a, float b) { return std::fabs(a) < std::fabs(b); }));
    if (!(peak > 1e-6 * gaussian_peak))
      p.fail(fmt::format("its weights cancel to {:.3g}, under 1e-6 of the Gaussian's {:.3g}, at radius {} (sigma too "
                         "small or too large for that grid): all zero but rounding",
                         peak, gaussian_peak, filter.radius_x()));
    return filter;
  }
  if (name == "sharpen") {
    // Past float's range the weights would be infinite, which a filter file may not hold either.
    const double strength = p.real("strength", 1.0);
    if (std::fabs(strength) > std::numeric_limits<float>::max())
      p.fail(fmt::format("strength={} gives infinite weights (|strength| <= {} required)", strength,
                         std::numeric_limits<float>::max()));
    return sharpen(strength);
  }
  if (name == "identity") return delta(p.radius(0));
  if (name == "sobel-x") return fixed3x3({-1, 0, 1, -2, 0, 2, -1, 0, 1});
  if (name == "sobel-y") return fixed3x3({-1, -2, -1, 0, 0, 0, 1, 2, 1});
  if (name == "laplacian") return fixed3x3({0, 1, 0, 1, -4, 1, 0, 1, 0});
  if (name == "emboss") return fixed3x3({-2, -1, 0, -1, 1, 1, 0, 1, 2});
  // highpass: 8 x the pixel minus its eight neighbours (the negated 8-neighbour Laplacian); sums to 0,
  // so flat regions go to 0 and only detail remains.
  if (name == "highpass") return fixed3x3({-1, -1, -1, -1, 8, -1, -1, -1, -1});
  // lowpass: the 3x3 binomial [1 2 1] x [1 2 1] / 16 (exact in float).
  return fixed3x3({1 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 4 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 1 / 16.f});
}

}  // namespace

Filter parse_filter_spec(const std::string& spec) {
  const std::size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  if (name == "file") {
    if (colon == std::string::npos || colon + 1 == spec.size())
      throw InputError(fmt::format("bad filter '{}': file:PATH needs a path", spec));
    Filter filter = load_filter_file(spec.substr(colon + 1));
    filter.spec = spec;
    return filter;
  }

  FilterParameters parameters;
  parameters.spec = spec;
  const auto allowed = std::find_if(kBuiltins.begin(), kBuiltins.end(),
                                    [&name](const Builtin& builtin) { return builtin.name == name; });
  if (allowed == kBuiltins.end())
    parameters.fail(
        fmt::format("unknown filter '{}' (known: {}, file:PATH){}", name, fmt::join(builtin_filter_names(), ", "),
                    did_you_mean(name, builtin_filter_names())));
  if (colon != std::string::npos) {
    std::string_view rest = std::string_view(spec).substr(colon + 1);
    while (true) {
      const std::size_t comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      const std::size_t equals = item.find('=');
      if (equals == std::string_view::npos || equals == 0 || equals + 1 == item.size())
        parameters.fail(fmt::format("expected name=value, got '{}'", item));
      const std::string key(item.substr(0, equals));
      if (std::find(allowed->parameters.begin(), allowed->parameters.end(), key) == allowed->parameters.end())
        parameters.fail(allowed->parameters.empty() ? fmt::format("{} takes no parameters", name)
                                                    : fmt::format("unknown parameter '{}' (accepted: {}){}", key,
                                                                  fmt::join(allowed->parameters, ", "),
                                                                  did_you_mean(key, allowed->parameters)));
      if (!parameters.values.emplace(key, item.substr(equals + 1)).second)
        parameters.fail(fmt::format("parameter '{}' given twice", key));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  Filter filter = build(name, parameters);
  filter.spec = spec;
  return filter;
}

Filter parse_filter_text(const std::string& text, const std::string& origin) {
  // printable(): a token may hold a NUL, which would end the message's C string (what()) there.
  auto fail = [&origin](const std::string& what) {
    return InputError(fmt::format("filter file '{}': {}", origin, printable(what, std::string::npos)));
  };
  long long size[2] = {0, 0};  // width, height
  int sizes_read = 0;
  std::size_t expected = 0;
  std::vector<float> weights;
  // A UTF-8 byte order mark (some Windows editors write one) is not part of the first number. CR LF
  // line ends need nothing: CR is whitespace to the tokenizer.
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  std::istringstream lines(text.starts_with(kByteOrderMark) ? text.substr(kByteOrderMark.size()) : text);
  std::string line;
  for (int line_number = 1; std::getline(lines, line); ++line_number) {
    line = line.substr(0, line.find('#'));
    std::istringstream tokens(line);  // splits on whitespace only; the numbers go through from_chars
    std::string token;
    while (tokens >> token) {
      if (sizes_read < 2) {
        const char* what = sizes_read == 0 ? "width" : "height";
        long long& value = size[sizes_read++];
        if (!parse_number(token, value) || value <= 0 || value % 2 == 0 || value > kMaxFilterSide)
          throw fail(fmt::format("line {}: {} must be a positive odd integer <= {}, got '{}'", line_number, what,
                                 kMaxFilterSide, token));
        if (sizes_read == 2) {
          expected = static_cast<std::size_t>(size[0] * size[1]);
          weights.reserve(expected);
        }
        continue;
      }
      if (weights.size() == expected)
        throw fail(fmt::format("line {}: extra number '{}' after the {}x{} = {} coefficients", line_number, token,
                               size[0], size[1], expected));
      double value = 0;
      if (!parse_number(token, value))
        throw fail(fmt::format("line {}: '{}' is not a number", line_number, token));
      if (!std::isfinite(value) || std::fabs(value) > std::numeric_limits<float>::max())
        throw fail(fmt::format("line {}: '{}' is not a finite float", line_number, token));
      weights.push_back(static_cast<float>(value));
    }
  }
  if (sizes_read < 2) throw fail("expected the width and height first, then the coefficients");
  if (weights.size() != expected)
    throw fail(
        fmt::format("expected {}x{} = {} coefficients, found {}", size[0], size[1], expected, weights.size()));
  Filter filter = make_filter(static_cast<int>(size[0]), static_cast<int>(size[1]), std::move(weights));
  filter.spec = "file:" + origin;
  return filter;
}

Filter load_filter_file(const std::string& path) {
  constexpr std::uint64_t kMaxFilterFileBytes = 16u << 20;  // far above 1025^2 numbers' worth of need
  return parse_filter_text(read_input_file(path, "filter file", kMaxFilterFileBytes, "far more than a 1025x1025 filter needs"),
                           path);
}

namespace {

// Longer filter specs are shortened in file names (the hash keeps them apart).
constexpr std::size_t kMaxSpecInName = 64;

// FNV-1a: a stable hash (the same name on every machine and run), short enough for a file name.
std::uint32_t fnv1a(std::string_view text) {
  std::uint32_t hash = 2166136261u;
  for (const char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return hash;
}

}  // namespace

std::string slug(std::string_view text) {
  std::string result;
  for (const char c : text) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool keep = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9') || lower == '.' || lower == '-';
    result += keep ? lower : '-';
  }
  return result;
}

std::string filter_stem(std::string_view spec) {
  // A built-in spec ("gaussian:sigma=3.2,r=5") is lowercase [a-z0-9.-] apart from its grammar's ':', '='
  // and ',', which the parameter names keep apart: its slug is already distinct. Anything else gets
  // the hash of the exact spec.
  const bool grammar_only = !spec.starts_with("file:") && std::ranges::all_of(spec, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == ':' || c == '=' || c == ',';
  });
  std::string name = slug(spec);
  if (grammar_only && name.size() <= kMaxSpecInName) return name;
  if (name.size() > kMaxSpecInName) name.resize(kMaxSpecInName);
  return fmt::format("{}-{:08x}", name, fnv1a(spec));
}

Filter flipped(const Filter& filter) {
  Filter result = filter;
  std::reverse(result.weights.begin(), result.weights.end());  // row-major reversal = 180-degree turn
  return result;
}

std::optional<SeparableFactors> separate(const Filter& filter) {
  if (filter.weights.empty()) return std::nullopt;
  const auto largest = std::max_element(filter.weights.begin(), filter.weights.end(),
                                        [](float a, float b) { return std::fabs(a) < std::fabs(b); });
  const double peak = std::fabs(*largest);
  if (!(peak > 0) || !std::isfinite(peak)) return std::nullopt;  // all zeros, or not a number
  const int pivot_row = static_cast<int>(largest - filter.weights.begin()) / filter.width;
  const int pivot_col = static_cast<int>(largest - filter.weights.begin()) % filter.width;

  SeparableFactors factors;
  for (int c = 0; c < filter.width; ++c) factors.row.push_back(filter.at(pivot_row, c));
  for (int r = 0; r < filter.height; ++r)
    factors.column.push_back(static_cast<float>(static_cast<double>(filter.at(r, pivot_col)) / *largest));
  // Checked with the float factors a kernel will actually use, not the exact quotients.
  for (int r = 0; r < filter.height; ++r)
    for (int c = 0; c < filter.width; ++c) {
      const double product = static_cast<double>(factors.column[r]) * factors.row[c];
      if (!(std::fabs(filter.at(r, c) - product) <= kSeparableTolerance * peak)) return std::nullopt;
    }
  return factors;
}

std::vector<std::string> builtin_filter_names() {
  std::vector<std::string> names;
  for (const Builtin& builtin : kBuiltins) names.push_back(builtin.name);
  return names;
}

std::vector<std::string> builtin_filter_completions() {
  std::vector<std::string> completions;
  for (const Builtin& builtin : kBuiltins) {
    if (!builtin.first_required) completions.push_back(builtin.name);
    if (!builtin.parameters.empty()) completions.push_back(builtin.name + ":" + builtin.parameters.front() + "=");
  }
  return completions;
}

std::vector<std::string> default_filter_specs() {
  return {"box:r=1", "gaussian:sigma=2", "sharpen:strength=1", "sobel-x", "emboss"};
}

std::size_t filter_device_bytes(const Filter& filter, const std::optional<SeparableFactors>& factors) {
  const std::size_t floats = factors ? factors->row.size() + factors->column.size() : filter.weights.size();
  return floats * sizeof(float);
}

}  // namespace cc
