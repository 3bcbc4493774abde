// backend_matrix.h: the test matrix every device backend runs (variant x border x flip x size x radius x channels).
#pragma once

#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "common/domain/validate.h"
#include "common/domain/variants.h"

namespace cc::testing {

// One image size of the matrix and the filter shapes (radius x, radius y) it runs.
struct SizeShapes {
  std::pair<int, int> size;
  std::vector<std::pair<int, int>> shapes;
};

struct MatrixOptions {
  std::vector<std::pair<int, int>> sizes{{1, 1}, {7, 5}, {33, 17}, {257, 131}, {1023, 769}};
  std::vector<int> radii{0, 1, 2, 3, 8, 16};
  std::vector<int> channels{1, 3};
  // Where not empty, lowrank's radii instead of `radii`. Its largest is 12, not 16: both take the banded
  // tiles (radius over 8, common/geometry/separable_shape.h), a filter over the small images and the
  // largest image's apron, but PoCL builds lowrank.cl at radius 16 in 20 s of CPU and at 12 in 6 (its
  // unrolled row pass), the radius-16 program alone more than half the variant's matrix.
  std::vector<int> low_rank_radii{0, 1, 2, 3, 8, 12};
  // Where not empty, the filter shapes (radius x, radius y) a variant built per radius (VariantTraits::
  // compile_time_radius) takes instead of the radii's: each shape is a program of its own to compile.
  std::vector<std::pair<int, int>> compiled_shapes{};
  // Where not empty, compiled_shapes for the variants of separable passes (separable, lowrank).
  std::vector<std::pair<int, int>> pass_compiled_shapes{};
  // Where not empty, fft's image sizes and filter shapes instead of `sizes` x the radii's. Each (image
  // size, shape) is a transform size of its own (common/geometry/fft_shape.cpp), and VkFFT generates and
  // builds its kernels per transform size: on PoCL that is nearly all of fft's time, a run itself taking
  // milliseconds even at 1023x769 (19 sizes took 86 s of CPU with a cold PoCL cache, 12 s warm;
  // these 11 take 45 s cold). test_fft.cpp covers the unpadded path, which no odd-sized image here takes.
  // Borders, flips and channel counts cost nothing more on one size, so each size below keeps them all
  // (the small images the full product, as `keep_case` says); the sizes are cut where two cases tested
  // the same thing: 11, transform sizes in brackets.
  std::vector<SizeShapes> fft_cases{
      // A filter over a one-pixel image, wide (5x3 taps) and tall with a zero x radius (1x5); zero radius
      // with the smallest transform [2x2, 6x3, 2x5]. 1x1's (1,1) and (16,16) were over the image too:
      // 7x5 runs both, (16,16) over it by several widths.
      {{1, 1}, {{0, 0}, {2, 1}, {0, 2}}},
      // Small, with interior pixels: square, a filter over the image by several folds (16), wide and
      // tall asymmetric [10x7, 40x40, 12x7, 8x9]; zero radius: 1x1 above and 257x131 below.
      {{7, 5}, {{1, 1}, {16, 16}, {2, 1}, {0, 2}}},
      // Small and wider than the filter, other radices (36 = 4 x 9, 20 = 4 x 5) [36x20]; its (0,0), (2,1),
      // (0,2) and (16,16) (four sizes more) repeated 7x5's and 257x131's shapes.
      {{33, 17}, {{1, 1}}},
      // Medium, every shape, flip and channels rotating over shapes and borders [270x135 for all but
      // 16, 294x168]: a large radius inside an image.
      {{257, 131}, {{0, 0}, {1, 1}, {16, 16}, {2, 1}, {0, 2}}},
      // The largest, radius 1 with every border [1050x784]: the longest rows. Its radius-16 run [1080x810]
      // is there for tiled variants' aprons, and fft has no tiles; 257x131 runs radius 16 inside an image.
      {{1023, 769}, {{1, 1}}}};
  // The channel counts the small images take the full product over (empty: all of `channels`); the
  // medium images still rotate over every count in `channels`.
  std::vector<int> small_image_channels{};
  // False: the small images take one flip per (shape, border), both flips alternating over them, as the
  // medium images do, instead of both flips on each. A flip is the host's: Problem::correlation_filter is
  // flipped before upload and no backend or kernel reads the flag, so both flips of one case ran the same
  // device code on other weights (half the small images' runs, hundreds per variant). Every
  // variant x border x channel count x shape still runs, flipped or not, and both flips run in every
  // variant; test_common checks flipped() and the flipped reference.
  bool small_images_every_flip = false;
  PixelType pixel = PixelType::F32;  // how the frame is stored on the device
  bool trim = true;  // cover every factor without the full product (CI time on 2 cores)
  // Trimmed, the largest image runs radius 1 and, once, the largest radius: the costliest run of all.
  bool largest_radius_on_largest_image = true;
};

// The matrix for 8-bit pixels (docs/correctness.md, "8-bit results"): 1 channel, 3 (padded to RGBA8)
// and 4; integer images 0..255, as 8-bit pixels hold them; filters whose sums leave 0..255 at both
// ends and fall between integers, so saturation and rounding are both exercised (checked: see below).
// Trimmed as the float matrix, and the small images' full product over 1 and 4 channels only: 3 and 4
// channels are one compiled program (RGBA8, the 3 padded on the host by code every variant shares), so
// the full product over 3 repeated 4's programs on the same problems (a third of the 8-bit matrix's runs);
// 3 channels still take their turn on the medium images of every variant, and
// "u8 fast and separable" and "u8: one program per pixel format" (tests/opencl) run 3 on every shape.
// fast, separable and lowrank, built per radius, take four filter shapes, not ten: (1,1), (3,2), (2,1)
// and (6,5), the radii "u8 fast and separable" and the integer-exact u8 case build in the same process
// (tests/CMakeLists.txt's u8 group), so the 8-bit matrix compiles almost nothing of its own. An 8-bit
// program differs from its float twin only in its loads and stores (common/geometry/pixel.h): the float
// matrix checks every radius's program, "u8 fast and separable" every 8-bit scheme and shape, and these
// four run every size (radii over the image included), border, flip and channel count in 8 bits. PoCL
// compiles one of fast's programs in about 4.5 s of CPU, 20 of them a third of the u8 group.
// One flip per (shape, border) on the small images, as the float matrix (small_images_every_flip).
// separable and lowrank take two of the four shapes, (3,2) and (2,1), the ones the integer-exact and
// "u8 fast and separable" cases build too: their 8-bit loads and stores are the same per channel at
// every radius (a pass stages floats on chip, pixel.h's cc_load_channel); (1,1) and (6,5) are the same
// one band at other radii, which the float matrix builds; a filter over the image is 1x1's and 7x5's at
// (3,2) too; and "u8 fast and separable" runs separable's bands (16,12) in 8 bits. Unlike fast's (1,1)
// and (6,5), which that case builds anyway, each was two programs of their own per variant.
// Less the largest radius on the largest image: the float matrix runs
// that one, the medium images run radius 16 in 8 bits (6x5 for those built per radius), and an 8-bit run launches twice (its unwritten
// pixels are found by two poisons, backends/measure.h), which on PoCL's texture path costs a minute.
MatrixOptions eight_bit_matrix();

// Runs `variant` on `device` of `backend` over the matrix, every border mode and flip, random data and
// non-square filters included, validating each result against the CPU reference with the project's
// tolerance rule (doctest CHECKs with the case in the message). For 8-bit pixels it also checks that
// the references it ran held values below 0, above 255 and between integers. Returns the number of
// runs that executed (skips are not counted; a skip is a CHECK failure unless the variant legitimately
// cannot run that case, e.g. separable with a non-separable filter).
int check_variant_matrix(Backend& backend, int device, std::string_view variant,
                         const MatrixOptions& options = {});

// An integer image and integer filter whose sums are exact in float: the result must match the
// reference bit for bit, every border mode and flip (fft: within its FFT bound, as no FFT is exact).
// 8-bit: the rounded reference, bit for bit too, with 1 channel and with 2 (padded to RGBA8).
// Returns how many of its runs executed, as check_variant_matrix does.
int check_integer_exact(Backend& backend, int device, std::string_view variant,
                        PixelType pixel = PixelType::F32);

// measure_peaks on every device of `backend`: finite positive rates, the same figures again from the
// cache, and InputError for a device index past the end.
void check_measured_peaks(Backend& backend);

// One warm-up and two timed launches, the time budget out of the way: the sample count is then the
// repetitions whatever the machine's load (a loaded CI host once took 2 s over the warm-up and timed
// 1 sample). For tests that run a variant to check its result, not its speed.
RunOptions two_samples();

// The bound the driver validates a variant's result with (common/domain/validate.h's tolerance_for_variant).
Tolerance tolerance_of(std::string_view variant, const Problem& problem, const Image& input);

// The variant table's variants `backend` implements, in table order, auto left out (common/domain/variants.h):
// what that backend's variants() must list, so a new table line needs no line in the tests.
std::vector<std::string> table_variants(std::string_view backend);

// The backend named `name` from make_backends(), or nullptr if not compiled in.
std::unique_ptr<Backend> find_backend(std::string_view name);

}  // namespace cc::testing
