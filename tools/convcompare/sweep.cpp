// sweep.cpp: parsing --sweep and giving a filter spec each swept radius.
#include "tools/convcompare/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string_view>

#include "common/domain/error.h"
#include "common/domain/suggest.h"
#include "common/domain/filter.h"
#include "common/domain/image.h"
#include "tools/convcompare/cli.h"

namespace cc {

namespace {

// The filters whose radius is a parameter; the others have a fixed size.
constexpr std::string_view kRadiusFilters[] = {"box", "gaussian", "log", "dog", "identity"};

// A sweep over radius 0..1000 is a typo, and would run for hours.
constexpr std::size_t kMaxSweepPoints = 256;

int parse_int(std::string_view text, std::string_view sweep) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size())
    throw InputError(fmt::format("bad --sweep '{}': '{}' is not an integer", sweep, text));
  return value;
}

// "A..B" or "A" items, comma separated; `expand` turns one range into its values.
template <typename Value, typename ParseOne, typename Expand>
std::vector<Value> parse_list(std::string_view list, std::string_view sweep, ParseOne parse_one, Expand expand) {
  std::vector<Value> values;
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    if (const std::size_t dots = item.find(".."); dots != std::string_view::npos) {
      const Value first = parse_one(item.substr(0, dots)), last = parse_one(item.substr(dots + 2));
      std::ranges::copy(expand(first, last), std::back_inserter(values));
    } else {
      values.push_back(parse_one(item));
    }
    if (values.size() > kMaxSweepPoints)
      throw InputError(fmt::format("bad --sweep '{}': more than {} points", sweep, kMaxSweepPoints));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return values;
}

std::vector<int> parse_radii(std::string_view list, std::string_view sweep) {
  const int most = (kMaxFilterSide - 1) / 2;
  const auto parse_one = [&](std::string_view text) {
    const int radius = parse_int(text, sweep);
    if (radius < 0 || radius > most)
      throw InputError(fmt::format("bad --sweep '{}': radius {} is outside 0..{}", sweep, radius, most));
    return radius;
  };
  const auto expand = [&](int first, int last) {
    if (first > last) throw InputError(fmt::format("bad --sweep '{}': range {}..{} is empty", sweep, first, last));
    if (static_cast<std::size_t>(last - first) >= kMaxSweepPoints)
      throw InputError(fmt::format("bad --sweep '{}': more than {} points", sweep, kMaxSweepPoints));
    std::vector<int> radii;
    for (int radius = first; radius <= last; ++radius) radii.push_back(radius);
    return radii;
  };
  return parse_list<int>(list, sweep, parse_one, expand);
}

std::vector<std::pair<int, int>> parse_sizes(std::string_view list, std::string_view sweep) {
  using Size = std::pair<int, int>;
  const auto parse_one = [&](std::string_view text) -> Size {
    Size size;
    try {
      size = text.find_first_of("xX") == std::string_view::npos
                 ? Size{parse_int(text, sweep), parse_int(text, sweep)}
                 : parse_size(std::string(text));
    } catch (const InputError&) {
      throw InputError(fmt::format("bad --sweep '{}': size '{}' is not N or WIDTHxHEIGHT", sweep, text));
    }
    if (size.first <= 0 || size.second <= 0)
      throw InputError(fmt::format("bad --sweep '{}': size '{}' must be positive", sweep, text));
    check_image_size(size.first, size.second, 1, "--sweep size");
    return size;
  };
  // Sizes double: 512..8192 is 512, 1024, 2048, 4096, 8192, the axis a bandwidth plot wants.
  const auto expand = [&](Size first, Size last) {
    if (first.first > last.first || first.second > last.second)
      throw InputError(fmt::format("bad --sweep '{}': range is empty", sweep));
    std::vector<Size> sizes;
    for (Size size = first; size.first <= last.first && size.second <= last.second;
         size = {size.first * 2, size.second * 2})
      sizes.push_back(size);
    if (sizes.back() != last) sizes.push_back(last);
    return sizes;
  };
  return parse_list<Size>(list, sweep, parse_one, expand);
}

}  // namespace

Sweep parse_sweeps(const std::vector<std::string>& texts) {
  Sweep sweep;
  bool radius_seen = false, size_seen = false;
  for (const std::string& text : texts) {
    const std::size_t equals = text.find('=');
    const std::string key = text.substr(0, equals);
    if (equals == std::string::npos || equals + 1 == text.size())
      throw InputError(fmt::format("bad --sweep '{}': expected radius=RANGE or size=RANGE", text));
    const std::string_view list = std::string_view(text).substr(equals + 1);
    bool& seen = key == "radius" ? radius_seen : size_seen;
    if (key != "radius" && key != "size")
      throw InputError(fmt::format("bad --sweep '{}': unknown key '{}' (radius, size){}", text, key,
                                   did_you_mean(key, std::vector<std::string_view>{"radius", "size"})));
    if (seen) throw InputError(fmt::format("bad --sweep '{}': {} is swept twice", text, key));
    seen = true;
    if (key == "radius")
      sweep.radii = parse_radii(list, text);
    else
      sweep.sizes = parse_sizes(list, text);
  }
  return sweep;
}

std::string filter_spec_with_radius(const std::string& spec, int radius) {
  const std::string name = spec.substr(0, spec.find(':'));
  if (std::ranges::find(kRadiusFilters, name) == std::ranges::end(kRadiusFilters))
    throw InputError(fmt::format("--sweep radius cannot vary filter '{}': its size is fixed (box, gaussian, log, dog and "
                                 "identity take a radius)",
                                 spec));
  // Drop any r= the spec had; keep the other parameters in their order.
  std::string parameters;
  if (const std::size_t colon = spec.find(':'); colon != std::string::npos) {
    std::string_view rest = std::string_view(spec).substr(colon + 1);
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      if (!item.starts_with("r=")) parameters += fmt::format("{},", item);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return fmt::format("{}:{}r={}", name, parameters, radius);
}

}  // namespace cc
