// cuda_fft.cpp: the `fft` variant's cuFFT plans and per-plane sequence, every cufftResult checked.
#include "backends/cuda/cuda_fft.h"

#ifdef CONVCOMPARE_WITH_CUFFT

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_libraries.h"
#include "common/domain/error.h"
#include "kernels_cuda/launchers.h"

namespace cc::cuda {

namespace {

// cuFFT has no function that names its codes; these are the ones every CUDA 12 and 13 cufft.h has.
std::string status_name(cufftResult status) {
  switch (status) {
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "cufftResult " + std::to_string(static_cast<int>(status));
  }
}

void check(cufftResult status, const char* call, const char* file, int line) {
  if (status == CUFFT_SUCCESS) return;
  cudaGetLastError();  // cuFFT launches kernels too: leave no stale runtime error behind
  throw ApiError("cuFFT", static_cast<long>(status), status_name(status), call, file, line);
}

#define CC_CUFFT_CHECK(expr) check((expr), #expr, __FILE__, __LINE__)

// A 2D plan over transform_height x transform_width with the layout spelled out: real rows of
// real_pitch floats (the image's rows out of place, the padded rows in place), complex rows of
// complex_width numbers. No work area of its own: the two plans share one (they never run at the
// same time); `work_bytes` says how much this one needs.
FftPlan make_plan(const FftShape& shape, cufftType type, std::size_t& work_bytes) {
  cufftHandle handle = 0;
  CC_CUFFT_CHECK(cufft().cufftCreate(&handle));
  FftPlan plan(handle);
  CC_CUFFT_CHECK(cufft().cufftSetAutoAllocation(handle, 0));
  long long sizes[] = {shape.transform_height, shape.transform_width};
  long long real_rows[] = {shape.transform_height, shape.real_pitch};
  long long complex_rows[] = {shape.transform_height, shape.complex_width()};
  struct Layout {
    long long* rows;     // the embedding: rows of this many elements
    long long distance;  // elements from one transform to the next (one transform here)
  };
  const Layout real_data{real_rows, static_cast<long long>(shape.real_floats())};
  const Layout complex_data{complex_rows, static_cast<long long>(shape.complex_count())};
  const Layout& in = type == CUFFT_R2C ? real_data : complex_data;
  const Layout& out = type == CUFFT_R2C ? complex_data : real_data;
  CC_CUFFT_CHECK(cufft().cufftMakePlanMany64(handle, 2, sizes, in.rows, 1, in.distance, out.rows, 1, out.distance,
                                             type, 1, &work_bytes));
  return plan;
}

}  // namespace

FftPlan::~FftPlan() {
  if (handle_ != kNone) cufft().cufftDestroy(handle_);  // status ignored: see cuda_resources.h
}

FftPlan& FftPlan::operator=(FftPlan&& other) noexcept {
  std::swap(handle_, other.handle_);
  return *this;
}

FftConvolver::FftConvolver(const Problem& problem, cudaStream_t stream)
    : args_(problem.conv_args()), shape_(fft_shape(problem)) {
  std::size_t forward_work = 0, inverse_work = 0;
  forward_ = make_plan(shape_, CUFFT_R2C, forward_work);
  inverse_ = make_plan(shape_, CUFFT_C2R, inverse_work);
  const std::size_t work_bytes = std::max(forward_work, inverse_work);
  if (work_bytes > 0) {
    work_area_ = DeviceBuffer((work_bytes + sizeof(float) - 1) / sizeof(float));
    CC_CUFFT_CHECK(cufft().cufftSetWorkArea(forward_.get(), work_area_.get()));
    CC_CUFFT_CHECK(cufft().cufftSetWorkArea(inverse_.get(), work_area_.get()));
  }
  spectrum_ = DeviceBuffer(shape_.buffer_floats());
  filter_spectrum_ = DeviceBuffer(shape_.buffer_floats());

  // The filter's spectrum: its reversed, scaled placement transformed by the same plan, in place on
  // the padded path, out of place from the spectrum buffer (larger than a plane) on the unpadded one.
  const std::vector<float> filter = fft_filter_buffer(problem.correlation_filter, shape_);
  float* filter_input = shape_.circular ? spectrum_.get() : filter_spectrum_.get();
  CC_CUDA_CHECK(cudaMemcpyAsync(filter_input, filter.data(), filter.size() * sizeof(float), cudaMemcpyHostToDevice,
                                stream));
  CC_CUFFT_CHECK(cufft().cufftSetStream(forward_.get(), stream));
  CC_CUFFT_CHECK(
      cufft().cufftExecR2C(forward_.get(), filter_input, reinterpret_cast<cufftComplex*>(filter_spectrum_.get())));
  std::vector<float> coefficients;
  if (shape_.edge_bands) {
    coefficients = fft_band_coefficients(problem.correlation_filter);
    band_coefficients_ = DeviceBuffer(coefficients.size());
    CC_CUDA_CHECK(cudaMemcpyAsync(band_coefficients_.get(), coefficients.data(), band_coefficients_.bytes(),
                                  cudaMemcpyHostToDevice, stream));
    band_column_length_ = fft_band_column_length(problem.correlation_filter.height);
    band_blocks_ = fft_band_blocks(args_, cuda_kernels::kFftBandBlockX, cuda_kernels::kFftBandBlockY);
  }
  finish_stream(stream);  // `filter` and `coefficients` are freed on return
}

void FftConvolver::convolve_plane(const float* in, float* out, cudaStream_t stream) {
  namespace kernels = cuda_kernels;
  const auto* filter_spectrum = reinterpret_cast<const float2*>(filter_spectrum_.get());
  const int count = static_cast<int>(shape_.complex_count());
  CC_CUFFT_CHECK(cufft().cufftSetStream(forward_.get(), stream));
  CC_CUFFT_CHECK(cufft().cufftSetStream(inverse_.get(), stream));
  if (shape_.circular) {
    auto* spectrum = reinterpret_cast<cufftComplex*>(spectrum_.get());
    // cuFFT takes no const input; an out-of-place real-to-complex transform leaves it as it was.
    CC_CUFFT_CHECK(cufft().cufftExecR2C(forward_.get(), const_cast<float*>(in), spectrum));
    CC_CUDA_CHECK(kernels::launch_fft_multiply(spectrum, filter_spectrum, count, stream));
    CC_CUFFT_CHECK(cufft().cufftExecC2R(inverse_.get(), spectrum, out));
    if (shape_.edge_bands)
      CC_CUDA_CHECK(kernels::launch_fft_bands(in, out, band_coefficients_.get(), band_column_length_, args_,
                                              band_blocks_, stream));
    return;
  }
  float* padded = spectrum_.get();
  auto* spectrum = reinterpret_cast<cufftComplex*>(padded);
  CC_CUDA_CHECK(kernels::launch_fft_pad(in, padded, args_, shape_.transform_height, shape_.real_pitch, stream));
  CC_CUFFT_CHECK(cufft().cufftExecR2C(forward_.get(), padded, spectrum));
  CC_CUDA_CHECK(kernels::launch_fft_multiply(spectrum, filter_spectrum, count, stream));
  CC_CUFFT_CHECK(cufft().cufftExecC2R(inverse_.get(), spectrum, padded));
  CC_CUDA_CHECK(kernels::launch_fft_crop(padded, out, args_, shape_.real_pitch, stream));
}

}  // namespace cc::cuda

#endif  // CONVCOMPARE_WITH_CUFFT
