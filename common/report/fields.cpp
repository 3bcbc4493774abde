// fields.cpp: the report's field tables (docs/json-schema.md): a field added here is written to JSON and CSV and read back.
#include "common/report/fields.h"

namespace cc {

namespace {

constexpr std::string_view kKernelMs = "kernel_ms";
constexpr std::string_view kCompare = "compare";

// A statistic of the per-launch kernel times. Without samples the statistics are summarize({})'s
// placeholder zeros, not zero milliseconds.
template <auto statistic>
Field<RunRecord> kernel_statistic(std::string_view name, FieldOptions options = {}) {
  options.group = kKernelMs;
  Field<RunRecord> statistic_field = field<&RunRecord::times, &PhaseTimes::kernel_ms, statistic>(name, options);
  statistic_field.meaningful = [](const RunRecord& run) { return run.times.kernel_ms.samples > 0; };
  return statistic_field;
}

}  // namespace

const std::vector<Field<RunRecord>>& run_fields() {
  static const std::vector<Field<RunRecord>> fields = {
      field<&RunRecord::backend>("backend", kRequired),
      field<&RunRecord::device>("device", kRequired),
      field<&RunRecord::variant>("variant", kRequired),
      field<&RunRecord::filter>("filter", kRequired),
      field<&RunRecord::width>("width", kRequired),
      field<&RunRecord::height>("height", kRequired),
      field<&RunRecord::channels>("channels", kRequired),
      field<&RunRecord::radius_x>("radius_x"),
      field<&RunRecord::radius_y>("radius_y"),
      field<&RunRecord::border>("border", kRequired),
      field<&RunRecord::flip>("flip"),
      field<&RunRecord::pixel>("pixel", kDefaultWhenMissing),
      field<&RunRecord::status>("status", kRequired),
      field<&RunRecord::reason>("reason"),
      field<&RunRecord::max_abs_error>("max_abs_error"),
      field<&RunRecord::rel_l2_error>("rel_l2_error"),
      field<&RunRecord::tolerance>("tolerance"),
      field<&RunRecord::exact>("exact"),
      kernel_statistic<&Stats::median>("median", kRequired),
      kernel_statistic<&Stats::min>("min"),
      kernel_statistic<&Stats::max>("max"),
      kernel_statistic<&Stats::mean>("mean"),
      kernel_statistic<&Stats::stddev>("stddev"),
      field<&RunRecord::times, &PhaseTimes::kernel_ms, &Stats::samples>("samples", {.group = kKernelMs, .required = true}),
      kernel_statistic<&Stats::noise_percent>("noise_percent"),
      // Schema 2: the raw samples kernel_ms summarizes, the rule that stopped them, warm or cold L2.
      field<&RunRecord::times, &PhaseTimes::kernel_samples_ms>("kernel_samples_ms"),
      field<&RunRecord::times, &PhaseTimes::stopped_by>("stopped_by", kNullWhenDefault),
      field<&RunRecord::times, &PhaseTimes::budget_skipped>("budget_skipped", kNullWhenDefault),
      field<&RunRecord::times, &PhaseTimes::cold>("cold"),
      field<&RunRecord::times, &PhaseTimes::kernel_batch_ms>("kernel_batch_ms"),
      field<&RunRecord::times, &PhaseTimes::h2d_ms>("h2d_ms"),
      field<&RunRecord::times, &PhaseTimes::d2h_ms>("d2h_ms"),
      field<&RunRecord::times, &PhaseTimes::setup_ms>("setup_ms"),
      field<&RunRecord::times, &PhaseTimes::build_ms>("build_ms"),
      field<&RunRecord::times, &PhaseTimes::host_to_host_ms>("host_to_host_ms"),
      field<&RunRecord::times, &PhaseTimes::reuse_ms>("reuse_ms"),
      field<&RunRecord::times, &PhaseTimes::untimed>("untimed", kNullWhenDefault),
      field<&RunRecord::mpix_per_s>("mpix_per_s"),
      field<&RunRecord::gb_per_s>("gb_per_s"),
      field<&RunRecord::gflop_per_s>("gflop_per_s"),
      field<&RunRecord::device_mb>("device_mb"),
      field<&RunRecord::bound>("bound"),
      field<&RunRecord::bound_percent>("bound_percent"),
      field<&RunRecord::direct_bound_percent>("direct_bound_percent"),
      field<&RunRecord::terms>("terms", kNullWhenDefault),
      field<&RunRecord::memory>("memory"),
      field<&RunRecord::memory_note>("memory_note", kNullWhenDefault),
      field<&RunRecord::compile_time>("compile_time"),
      field<&RunRecord::output>("output"),
      // --compare's verdict against the baseline (compare.h); null without --compare.
      field<&RunRecord::compare_verdict>("verdict", {.group = kCompare, .null_when_default = true}),
      field<&RunRecord::compare_ratio>("ratio", {.group = kCompare}),
      field<&RunRecord::compare_p_value>("p_value", {.group = kCompare}),
      field<&RunRecord::compare_threshold>("threshold", {.group = kCompare}),
      field<&RunRecord::compare_reason>("reason", {.group = kCompare, .null_when_default = true}),
  };
  return fields;
}

const std::vector<Field<StreamRecord>>& stream_fields() {
  static const std::vector<Field<StreamRecord>> fields = {
      field<&StreamRecord::backend>("backend", kRequired),
      field<&StreamRecord::device>("device", kRequired),
      field<&StreamRecord::variant>("variant", kRequired),
      field<&StreamRecord::filter>("filter", kRequired),
      field<&StreamRecord::width>("width", kRequired),
      field<&StreamRecord::height>("height", kRequired),
      field<&StreamRecord::channels>("channels", kRequired),
      field<&StreamRecord::frames>("frames"),
      field<&StreamRecord::pixel>("pixel", kDefaultWhenMissing),
      field<&StreamRecord::memory>("memory"),
      field<&StreamRecord::memory_note>("memory_note", kNullWhenDefault),
      field<&StreamRecord::status>("status", kRequired),
      field<&StreamRecord::reason>("reason"),
      field<&StreamRecord::queues>("queues"),
      field<&StreamRecord::total_ms>("total_ms"),
      field<&StreamRecord::frames_per_s>("frames_per_s"),
      field<&StreamRecord::serial_ms_per_frame>("serial_ms_per_frame"),
      field<&StreamRecord::pcie_floor_ms_per_frame>("pcie_floor_ms_per_frame"),
      field<&StreamRecord::floor_fraction>("floor_fraction"),
      field<&StreamRecord::max_abs_error>("max_abs_error"),
      field<&StreamRecord::untimed>("untimed", kNullWhenDefault),
      field<&StreamRecord::frames_per_device>("frames_per_device", kNullWhenDefault),
  };
  return fields;
}

const std::vector<Field<DeviceInfo>>& device_fields() {
  static const std::vector<Field<DeviceInfo>> fields = {
      field<&DeviceInfo::backend>("backend"),
      field<&DeviceInfo::id>("id"),
      field<&DeviceInfo::name>("name"),
      field<&DeviceInfo::properties>("properties"),
      field<&DeviceInfo::peaks, &DevicePeaks::copy_gb_per_s>("copy_gb_per_s", {.group = "peaks"}),
      field<&DeviceInfo::peaks, &DevicePeaks::fma_gflop_per_s>("fma_gflop_per_s", {.group = "peaks"}),
      field<&DeviceInfo::peaks, &DevicePeaks::untimed>("untimed", {.group = "peaks", .null_when_default = true}),
      // Schema 2: numbers beside the display text of properties.
      field<&DeviceInfo::compute_units>("compute_units", kNullWhenDefault),
      field<&DeviceInfo::global_memory_bytes>("global_memory_bytes"),
      field<&DeviceInfo::cache_bytes>("cache_bytes"),
  };
  return fields;
}

const std::vector<Field<Report>>& report_fields() {
  constexpr std::string_view kMeasurement = "measurement";
  static const std::vector<Field<Report>> fields = {
      field<&Report::created>("created"),
      field<&Report::command>("command"),
      field<&Report::tool_name>("name", {.group = "tool"}),
      field<&Report::tool_version>("version", {.group = "tool"}),
      field<&Report::tool_git>("git", {.group = "tool"}),
      field<&Report::measurement, &MeasurementSettings::repetitions>("repetitions", {.group = kMeasurement}),
      field<&Report::measurement, &MeasurementSettings::warmup>("warmup", {.group = kMeasurement}),
      field<&Report::measurement, &MeasurementSettings::min_samples>("min_samples", {.group = kMeasurement}),
      field<&Report::measurement, &MeasurementSettings::max_noise_percent>("max_noise_percent", {.group = kMeasurement}),
      field<&Report::measurement, &MeasurementSettings::time_budget_s>("time_budget_s", {.group = kMeasurement}),
      field<&Report::measurement, &MeasurementSettings::cold>("cold", {.group = kMeasurement}),
      field<&Report::environment>("environment"),
      field<&Report::host, &HostState::load_average>("load_average", {.group = "host"}),
      field<&Report::host, &HostState::cpus>("cpus", {.group = "host", .null_when_default = true}),
      field<&Report::host, &HostState::cpu_mhz>("cpu_mhz", {.group = "host"}),
      field<&Report::incomplete>("incomplete"),
  };
  return fields;
}

}  // namespace cc
