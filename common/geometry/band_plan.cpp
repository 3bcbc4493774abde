// band_plan.cpp: --split's bands, their halo rows and the row runs that fill and stitch them (band_plan.h).
#include "common/geometry/band_plan.h"

#include <algorithm>

#include <fmt/format.h>

namespace cc {

namespace {

// `row` taken round an image of `height` rows (wrap's rule: periodic).
int wrapped(int row, int height) {
  const int r = row % height;
  return r < 0 ? r + height : r;
}

}  // namespace

BandPlan plan_bands(int height, int radius, int devices, bool wrap) {
  BandPlan plan;
  if (devices < 1 || height < 1) {
    plan.skip_reason = fmt::format("no bands for {} devices and {} rows", devices, height);
    return plan;
  }
  if (devices > height) {
    plan.skip_reason = fmt::format("{} devices for {} rows: a band needs at least one row of its own", devices, height);
    return plan;
  }
  const int each = height / devices;
  for (int index = 0; index < devices; ++index) {
    Band band;
    band.first_row = index * each;
    band.rows = index == devices - 1 ? height - band.first_row : each;
    const int end = band.first_row + band.rows;
    band.halo_above = wrap ? radius : std::min(radius, band.first_row);
    band.halo_below = wrap ? radius : std::min(radius, height - end);
    plan.bands.push_back(band);
  }
  return plan;
}

std::vector<RowCopy> input_copies(const Band& band, int height) {
  std::vector<RowCopy> copies;
  const int first = band.first_row - band.halo_above;
  int to = 0;
  while (to < band.input_rows()) {
    const int from = wrapped(first + to, height);
    const int rows = std::min(band.input_rows() - to, height - from);  // up to the image's last row
    copies.push_back({from, to, rows});
    to += rows;
  }
  return copies;
}

RowCopy output_copy(const Band& band) { return {band.halo_above, band.first_row, band.rows}; }

std::vector<HaloCopy> halo_copies(const BandPlan& plan, int index, int height) {
  const Band& band = plan.bands.at(static_cast<std::size_t>(index));
  std::vector<HaloCopy> copies;
  for (const RowCopy& run : input_copies(band, height)) {
    // Cut the run where the image's rows change owner; skip the band's own rows.
    int done = 0;
    while (done < run.rows) {
      const int row = run.from + done, to = run.to + done;
      const auto owner = std::ranges::find_if(plan.bands, [&](const Band& b) { return row < b.first_row + b.rows; });
      const int source = static_cast<int>(owner - plan.bands.begin());
      const int rows = std::min(run.rows - done, owner->first_row + owner->rows - row);
      const bool own = source == index && to >= band.halo_above && to < band.halo_above + band.rows;
      if (!own) copies.push_back({source, {row - owner->first_row + owner->halo_above, to, rows}});
      done += rows;
    }
  }
  return copies;
}

}  // namespace cc
