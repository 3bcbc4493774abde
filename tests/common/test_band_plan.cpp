// test_band_plan.cpp: --split's band geometry: bands, halos, fill and stitch runs, checked by running the CPU reference band by band.
#include <doctest/doctest.h>

#include <vector>

#include "common/domain/reference.h"
#include "common/geometry/band_plan.h"
#include "tests/support/fixtures.h"

namespace {

using cc::Band;
using cc::Border;
using cc::testing::kBorders;
using cc::RowCopy;
// Distinct small integers: every sum of the box filter below is exact in float, so equality is bit for bit.
cc::Image numbered(int width, int height, int channels) {
  cc::Image image(width, height, channels);
  for (std::size_t i = 0; i < image.data.size(); ++i) image.data[i] = static_cast<float>((i * 37) % 101);
  return image;
}

cc::Filter box(int radius_x, int radius_y) {
  const int width = 2 * radius_x + 1, height = 2 * radius_y + 1;
  cc::Filter filter{"box", width, height, {}};
  for (int i = 0; i < width * height; ++i) filter.weights.push_back(static_cast<float>(1 + i % 3));
  return filter;
}

// Rows `copy` of `from` into `to` (every channel), as a device's upload or download does.
void copy_rows(const cc::Image& from, cc::Image& to, const RowCopy& copy) {
  for (int c = 0; c < from.channels; ++c)
    for (int y = 0; y < copy.rows; ++y)
      for (int x = 0; x < from.width; ++x) to.at(c, copy.to + y, x) = from.at(c, copy.from + y, x);
}

// The whole split as a device would run it, each band's device being the CPU reference: the
// sub-image filled by input_copies, convolved alone with the image's border, its own rows stitched.
cc::Image split_run(const cc::Image& image, const cc::Filter& filter, Border border, int devices) {
  const cc::BandPlan plan = cc::plan_bands(image.height, filter.radius_y(), devices, border == Border::Wrap);
  REQUIRE(plan.skip_reason.empty());
  cc::Image stitched(image.width, image.height, image.channels);
  for (const Band& band : plan.bands) {
    cc::Image part(image.width, band.input_rows(), image.channels);
    for (const RowCopy& copy : cc::input_copies(band, image.height)) copy_rows(image, part, copy);
    const cc::Image result = cc::reference_convolve(part, cc::make_problem(part, filter, border, false));
    copy_rows(result, stitched, cc::output_copy(band));
  }
  return stitched;
}

}  // namespace

TEST_CASE("bands: height / devices rows each, the last taking the remainder, halos clamped at the image") {
  const cc::BandPlan plan = cc::plan_bands(10, 2, 3, false);
  CHECK(plan.skip_reason.empty());
  REQUIRE(plan.bands.size() == 3);
  CHECK(plan.bands[0] == Band{.first_row = 0, .rows = 3, .halo_above = 0, .halo_below = 2});
  CHECK(plan.bands[1] == Band{.first_row = 3, .rows = 3, .halo_above = 2, .halo_below = 2});
  CHECK(plan.bands[2] == Band{.first_row = 6, .rows = 4, .halo_above = 2, .halo_below = 0});
  CHECK(plan.bands[2].input_rows() == 6);
  // A radius over a band: the halo reaches past the neighbour, to the image's edge and no further.
  const cc::BandPlan tall = cc::plan_bands(10, 5, 3, false);
  CHECK(tall.bands[1] == Band{.first_row = 3, .rows = 3, .halo_above = 3, .halo_below = 4});
  // Wrap: the radius on both sides of every band, round the image.
  const cc::BandPlan wrap = cc::plan_bands(10, 2, 2, true);
  CHECK(wrap.bands[0] == Band{.first_row = 0, .rows = 5, .halo_above = 2, .halo_below = 2});
  CHECK(cc::input_copies(wrap.bands[0], 10) == std::vector<RowCopy>{{8, 0, 2}, {0, 2, 7}});
  CHECK(cc::input_copies(wrap.bands[1], 10) == std::vector<RowCopy>{{3, 0, 7}, {0, 7, 2}});
  CHECK(cc::output_copy(wrap.bands[1]) == RowCopy{2, 5, 5});
}

TEST_CASE("bands: more devices than rows, or none, is a reason, not bands") {
  const cc::BandPlan plan = cc::plan_bands(3, 1, 4, false);
  CHECK(plan.bands.empty());
  CHECK(plan.skip_reason == "4 devices for 3 rows: a band needs at least one row of its own");
  CHECK_FALSE(cc::plan_bands(3, 1, 0, false).skip_reason.empty());
  CHECK(cc::plan_bands(3, 1, 3, false).bands.size() == 3);  // one row each is enough
}

TEST_CASE("bands: a wrap halo taller than the image goes round it as many times as it needs") {
  const cc::BandPlan plan = cc::plan_bands(3, 4, 3, true);
  REQUIRE(plan.bands.size() == 3);
  CHECK(cc::input_copies(plan.bands[0], 3) == std::vector<RowCopy>{{2, 0, 1}, {0, 1, 3}, {0, 4, 3}, {0, 7, 2}});
}

TEST_CASE("bands: the split of the CPU reference equals the whole run bit for bit, every border and shape") {
  struct Shape {
    int width, height, channels, radius_x, radius_y, devices;
  };
  const Shape shapes[] = {
      {9, 12, 1, 1, 1, 2},   // even bands
      {7, 11, 3, 2, 1, 3},   // 3 devices, the last band taller, planes
      {5, 10, 1, 1, 4, 3},   // the radius over a band: halos from two bands away
      {6, 5, 1, 1, 3, 5},    // one row per band, the halo taller than the band
      {4, 3, 2, 2, 5, 2},    // the radius over the image
      {8, 13, 1, 3, 2, 1},   // one device: the whole frame
  };
  for (const Shape& shape : shapes)
    for (const Border border : kBorders) {
      CAPTURE(shape.height);
      CAPTURE(shape.radius_y);
      CAPTURE(shape.devices);
      CAPTURE(cc::to_string(border));
      const cc::Image image = numbered(shape.width, shape.height, shape.channels);
      const cc::Filter filter = box(shape.radius_x, shape.radius_y);
      const cc::Image whole = cc::reference_convolve(image, cc::make_problem(image, filter, border, false));
      CHECK(split_run(image, filter, border, shape.devices).data == whole.data);
    }
}

TEST_CASE("bands: halo_copies finds each halo row in the band that holds it, the same rows input_copies gives") {
  for (const bool wrap : {false, true})
    for (const int radius : {1, 3, 7})
      for (const int devices : {2, 3, 4}) {
        const int height = 11;
        CAPTURE(wrap);
        CAPTURE(radius);
        CAPTURE(devices);
        const cc::BandPlan plan = cc::plan_bands(height, radius, devices, wrap);
        // Each band's sub-image as image row numbers: own rows first, then every halo run from its source.
        std::vector<std::vector<int>> held(plan.bands.size());
        for (std::size_t b = 0; b < plan.bands.size(); ++b) {
          held[b].assign(static_cast<std::size_t>(plan.bands[b].input_rows()), -1);
          const RowCopy own = cc::output_copy(plan.bands[b]);
          for (int y = 0; y < own.rows; ++y) held[b][static_cast<std::size_t>(own.from + y)] = own.to + y;
        }
        for (std::size_t b = 0; b < plan.bands.size(); ++b) {
          std::vector<int> expected(static_cast<std::size_t>(plan.bands[b].input_rows()), -1);
          for (const RowCopy& copy : cc::input_copies(plan.bands[b], height))
            for (int y = 0; y < copy.rows; ++y) expected[static_cast<std::size_t>(copy.to + y)] = copy.from + y;
          std::vector<int> filled = held[b];
          for (const cc::HaloCopy& halo : cc::halo_copies(plan, static_cast<int>(b), height)) {
            const cc::Band& source = plan.bands[static_cast<std::size_t>(halo.source)];
            for (int y = 0; y < halo.rows.rows; ++y) {
              const int from = halo.rows.from + y;
              CHECK(from >= source.halo_above);  // read only from the source's own rows
              CHECK(from < source.halo_above + source.rows);
              filled[static_cast<std::size_t>(halo.rows.to + y)] = held[static_cast<std::size_t>(halo.source)][static_cast<std::size_t>(from)];
            }
          }
          CHECK(filled == expected);
        }
      }
}
