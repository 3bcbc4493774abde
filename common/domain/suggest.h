// suggest.h: "did you mean" for a mistyped name (a variant, border, filter, option...): the closest known name by edit distance.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cc {

// Levenshtein distance (insert, delete, substitute, and a swap of two neighbours counts one), ASCII
// case folded: names are lower case, so "Tiled" is 0 from "tiled" and gets it as the suggestion.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The known name closest to `typed`, if it is close enough to be the one meant: within a third of its
// length (at least 1, at most 3 edits), or `typed`, three letters or more, is its start ("gauss" for
// "gaussian"). Ties go to
// the first in `known`. None for an exact match or nothing near.
std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string_view>& known);
std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& known);

// "; did you mean 'tiled'?" to end an error message, or "" when no name is close. The one wording
// every message uses.
std::string did_you_mean(std::string_view typed, const std::vector<std::string_view>& known);
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known);

}  // namespace cc
