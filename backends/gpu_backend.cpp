// gpu_backend.cpp: the one GPU backend: discovery cached, the plan step, run, stream and peaks written once over GpuApi.
#include "backends/gpu_backend.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/measure.h"
#include "backends/split_session.h"
#include "common/geometry/band_plan.h"
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

  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (const ApiVariant& implemented : api_->variants()) names.emplace_back(implemented.traits->name);
    return names;
  }

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
    return stream_on({device}, false, problem, input, variant, frames, options);
  }

  StreamRun stream_over(const Problem& problem, const Image& input, const VariantTraits& variant,
                        const std::vector<int>& devices, int frames, const RunOptions& options) override {
    return stream_on(devices, true, problem, input, variant, frames, options);
  }

  BackendRun split(const Problem& problem, const Image& input, const VariantTraits& variant,
                   const std::vector<int>& devices, const RunOptions& options) override {
    if (devices.size() < 2) throw InputError("--split needs two or more devices of one backend (--device)");
    if (!copies_frames(options.memory))
      return skipped(fmt::format("--split copies each band between host and device: --memory {} keeps a frame "
                                 "where one device reaches it", to_string(options.memory)));
    BandPlan bands = plan_bands(problem.height, problem.radius_y(), static_cast<int>(devices.size()),
                                problem.border == Border::Wrap);
    if (!bands.skip_reason.empty()) return skipped(std::move(bands.skip_reason));
    // Planned, built and run as one split (GpuApi::share_devices), single runs after it as before.
    struct Sharing {
      GpuApi& api;
      ~Sharing() { api.share_devices({}); }
    } const sharing{*api_};
    discover();
    api_->share_devices(devices);
    // Each device's problem is its band's sub-image (its halo rows and its own), planned and built for
    // that device; the variants hold these, so they live until the run ends.
    std::vector<Problem> parts(devices.size(), problem);
    std::vector<Planned> planned(devices.size());
    std::size_t planned_bytes = 0;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      parts[i].height = bands.bands[i].input_rows();
      if (std::string reason = plan(planned[i], parts[i], variant, devices[i], options, 1); !reason.empty())
        return skipped(fmt::format("{}: {}", device_id(devices[i]), reason));
      planned_bytes += planned[i].plan.frame_bytes + planned[i].plan.filter_bytes;
    }
    const RunningVariant running(variant.name, options.kernel_timeout_s);
    std::vector<std::unique_ptr<DeviceSession>> sessions;
    for (const int device : devices) sessions.push_back(api_->make_session(device));
    SplitSession session(std::move(sessions), std::move(bands), problem.height);
    std::string halo_route;  // how the halos crossed, for the report (memory_note)
    const PrepareVariant prepare_all = [&](DeviceQueue& queue) -> std::unique_ptr<PreparedVariant> {
      std::vector<std::unique_ptr<PreparedVariant>> prepared;
      for (std::size_t i = 0; i < planned.size(); ++i)
        prepared.push_back(
            planned[i].build->prepare(planned[i].plan, parts[i], SplitSession::part(queue, static_cast<int>(i))));
      auto split = std::make_unique<SplitVariant>(std::move(prepared), session, queue);
      halo_route = split->halo_route();
      return split;
    };
    BackendRun run = measure_run(session, prepare_all, problem, input, planned_bytes, options);
    run.memory_note = halo_route;
    run.compile_time = planned.front().build->compile_time(planned.front().plan, options);
    run.times.build_ms = 0;  // the slowest device's build: they are built one after the other, but cached
    for (const Planned& part : planned) run.times.build_ms = std::max(run.times.build_ms, part.build->build_ms());
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

  const std::string& device_id(int device) {
    check_device(device);
    return discovery_.devices[static_cast<std::size_t>(device)].id;
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
    const ApiVariant* implemented = find_api_variant(api_->variants(), traits);
    if (!implemented)
      throw InputError(fmt::format("the {} backend has no variant '{}' ({})", name(), traits.name, fmt::join(variants(), ", ")));
    if (discovery_.devices.empty()) return discovery_.unavailable_reason;
    check_device(device);
    if (!implemented->missing.empty()) return std::string(implemented->missing);
    if (std::string reason = api_->refuses(*implemented, device); !reason.empty()) return reason;
    const DeviceLimits limits = api_->limits(device, problem);
    if (std::string reason = memory_refusal(traits, limits, options.memory); !reason.empty()) return reason;
    if (frames_in_flight > 1 && is_managed(options.memory) && !limits.no_overlapped_managed.empty())
      return limits.no_overlapped_managed;
    planned.memory_note = memory_note(limits, options.memory);
    planned.build = api_->make_build(*implemented, device, options);
    std::string reason = plan_launch(planned.plan, traits, problem, limits, frames_in_flight,
                                     [&](const LaunchPlan& plan) { return planned.build->build(plan); });
    if (reason.empty()) reason = declines_of(*implemented, planned.plan, problem);
    planned.plan.memory = options.memory;
    return reason;
  }

  // --stream on one device, or with its frames dealt over `devices` (measure.h's two protocols); a skip
  // names the device that cannot run the variant where they are dealt.
  StreamRun stream_on(const std::vector<int>& devices, bool dealt, const Problem& problem, const Image& input,
                      const VariantTraits& variant, int frames, const RunOptions& options) {
    if (frames < 1) throw InputError(fmt::format("--stream needs at least 1 frame, got {}", frames));
    std::vector<Planned> planned(devices.size());
    for (std::size_t i = 0; i < devices.size(); ++i)
      if (std::string reason = plan(planned[i], problem, variant, devices[i], options, kStreamSlots); !reason.empty()) {
        StreamRun skip;
        skip.reason = dealt ? fmt::format("{}: {}", device_id(devices[i]), reason) : std::move(reason);
        return skip;
      }
    const RunningVariant running(variant.name, options.kernel_timeout_s);
    std::vector<std::unique_ptr<DeviceSession>> sessions;
    std::vector<StreamDevice> dealt_to;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      sessions.push_back(api_->make_session(devices[i]));
      if (dealt) dealt_to.push_back({*sessions.back(), prepare(planned[i], problem)});
    }
    StreamRun run = dealt ? measure_stream(dealt_to, problem, input, frames, options)
                          : measure_stream(*sessions.front(), prepare(planned.front(), problem), problem, input,
                                           frames, options);
    run.memory_note = planned.front().memory_note;
    return run;
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
