// suggest.cpp: the edit distance and the closest-name rule behind every "did you mean".
#include "common/domain/suggest.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include <fmt/format.h>

namespace cc {

namespace {

char folded(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: three rows of the dynamic-programming table.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = folded(a[i - 1]) == folded(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution});
      if (i > 1 && j > 1 && folded(a[i - 1]) == folded(b[j - 2]) && folded(a[i - 2]) == folded(b[j - 1]))
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string_view>& known) {
  if (typed.empty() || std::ranges::find(known, typed) != known.end()) return std::nullopt;
  const std::size_t allowed = std::clamp<std::size_t>(typed.size() / 3, 1, 3);
  std::optional<std::string> best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (std::string_view name : known) {
    std::size_t distance = edit_distance(typed, name);
    // A start of three letters or more counts as one step: "gauss" is gaussian.
    if (typed.size() >= 3 && name.size() > typed.size() && edit_distance(typed, name.substr(0, typed.size())) == 0)
      distance = 1;
    if (distance <= allowed && distance < best_distance) {
      best_distance = distance;
      best = std::string(name);
    }
  }
  return best;
}

std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& known) {
  return closest_name(typed, std::vector<std::string_view>(known.begin(), known.end()));
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string_view>& known) {
  const std::optional<std::string> name = closest_name(typed, known);
  return name ? fmt::format("; did you mean '{}'?", *name) : std::string();
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known) {
  return did_you_mean(typed, std::vector<std::string_view>(known.begin(), known.end()));
}

}  // namespace cc
