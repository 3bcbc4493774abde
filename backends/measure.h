// measure.h: the one measurement protocol and the one stream protocol, the same for CUDA and OpenCL (docs/architecture.md).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "backends/backend.h"
#include "backends/device_api.h"
#include "common/geometry/peak_shape.h"

namespace cc {

// Sets a variant up on `queue` (filter uploads queued there): part of the setup time.
using PrepareVariant = std::function<std::unique_ptr<PreparedVariant>(DeviceQueue& queue)>;

// One variant on one device, timed the same way in every API (docs/architecture.md, "Measurement"):
//  1. setup on the host clock: the variant (filter upload, opt-ins), one frame's device memory and the
//     host buffers; an out-of-memory failure here is a skip with `planned_bytes` in the reason;
//  2. the upload in one span;
//  3. warm-up launches (RunOptions::warm_up, which also sizes the first round to the time budget);
//  4. the output poisoned with NaN, so a pixel no timed launch writes fails validation;
//  5. one span per launch, queued back to back in rounds, nothing waiting between them inside a round,
//     until the stopping rule (sample_until_stopped, common/domain/stats.h) stops them: the samples,
//     kept raw, and the rule that stopped them. With RunOptions::cold a scratch buffer of
//     cold_scratch_bytes() is overwritten before each launch, outside its span (queued, not waited
//     for): the launch finds none of its data in the device's cache;
//  6. one span around that many launches back to back (fewer when the budget has no room left): the
//     batch figure;
//  7. the download in one span; the result is the run's output;
//  8. upload, launch and download on the host clock (host to host), then launch and download again
//     (seed 000's reuse of an image already on the device).
// One time budget bounds steps 1 to 8 (RunBudget, backends/backend.h): the samples get what the setup
// and warm-ups left of it, less two launches and the transfers kept for step 8; the batch and step 8
// run only while some is left, and those it stops are listed in PhaseTimes::budget_skipped.
// A span the device reports as zero or implausibly short marks the run untimed (PhaseTimes::untimed)
// instead of giving figures. --memory mapped and managed (RunOptions::memory) keep the frame in memory the
// host and the kernel both reach (PreparedVariant::host_view): the upload and download hand it over
// (managed: a prefetch or SVM unmap / map, timed as h2d and d2h; mapped: not timed, nothing crosses
// until the kernel reads it, so the kernel's spans hold the host-link traffic). 8-bit pixels have no NaN: the output is poisoned again with zeros and
// launched once more after step 8, and a pixel that differs between the two was never written (NaN
// in the output). The caller fills compile_time and build_ms.
BackendRun measure_run(DeviceSession& session, const PrepareVariant& prepare, const Problem& problem,
                       const Image& input, std::size_t planned_bytes, const RunOptions& options);

// `frames` copies of `input` through upload, launch and download on kStreamSlots queues, so that one
// frame's upload, another's launch and a third's download overlap; the last frame's output is returned
// for validation, and one frame alone is timed in spans for the serial and PCIe-floor figures.
inline constexpr int kStreamSlots = 3;
StreamRun measure_stream(DeviceSession& session, const PrepareVariant& prepare, const Problem& problem,
                         const Image& input, int frames, const RunOptions& options);

// The same protocol with the frames dealt over several devices of one API (--stream with two or more
// --device: docs/multi-device.md): kStreamSlots slots per device, each its own queue, device frame and
// host buffers (pinned by its own device's session), frame i on device i % devices (round robin; every
// slot waits only for its own previous frame). The serial and PCIe-floor figures are the first device's;
// StreamRun::frames_per_device counts what each device got. One device is the protocol above.
struct StreamDevice {
  DeviceSession& session;
  PrepareVariant prepare;
};
StreamRun measure_stream(std::span<StreamDevice> devices, const Problem& problem, const Image& input, int frames,
                         const RunOptions& options);

// --cold's scratch: twice the cache the API reports, and never under 64 MB, since some runtimes report
// a first-level cache or nothing (0) for CL_DEVICE_GLOBAL_MEM_CACHE_SIZE.
inline constexpr std::size_t kLeastColdScratchBytes = std::size_t{64} << 20;
std::size_t cold_scratch_bytes(std::size_t cache_bytes);

// The fastest of `timed` spans of `launch` after one untimed launch (first touch and clock ramp-up stay
// out): a device's ceiling is what it can do, not what it does on average. For the peak kernels.
double best_span_ms(DeviceQueue& queue, const std::function<void()>& launch, int timed);

// The ceilings from the best spans of the copy and FMA peak kernels run in `shape`, or none with the
// reason when either span cannot be real: a made-up ceiling would make every "% bound" up too.
DevicePeaks peaks_from_spans(const PeakShape& shape, double copy_ms, double fma_ms);

// Why a span of `ms` that moved `bytes` over the host link (0: a kernel) cannot be real, or "" when it
// can: some runtimes' profiling counters are fake (Rusticl on llvmpipe reports 1e-06 ms kernels).
std::string implausible_span_reason(double ms, std::size_t bytes);

}  // namespace cc
