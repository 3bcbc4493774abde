// cuda_fft.cpp: cuFFT's side of the `fft` variant: plans with or without the LTO callbacks (built by NVRTC), the transforms, every cufftResult checked.
#include "backends/cuda/cuda_fft.h"

#ifdef CONVCOMPARE_WITH_CUFFT

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <cufft.h>
#include <cufftXt.h>
#include <fmt/format.h>
#include <nvrtc.h>

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_libraries.h"
#include "backends/embedded_sources.h"
#include "common/domain/error.h"

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

// kernels_cuda/fft_callbacks.cu's FftCallbackInfo, field for field: what the callbacks read through
// callerInfo.
struct FftCallbackInfo {
  const float2* filter_spectrum;
  ConvArgs args;
  int padded_pitch;
};

// A callback for cufftXtSetJITCallback: its symbol in fft_callbacks.cu and where cuFFT calls it.
struct JitCallback {
  const char* symbol;
  cufftXtCallbackType type;
};
constexpr JitCallback kMultiplyLoad{"cc_fft_multiply_load", CUFFT_CB_LD_COMPLEX};
constexpr JitCallback kPadLoad{"cc_fft_pad_load", CUFFT_CB_LD_REAL};

[[noreturn]] void throw_nvrtc(nvrtcResult code, const char* call, int line, std::string log = {}) {
  throw ApiError("NVRTC", code, nvrtc().nvrtcGetErrorString(code), call, __FILE__, line, {}, std::move(log));
}

#define CC_FFT_NVRTC(expr)                                                            \
  do {                                                                                \
    const nvrtcResult cc_nvrtc_status = (expr);                                       \
    if (cc_nvrtc_status != NVRTC_SUCCESS) throw_nvrtc(cc_nvrtc_status, #expr, __LINE__); \
  } while (false)

// fft_callbacks.cu as LTO-IR for the current device's architecture (the form cufftXtSetJITCallback
// takes with the dynamic cuFFT library; legacy callbacks need the static one, which CUDA 13 installs
// no more). NVRTC runs once per device and process: every convolver's plans link the same IR.
const std::string& callback_ltoir() {
  static std::mutex mutex;
  static std::map<int, std::string> made;  // device ordinal -> LTO-IR
  const std::lock_guard lock(mutex);
  int device = 0;
  CC_CUDA_CHECK(cudaGetDevice(&device));
  std::string& ltoir = made[device];
  if (!ltoir.empty()) return ltoir;
  int major = 0, minor = 0;
  CC_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CC_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  const auto& sources = embedded_cuda_sources();
  const std::string text = embedded_source(sources, "fft_callbacks.cu");
  const std::string conv_args = embedded_source(sources, "conv_args.h");
  const char* header_texts[] = {conv_args.c_str()};
  const char* header_names[] = {"common/geometry/conv_args.h"};
  nvrtcProgram program = nullptr;
  CC_FFT_NVRTC(nvrtc().nvrtcCreateProgram(&program, text.c_str(), "fft_callbacks.cu", 1, header_texts, header_names));
  const std::unique_ptr<nvrtcProgram, decltype([](nvrtcProgram* p) { nvrtc().nvrtcDestroyProgram(p); })> owned(&program);
  const std::string architecture = fmt::format("--gpu-architecture=compute_{}{}", major, minor);
  // Device code to link into cuFFT's kernels: relocatable, as LTO-IR (-dlto); the math as every other
  // kernel's (--fmad=true, docs/correctness.md).
  const char* options[] = {architecture.c_str(), "-std=c++17", "--fmad=true", "--relocatable-device-code=true",
                           "-dlto"};
  const nvrtcResult compiled = nvrtc().nvrtcCompileProgram(program, static_cast<int>(std::size(options)), options);
  if (compiled != NVRTC_SUCCESS) {
    std::size_t log_size = 0;
    std::string log;
    if (nvrtc().nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
      log.resize(log_size);
      nvrtc().nvrtcGetProgramLog(program, log.data());
      log.resize(log_size - 1);
    }
    throw_nvrtc(compiled, "nvrtc().nvrtcCompileProgram(fft_callbacks.cu, -dlto)", __LINE__, std::move(log));
  }
  std::size_t size = 0;
  CC_FFT_NVRTC(nvrtc().nvrtcGetLTOIRSize(program, &size));
  std::string compiled_ir(size, '\0');
  CC_FFT_NVRTC(nvrtc().nvrtcGetLTOIR(program, compiled_ir.data()));
  ltoir = std::move(compiled_ir);
  return ltoir;
}

// Makes `plan` a 2D plan over transform_height x transform_width with the layout spelled out: real rows
// of real_pitch floats (the image's rows out of place, the padded rows in place), complex rows of
// complex_width numbers. No work area of its own: the plans share one (they never run at the same
// time); `work_bytes` says how much this one needs. `callback`, where given, is set before the plan is
// made (cuFFT links it in then: its LTO callback documentation), reading the device address at
// `callback_info`, which outlives the plan (cufftXtSetJITCallback takes the address of the pointer).
// Returns the status of cufftXtSetJITCallback or cufftMakePlanMany64, the calls a callback can fail,
// and `failed_call` names which; every other failure throws.
cufftResult plan_into(FftPlan& plan, const FftShape& shape, cufftType type, std::size_t& work_bytes,
                      const JitCallback* callback, void** callback_info, const char*& failed_call) {
  cufftHandle handle = 0;
  CC_CUFFT_CHECK(cufft().cufftCreate(&handle));
  plan = FftPlan(handle);
  CC_CUFFT_CHECK(cufft().cufftSetAutoAllocation(handle, 0));
  if (callback) {
    const std::string& ltoir = callback_ltoir();
    failed_call = "cufftXtSetJITCallback";
    const cufftResult set = cufft().cufftXtSetJITCallback(handle, callback->symbol, ltoir.data(), ltoir.size(),
                                                          callback->type, callback_info);
    if (set != CUFFT_SUCCESS) return set;
  }
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
  failed_call = "cufftMakePlanMany64";
  return cufft().cufftMakePlanMany64(handle, 2, sizes, in.rows, 1, in.distance, out.rows, 1, out.distance, type, 1,
                                     &work_bytes);
}

// A plan without callbacks, where any failure throws.
FftPlan make_plan(const FftShape& shape, cufftType type, std::size_t& work_bytes) {
  FftPlan plan;
  const char* call = "";
  check(plan_into(plan, shape, type, work_bytes, nullptr, nullptr, call), "cufftMakePlanMany64", __FILE__, __LINE__);
  return plan;
}

// What fft_fusion_text reports, by shape (fft_shape_text), and which shapes cuFFT could not plan with
// callbacks on which device, so later convolvers skip the failing link (it costs setup time each try).
struct FusionRecord {
  std::mutex mutex;
  std::map<std::string, std::string> text;                   // shape -> fft_fusion_text
  std::map<std::pair<int, std::string>, std::string> failed;  // (device, shape) -> not_fused()
};
FusionRecord& fusion_record() {
  static FusionRecord record;
  return record;
}

int current_device() {
  int device = 0;
  CC_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

}  // namespace

FftPlan::~FftPlan() {
  if (handle_ != kNone) cufft().cufftDestroy(handle_);  // status ignored: see cuda_resources.h
}

FftPlan& FftPlan::operator=(FftPlan&& other) noexcept {
  std::swap(handle_, other.handle_);
  return *this;
}

FftFusion default_fft_fusion() {
  const char* callbacks = std::getenv("CONVCOMPARE_CUDA_FFT_CALLBACKS");
  return callbacks != nullptr && std::string_view(callbacks) == "1" ? FftFusion::Callbacks : FftFusion::Separate;
}

FftProduct CufftLibrary::plan(const FftShape& shape, const ConvArgs& args, const float* filter_spectrum) {
  shape_ = shape;
  args_ = args;
  const std::string shape_text = fft_shape_text(shape_);
  const std::pair<int, std::string> key{current_device(), shape_text};
  if (fusion_ == FftFusion::Separate) {
    not_fused_ = "separate passes asked for";
  } else {
    const std::lock_guard lock(fusion_record().mutex);
    if (const auto known = fusion_record().failed.find(key); known != fusion_record().failed.end())
      not_fused_ = known->second;
  }
  std::size_t work_bytes = 0;
  if (not_fused_.empty() && !plan_fused(filter_spectrum, work_bytes)) {
    const std::lock_guard lock(fusion_record().mutex);
    fusion_record().failed[key] = not_fused_;
  }
  if (!not_fused_.empty()) plan_separate(work_bytes);
  {
    const std::lock_guard lock(fusion_record().mutex);
    fusion_record().text[shape_text] = fused() ? "the product (and padding) LTO callbacks"
                                       : fusion_ == FftFusion::Separate
                                           ? "fft_pad and fft_multiply passes"
                                           : "not fused: " + not_fused_ + "; fft_pad and fft_multiply passes";
  }
  if (work_bytes > 0) {
    work_area_ = DeviceBuffer((work_bytes + sizeof(float) - 1) / sizeof(float));
    for (const FftPlan* plan : {&forward_, &inverse_, &filter_plan_})
      if (*plan) CC_CUFFT_CHECK(cufft().cufftSetWorkArea(plan->get(), work_area_.get()));
  }
  return fused() ? FftProduct::Callbacks : FftProduct::Pass;
}

// The product inside the inverse transform's loads; on the padded path the padding inside the forward
// one's, which then reads the image plane itself (kernels_cuda/fft_callbacks.cu), and the filter's
// spectrum goes through a plain plan of its own. False, with not_fused_ saying why, where cuFFT refuses
// a callback: the plans made so far are dropped (LTO callbacks cannot be unset from a plan).
bool CufftLibrary::plan_fused(const float* filter_spectrum, std::size_t& work_bytes) {
  FftCallbackInfo info{reinterpret_cast<const float2*>(filter_spectrum), args_, shape_.real_pitch};
  callback_info_ = DeviceBuffer((sizeof(info) + sizeof(float) - 1) / sizeof(float));
  callback_info_address_ = callback_info_.get();
  CC_CUDA_CHECK(cudaMemcpyAsync(callback_info_.get(), &info, sizeof(info), cudaMemcpyHostToDevice, setup_stream_));
  CC_CUDA_CHECK(cudaStreamSynchronize(setup_stream_));  // `info` lives on this frame
  std::size_t forward_work = 0, inverse_work = 0, filter_work = 0;
  const char* call = "";
  const char* which = "the padding's callback";
  cufftResult status = CUFFT_SUCCESS;
  if (shape_.circular)
    forward_ = make_plan(shape_, CUFFT_R2C, forward_work);
  else
    status = plan_into(forward_, shape_, CUFFT_R2C, forward_work, &kPadLoad, &callback_info_address_, call);
  if (status == CUFFT_SUCCESS) {
    which = "the product's callback";
    status = plan_into(inverse_, shape_, CUFFT_C2R, inverse_work, &kMultiplyLoad, &callback_info_address_, call);
  }
  if (status != CUFFT_SUCCESS) {
    // Only the plans with a callback get here failed (make_plan throws).
    cudaGetLastError();  // as check(): no stale runtime error from cuFFT's failed link left behind
    not_fused_ = fmt::format("{} from {} ({})", status_name(status), call, which);
    forward_ = FftPlan();
    inverse_ = FftPlan();
    callback_info_ = DeviceBuffer();
    callback_info_address_ = nullptr;
    return false;
  }
  if (!shape_.circular) filter_plan_ = make_plan(shape_, CUFFT_R2C, filter_work);
  work_bytes = std::max({forward_work, inverse_work, filter_work});
  return true;
}

// Plain plans both ways, for fft_pad and fft_multiply as passes of their own.
void CufftLibrary::plan_separate(std::size_t& work_bytes) {
  std::size_t forward_work = 0, inverse_work = 0;
  forward_ = make_plan(shape_, CUFFT_R2C, forward_work);
  inverse_ = make_plan(shape_, CUFFT_C2R, inverse_work);
  work_bytes = std::max(forward_work, inverse_work);
}

void CufftLibrary::forward_filter(const float* real, float* spectrum) const {
  const cufftHandle plan = filter_plan_ ? filter_plan_.get() : forward_.get();
  CC_CUFFT_CHECK(cufft().cufftSetStream(plan, setup_stream_));
  CC_CUFFT_CHECK(cufft().cufftExecR2C(plan, const_cast<float*>(real), reinterpret_cast<cufftComplex*>(spectrum)));
}

void CufftLibrary::finish() {
  finish_stream(setup_stream_);
  filter_plan_ = FftPlan();
}

// cuFFT takes no const input; its out-of-place real-to-complex transform leaves the input as it was.
void CufftLibrary::forward(const float* real, float* spectrum, cudaStream_t stream) const {
  CC_CUFFT_CHECK(cufft().cufftSetStream(forward_.get(), stream));
  CC_CUFFT_CHECK(cufft().cufftExecR2C(forward_.get(), const_cast<float*>(real), reinterpret_cast<cufftComplex*>(spectrum)));
}

void CufftLibrary::inverse(const float* spectrum, float* real, cudaStream_t stream) const {
  CC_CUFFT_CHECK(cufft().cufftSetStream(inverse_.get(), stream));
  CC_CUFFT_CHECK(cufft().cufftExecC2R(inverse_.get(), reinterpret_cast<cufftComplex*>(const_cast<float*>(spectrum)), real));
}

std::string fft_fusion_text(const FftShape& shape) {
  const std::lock_guard lock(fusion_record().mutex);
  const auto found = fusion_record().text.find(fft_shape_text(shape));
  return found == fusion_record().text.end() ? "" : found->second;
}

}  // namespace cc::cuda

#endif  // CONVCOMPARE_WITH_CUFFT
