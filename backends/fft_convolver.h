// fft_convolver.h: the `fft` variant's one correlation through the frequency domain, plane by plane, over an FFT library's translation.
#pragma once

#include <concepts>
#include <cstddef>
#include <utility>
#include <vector>

#include "backends/launch_plan.h"
#include "common/domain/problem.h"
#include "common/geometry/conv_args.h"
#include "common/geometry/fft_shape.h"

namespace cc {

// Where the product with the filter's spectrum is made. The plain transforms around fft_multiply are
// written once, below; a fused product is the library's own step (fused_transforms), because the two
// libraries fuse differently: cuFFT links callbacks into the loads of its two transforms, VkFFT runs a
// whole convolution in one call (docs/performance.md, "fft: the product fused into the transforms").
enum class FftProduct {
  Pass,         // fft_multiply between plain transforms; on the padded path fft_pad before them
  Callbacks,    // cuFFT's LTO callbacks: the product in the inverse's loads; padded, the padding in the forward's
  Convolution,  // VkFFT's convolution: forward, product and inverse in one call, into the spectrum buffer's real rows
};

// What a library translates for the convolver (cuda_fft.h's CufftLibrary, opencl_fft.h's VkFftLibrary), and
// nothing else. Setup calls run on the queue the library was made with, queued, until finish(); a plane's on
// its `queue`. Input / Output: a plane as the library's kernels and transforms take it, read / written.
template <typename L>
concept FftLibrary = std::convertible_to<typename L::Output, typename L::Input> &&
    requires(L& library, const L& made, const typename L::Buffer& buffer, typename L::Input in,
             typename L::Output out, typename L::Queue queue, const FftShape& shape, const ConvArgs& args,
             const std::vector<float>& values, std::size_t bytes, int count) {
      { L::data(buffer) } -> std::same_as<typename L::Output>;  // the library's memory as a plane
      { library.allocate(bytes) } -> std::same_as<typename L::Buffer>;
      { library.constants(values) } -> std::same_as<typename L::Buffer>;  // read-only, holding `values`
      { library.plan(shape, args, in) } -> std::same_as<FftProduct>;  // `in`: where the filter's spectrum will be
      library.write(out, values);
      library.forward_filter(in, out);  // the filter's placement (real rows) into its spectrum
      library.finish();                 // waits for the setup; what only the filter's spectrum needed is freed
      { made.bytes() } -> std::same_as<std::size_t>;  // device memory held beyond the convolver's buffers
      { made.band_group() } -> std::same_as<GroupShape>;  // the edge bands' launch group
      library.forward(in, out, queue);                // a real plane into the spectrum buffer
      library.inverse(in, out, queue);                // the spectrum buffer into a real plane, unnormalized
      library.fused_transforms(in, out, in, out, queue);  // real, spectrum, filter's spectrum, result
      library.pad(in, out, args, count, count, queue);    // fft.cu / fft.cl's kernels, their arguments
      library.multiply(out, in, count, queue);
      library.crop(in, out, args, count, queue);
      library.bands(in, out, in, count, args, count, queue);
      library.mark(queue);  // a command of no work where a transform would come first or last, or nothing
    };

// One problem's correlation, one plane at a time, on the path common/geometry/fft_shape.h chooses.
// Unpadded: transforms from the input plane into the output plane, then the edge bands redone directly
// (borders other than wrap). Padded: pad by the border rule, transforms in place, crop. Constructing it
// allocates the buffers, has the library choose where the product is made, and computes the filter's
// spectrum once for every plane and repetition of the frame, then waits.
template <FftLibrary Library>
class FftConvolver {
 public:
  using Input = typename Library::Input;
  using Output = typename Library::Output;
  using Queue = typename Library::Queue;

  // `library_setup`: the library's own constructor's arguments (its setup queue, and what it launches with).
  template <typename... LibrarySetup>
  explicit FftConvolver(const Problem& problem, LibrarySetup&&... library_setup)
      : args_(problem.conv_args()),
        zero_apron_args_(args_),
        shape_(fft_shape(problem)),
        library_(std::forward<LibrarySetup>(library_setup)...),
        spectrum_(library_.allocate(shape_.buffer_bytes())),
        filter_spectrum_(library_.allocate(shape_.buffer_bytes())) {
    zero_apron_args_.radius_x = zero_apron_args_.radius_y = 0;
    product_ = library_.plan(shape_, args_, Library::data(filter_spectrum_));
    // The filter's spectrum: its reversed placement transformed in place on the padded path, out of
    // place from the spectrum buffer (larger than a plane) on the unpadded one. VkFFT's convolution
    // normalizes the inverse itself (fft_shape.h's FftInverse).
    const std::vector<float> filter = fft_filter_buffer(
        problem.correlation_filter, shape_,
        product_ == FftProduct::Convolution ? FftInverse::Normalized : FftInverse::Unnormalized);
    const Output filter_input = shape_.circular ? spectrum() : Library::data(filter_spectrum_);
    library_.write(filter_input, filter);
    library_.forward_filter(filter_input, Library::data(filter_spectrum_));
    std::vector<float> coefficients;
    if (shape_.edge_bands) {
      coefficients = fft_band_coefficients(problem.correlation_filter);
      band_coefficients_ = library_.constants(coefficients);
      band_column_length_ = fft_band_column_length(problem.correlation_filter.height);
      const GroupShape group = library_.band_group();
      band_blocks_ = fft_band_blocks(args_, static_cast<int>(group.x), static_cast<int>(group.y));
    }
    library_.finish();  // `filter` and `coefficients` are freed on return
  }

  // One plane: problem.width x problem.height floats, rows packed. Queued, not waited for; `in` is only
  // read. Its first and last commands are kernels of ours or marks, so a span around it brackets the
  // transforms too.
  void convolve_plane(Input in, Output out, Queue queue) {
    if (shape_.circular) {
      library_.mark(queue);
      if (product_ == FftProduct::Convolution) {
        // The convolution's result is in the spectrum buffer's real rows (VkFFT 1.2.26's convolution
        // overruns a separate output: writes past the plane's end on PoCL, valgrind), so the plane is
        // written by fft_crop with no apron.
        transforms(in, spectrum(), queue);
        library_.crop(spectrum(), out, zero_apron_args_, 2 * shape_.complex_width(), queue);
      } else {
        transforms(in, out, queue);
        if (!shape_.edge_bands) library_.mark(queue);
      }
      if (shape_.edge_bands)
        library_.bands(in, out, Library::data(band_coefficients_), band_column_length_, args_, band_blocks_, queue);
      return;
    }
    if (product_ == FftProduct::Callbacks) {
      transforms(in, spectrum(), queue);  // the forward transform's padding callback reads the image plane
    } else {
      library_.pad(in, spectrum(), args_, shape_.transform_height, shape_.real_pitch, queue);
      transforms(spectrum(), spectrum(), queue);
    }
    library_.crop(spectrum(), out, args_, shape_.real_pitch, queue);
  }

  // The device memory held beyond what the plan counted (the spectrum and filter-spectrum buffers and
  // the edge bands' coefficients, backends/launch_plan.cpp): the library's work areas.
  std::size_t library_bytes() const { return library_.bytes(); }

  const FftShape& shape() const { return shape_; }
  bool fused() const { return product_ != FftProduct::Pass; }
  const Library& library() const { return library_; }

 private:
  Output spectrum() const { return Library::data(spectrum_); }

  // The forward transform from `real`, the product with the filter's spectrum, the inverse into `result`.
  void transforms(Input real, Output result, Queue queue) {
    if (product_ != FftProduct::Pass)
      return library_.fused_transforms(real, spectrum(), Library::data(filter_spectrum_), result, queue);
    library_.forward(real, spectrum(), queue);
    library_.multiply(spectrum(), Library::data(filter_spectrum_), static_cast<int>(shape_.complex_count()), queue);
    library_.inverse(spectrum(), result, queue);
  }

  ConvArgs args_, zero_apron_args_;
  FftShape shape_;
  Library library_;
  typename Library::Buffer spectrum_, filter_spectrum_, band_coefficients_;
  FftProduct product_ = FftProduct::Pass;
  int band_column_length_ = 0, band_blocks_ = 0;
};

}  // namespace cc
