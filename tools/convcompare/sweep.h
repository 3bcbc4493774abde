// sweep.h: --sweep radius=... and size=...: the grid of radii and image sizes one invocation runs.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cc {

struct Sweep {
  std::vector<int> radii;                   // empty: each --filter as given
  std::vector<std::pair<int, int>> sizes;   // empty: the one image (generated or --image)
};

// Parses every --sweep: "radius=1..32" (every integer), "radius=1,2,3,7,13", "size=512..8192" (square
// sizes doubling from the first), "size=640x480,1920x1080,2048"; lists may mix values and ranges.
// Throws InputError, one line, on anything else (unknown key, a key twice, an empty or reversed range,
// a radius over the filter limit, a size over the image limit).
Sweep parse_sweeps(const std::vector<std::string>& texts);

// The spec with its radius set: box:r=3 -> box:r=R, gaussian:sigma=2 -> gaussian:sigma=2,r=R.
// Throws InputError for filters whose size is fixed (sobel-x, file:...).
std::string filter_spec_with_radius(const std::string& spec, int radius);

}  // namespace cc
