// opencl_fft.cpp: VkFFT's side of the `fft` variant (OpenCL backend): its plans, transforms and convolution, every result checked.
#include "backends/opencl/opencl_fft.h"

#ifdef CONVCOMPARE_WITH_VKFFT

#include <chrono>
#include <string>
#include <utility>

#include <fmt/format.h>

#define VKFFT_BACKEND 3  // OpenCL; VkFFT is header-only and compiled once, here
#include <vkFFT.h>

#include "backends/opencl/cl_api.h"
#include "common/domain/error.h"

namespace cc::opencl {

namespace {

// VkFFT 1.2 has no function that names its codes; these are the ones its OpenCL path returns.
std::string result_name(VkFFTResult result) {
  switch (result) {
    case VKFFT_ERROR_MALLOC_FAILED: return "VKFFT_ERROR_MALLOC_FAILED";
    case VKFFT_ERROR_INVALID_DEVICE: return "VKFFT_ERROR_INVALID_DEVICE";
    case VKFFT_ERROR_INVALID_CONTEXT: return "VKFFT_ERROR_INVALID_CONTEXT";
    case VKFFT_ERROR_UNSUPPORTED_RADIX: return "VKFFT_ERROR_UNSUPPORTED_RADIX";
    case VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH: return "VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH";
    case VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2C: return "VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2C";
    case VKFFT_ERROR_FAILED_TO_ALLOCATE: return "VKFFT_ERROR_FAILED_TO_ALLOCATE";
    case VKFFT_ERROR_FAILED_TO_GET_ATTRIBUTE: return "VKFFT_ERROR_FAILED_TO_GET_ATTRIBUTE";
    case VKFFT_ERROR_FAILED_TO_CREATE_PROGRAM: return "VKFFT_ERROR_FAILED_TO_CREATE_PROGRAM";
    case VKFFT_ERROR_FAILED_TO_COMPILE_PROGRAM: return "VKFFT_ERROR_FAILED_TO_COMPILE_PROGRAM";
    case VKFFT_ERROR_FAILED_TO_CREATE_PIPELINE: return "VKFFT_ERROR_FAILED_TO_CREATE_PIPELINE";
    case VKFFT_ERROR_FAILED_TO_SET_KERNEL_ARG: return "VKFFT_ERROR_FAILED_TO_SET_KERNEL_ARG";
    case VKFFT_ERROR_FAILED_TO_LAUNCH_KERNEL: return "VKFFT_ERROR_FAILED_TO_LAUNCH_KERNEL";
    default: return "VkFFTResult " + std::to_string(static_cast<int>(result));
  }
}

void check(VkFFTResult result, const char* call, const char* file, int line, std::string detail = {}) {
  if (result != VKFFT_SUCCESS) throw ApiError("VkFFT", result, result_name(result), call, file, line, std::move(detail));
}

#define CC_VKFFT_CHECK(expr) check((expr), #expr, __FILE__, __LINE__)

}  // namespace

struct VkFftPlan::Application {
  VkFFTApplication vkfft = {};
  ~Application() { deleteVkFFT(&vkfft); }  // idempotent: it nulls what it frees, a failed initialization too
};

VkFftPlan::VkFftPlan(const cl::Device& device, const cl::Context& context, const cl::CommandQueue& queue,
                     const FftShape& shape)
    : transform_application_(std::make_unique<Application>()),
      correlation_application_(std::make_unique<Application>()),
      device_(device()),
      context_(context()),
      queue_(queue()),
      buffer_bytes_(shape.buffer_bytes()),
      real_bytes_(shape.real_floats() * sizeof(float)),
      out_of_place_(shape.circular) {
  VkFFTConfiguration configuration = {};
  configuration.FFTdim = 2;
  configuration.size[0] = static_cast<uint64_t>(shape.transform_width);
  configuration.size[1] = static_cast<uint64_t>(shape.transform_height);
  configuration.performR2C = 1;  // in place: rows of real_pitch floats, as FftShape lays them out
  if (out_of_place_) {  // the real rows are a plane's, apart from the half spectrum in `buffer`
    configuration.isInputFormatted = 1;
    configuration.inputBuffer = &input_;
    configuration.inputBufferSize = &real_bytes_;
    configuration.inputBufferStride[0] = static_cast<uint64_t>(shape.real_pitch);
    configuration.inputBufferStride[1] = static_cast<uint64_t>(shape.real_floats());
  }
  configuration.device = &device_;
  configuration.context = &context_;
  configuration.commandQueue = &queue_;  // used while planning only for Bluestein lengths, never ours
  configuration.buffer = &buffer_;
  configuration.bufferSize = &buffer_bytes_;
  configuration.userTempBuffer = 1;  // each convolver brings its own, so concurrent queues share none
  configuration.tempBuffer = &temporary_;
  configuration.tempBufferSize = &buffer_bytes_;
  const auto initialize = [&](Application& application, const VkFFTConfiguration& made, const char* what) {
    const VkFFTResult result = initializeVkFFT(&application.vkfft, made);
    check(result, "initializeVkFFT(&application, configuration)", __FILE__, __LINE__,
          fmt::format("{} of {}", what, fft_shape_text(shape)));
  };
  const auto start = std::chrono::steady_clock::now();
  // The correlation. VkFFT's convolution always divides by the last axis's length in the stage that
  // multiplies; `normalize` has the first axis's inverse divide by its own, so the filter's spectrum
  // is unscaled (FftInverse::Normalized).
  VkFFTConfiguration correlation = configuration;
  correlation.performConvolution = 1;
  correlation.normalize = 1;
  correlation.kernel = &kernel_;
  correlation.kernelSize = &buffer_bytes_;
  // A row too long for one pass through local memory makes VkFFT split the real-to-complex step off
  // (multiUploadR2C), and its convolution is then wrong: 640x20 on Oclgrind with 2 KB of local memory
  // missed by 86 (wrap border), where 20x640 (the column axis split) validated. Such a shape, or a
  // device where the convolution cannot be planned at all, keeps the separate passes: one plain
  // application, forward and inverse, and fft.cl's product between (compile_time says which ran).
  const VkFFTApplication& convolution = correlation_application_->vkfft;
  fused_ = initializeVkFFT(&correlation_application_->vkfft, correlation) == VKFFT_SUCCESS &&
           !convolution.localFFTPlan->multiUploadR2C &&
           !(convolution.localFFTPlan_inverse && convolution.localFFTPlan_inverse->multiUploadR2C);
  VkFFTConfiguration transforms = configuration;
  if (fused_) {
    // VkFFT lays a spectrum out for its convolution as the convolution's own forward stages do (no
    // four-step reordering, no register boost), which kernelConvolution asks for.
    transforms.kernelConvolution = 1;
  } else {
    correlation_application_.reset();
    transforms.inverseReturnToInputBuffer = out_of_place_ ? 1 : 0;  // the inverse writes where the forward read
  }
  initialize(*transform_application_, transforms, fused_ ? "the filter's real-to-complex transform" : "the transforms");
  build_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

VkFftPlan::~VkFftPlan() = default;

bool VkFftPlan::needs_temporary() const {
  for (const Application* application : {transform_application_.get(), correlation_application_.get()}) {
    if (!application) continue;
    const VkFFTApplication& vkfft = application->vkfft;
    for (int axis = 0; axis < 2; ++axis) {
      if (vkfft.localFFTPlan->numAxisUploads[axis] > 1 || vkfft.useBluesteinFFT[axis]) return true;
      if (vkfft.localFFTPlan_inverse && vkfft.localFFTPlan_inverse->numAxisUploads[axis] > 1) return true;
    }
  }
  return false;
}

void VkFftPlan::transform(const cl::CommandQueue& queue, const cl::Buffer& real, const cl::Buffer& spectrum,
                          const cl::Buffer& temporary, int direction) {
  append(*transform_application_, direction, queue, real, spectrum, temporary, nullptr);
}

void VkFftPlan::correlate(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& spectrum,
                          const cl::Buffer& filter_spectrum, const cl::Buffer& temporary) {
  // The forward direction: with performConvolution it runs the inverse as well.
  append(*correlation_application_, -1, queue, in, spectrum, temporary, &filter_spectrum);
}

void VkFftPlan::append(Application& application, int direction, const cl::CommandQueue& queue, const cl::Buffer& in,
                       const cl::Buffer& spectrum, const cl::Buffer& temporary, const cl::Buffer* filter_spectrum) {
  queue_ = queue();
  input_ = in();
  buffer_ = spectrum();
  temporary_ = temporary();
  VkFFTLaunchParams launch = {};
  launch.commandQueue = &queue_;
  launch.buffer = &buffer_;
  launch.tempBuffer = &temporary_;
  if (filter_spectrum) {
    kernel_ = (*filter_spectrum)();
    launch.kernel = &kernel_;
  }
  if (out_of_place_) launch.inputBuffer = &input_;
  CC_VKFFT_CHECK(VkFFTAppend(&application.vkfft, direction, &launch));
}

}  // namespace cc::opencl

#endif  // CONVCOMPARE_WITH_VKFFT
