// band_plan.h: --split's geometry: one frame cut into horizontal bands, one per device, each with the halo rows its filter reads.
#pragma once

#include <string>
#include <vector>

namespace cc {

// A run of rows copied from one place to another: `rows` rows from row `from` to row `to`.
struct RowCopy {
  int from = 0;
  int to = 0;
  int rows = 0;
  friend bool operator==(const RowCopy&, const RowCopy&) = default;
};

// One device's part of the frame (docs/multi-device.md, "Bands and halos"). The device holds a
// sub-image of input_rows() rows: `halo_above` rows read from above the band, the band's own `rows`
// (image rows first_row ..), then `halo_below`. It computes all of them and keeps only its own: an
// output row of the band reads at most radius rows either way, and those are all in the sub-image,
// so every band row is what the whole frame's run gives it.
// An image edge is a band's edge only where the band touches it; there the kernel's own border rule
// (zero, clamp, mirror) acts on the sub-image's edge, which is the image's, and the halo on that side is
// 0 rows. Wrap reads the far edge's rows: every band then has `radius` halo rows on both sides, taken
// round the image (rows modulo height), and the kernel's wrap never acts across a band edge.
struct Band {
  int first_row = 0;   // the band's first row in the image
  int rows = 0;        // its own rows, the ones it computes for the result
  int halo_above = 0;  // rows of the sub-image above the band (its neighbours' rows, or wrap's far edge)
  int halo_below = 0;
  int input_rows() const { return halo_above + rows + halo_below; }
  friend bool operator==(const Band&, const Band&) = default;
};

// The bands of a frame `height` rows high for a filter of vertical radius `radius` over `devices`
// devices: height / devices rows each, the last taking the remainder. `wrap`: the border wraps
// (above). With more devices than rows, no bands and skip_reason says so.
struct BandPlan {
  std::vector<Band> bands;
  std::string skip_reason;  // why the frame cannot be split this way, or ""
};
BandPlan plan_bands(int height, int radius, int devices, bool wrap);

// How band `band`'s sub-image is filled from the image: its input rows (halo and own) as runs of
// image rows (`from`) to sub-image rows (`to`), in sub-image order; one run unless wrap goes round
// the image's edge (then a run per pass, as many as the halo needs when it is taller than the image).
std::vector<RowCopy> input_copies(const Band& band, int height);

// The band's own rows, as one run from the sub-image (`from`, after the halo above) to the image (`to`).
RowCopy output_copy(const Band& band);

// Where each of band `index`'s halo rows is held by another band of `plan` (its own rows there):
// runs of `from` = the row in that band's sub-image, `to` = the row in this band's sub-image, with the
// band holding them in `source`. For an exchange between devices (peer copies) after each device
// has received only its own rows; the halo is then the same rows input_copies() gives.
struct HaloCopy {
  int source = 0;  // index of the band whose device holds the rows
  RowCopy rows;
  friend bool operator==(const HaloCopy&, const HaloCopy&) = default;
};
std::vector<HaloCopy> halo_copies(const BandPlan& plan, int index, int height);

}  // namespace cc
