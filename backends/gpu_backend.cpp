// gpu_backend.cpp: the one GPU backend: discovery cached, the plan step, run, stream and peaks written once over GpuApi.
#include "backends/gpu_backend.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/measure.h"
#include "common/domain/error.h"

namespace cc {

namespace {

class GpuBackend final : public Backend {
 public:
  explicit GpuBackend(std::unique_ptr<GpuApi> api) : api_(std::move(api)) {}

  std::string_view name() const override { return api_->name(); }

  const std::vector<DeviceInfo>& devices() override {
    discover();
    return discovery_.devices;
  }

  std::string unavailable_reason() override {
    discover();
    return discovery_.devices.empty() ? discovery_.unavailable_reason : "";
  }

  std::vector<std::string> variants() const override { return api_->variants(); }

  BackendRun run(const Problem& problem, const Image& input, const VariantTraits& variant, int device,
                 const RunOptions& options) override {
    Planned planned;
    if (std::string reason = plan(planned, problem, variant, device, options, 1); !reason.empty())
      return skipped(std::move(reason));
    const RunningVariant running(variant.name, options.kernel_timeout_s);
    const auto session = api_->make_session(device);
    BackendRun run = measure_run(*session, prepare(planned, problem), problem, input,
                                 planned.plan.frame_bytes + planned.plan.filter_bytes, options);
    run.memory_note = planned.memory_note;
    run.compile_time = planned.build->compile_time(planned.plan, options);
    run.times.build_ms = planned.build->build_ms();
    return run;
  }

  StreamRun stream(const Problem& problem, const Image& input, const VariantTraits& variant, int device, int frames,
                   const RunOptions& options) override {
    if (frames < 1) throw InputError(fmt::format("--stream needs at least 1 frame, got {}", frames));
    Planned planned;
    if (std::string reason = plan(planned, problem, variant, device, options, kStreamSlots); !reason.empty()) {
      StreamRun skip;
      skip.reason = std::move(reason);
      return skip;
    }
    const RunningVariant running(variant.name, options.kernel_timeout_s);
    const auto session = api_->make_session(device);
    StreamRun run = measure_stream(*session, prepare(planned, problem), problem, input, frames, options);
    run.memory_note = planned.memory_note;
    return run;
  }

  DevicePeaks measure_peaks(int device) override {
    check_device(device);
    if (auto found = peaks_.find(device); found != peaks_.end()) return found->second;
    return peaks_[device] = api_->measure_peaks(device);
  }

 private:
  struct Planned {
    LaunchPlan plan;
    std::unique_ptr<VariantBuild> build;
    std::string memory_note;  // the device's note on the run's --memory mode (launch_plan.h, memory_note)
  };

  void discover() {
    if (discovered_) return;
    discovered_ = true;
    discovery_ = api_->discover();
  }

  void check_device(int device) {
    discover();
    if (device < 0 || device >= static_cast<int>(discovery_.devices.size()))
      throw InputError(
          fmt::format("no {} device {} ({} found)", api_->display_name(), device, discovery_.devices.size()));
  }

  // The shared planning rule (backends/launch_plan.h) with the API's build step; returns why the
  // variant cannot run here, or "". Bad requests (an unknown variant or device) throw InputError.
  std::string plan(Planned& planned, const Problem& problem, const VariantTraits& traits, int device,
                   const RunOptions& options, int frames_in_flight) {
    discover();
    const std::vector<std::string> names = variants();
    if (std::ranges::find(names, traits.name) == names.end())
      throw InputError(fmt::format("the {} backend has no variant '{}' ({})", name(), traits.name, fmt::join(names, ", ")));
    if (discovery_.devices.empty()) return discovery_.unavailable_reason;
    check_device(device);
    if (std::string reason = api_->refuses(traits.name, device); !reason.empty()) return reason;
    const DeviceLimits limits = api_->limits(device, problem);
    if (std::string reason = memory_refusal(traits, limits, options.memory); !reason.empty()) return reason;
    if (frames_in_flight > 1 && options.memory == HostMemory::Managed && !limits.no_overlapped_managed.empty())
      return limits.no_overlapped_managed;
    planned.memory_note = memory_note(limits, options.memory);
    planned.build = api_->make_build(traits, device, options);
    std::string reason = plan_launch(planned.plan, traits, problem, limits, frames_in_flight,
                                     [&](const LaunchPlan& plan) { return planned.build->build(plan); });
    if (reason.empty()) reason = planned.build->declines(planned.plan, problem);
    planned.plan.memory = options.memory;
    return reason;
  }

  static PrepareVariant prepare(const Planned& planned, const Problem& problem) {
    return [&planned, &problem](DeviceQueue& queue) { return planned.build->prepare(planned.plan, problem, queue); };
  }

  std::unique_ptr<GpuApi> api_;
  bool discovered_ = false;
  GpuDiscovery discovery_;
  std::map<int, DevicePeaks> peaks_;  // measured once per device
};

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(std::unique_ptr<GpuApi> api) {
  return std::make_unique<GpuBackend>(std::move(api));
}

}  // namespace cc
