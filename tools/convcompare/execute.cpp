// execute.cpp: one target on one problem: auto's choice, the backend's run, validation, and the stream twin.
#include "tools/convcompare/execute.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <tuple>

#include "common/domain/error.h"
#include "common/domain/validate.h"

namespace cc {

namespace {

RunRecord describe_run(const Target& target, const Problem& problem) {
  RunRecord record;
  record.backend = target.backend_name;
  record.device = target.device_id;
  record.variant = target.variant ? std::string(target.variant->name) : "-";
  record.filter = problem.filter.spec;
  record.width = problem.width;
  record.height = problem.height;
  record.channels = problem.channels;
  record.radius_x = problem.radius_x();
  record.radius_y = problem.radius_y();
  record.border = to_string(problem.border);
  record.flip = problem.flip;
  record.pixel = to_string(problem.pixel);
  return record;
}

// `ran`: the variant that ran (null only when nothing did: auto without a candidate, a skipped run).
void validate_run(Outcome& outcome, BackendRun run, const VariantTraits* ran, const Problem& problem,
                  const Image& input, const Image& reference);

// A stream record named as `run` (so a stream row names exactly the run it repeats), for `frames`
// frames in `options`' memory; stream_target and stream_over_target both start from it.
StreamRecord stream_identity(const RunRecord& run, int frames, const RunOptions& options);

// What `stream_call` (the backend's stream or stream_over) returns; an ApiError instead fails `record`
// with its message and gives nothing.
template <typename StreamCall>
std::optional<StreamRun> run_stream(StreamRecord& record, StreamCall stream_call) {
  try {
    return stream_call();
  } catch (const ApiError& error) {
    record.status = Status::Failed;
    record.reason = error.what();
    return std::nullopt;
  }
}

// The stream record's figures from a StreamRun, its last frame validated by `tolerance`.
void fill_stream(StreamRecord& record, const StreamRun& stream, const Image& reference, const Tolerance& tolerance);

}  // namespace

AutoChoice AutoTuner::choose(const Target& target, const Problem& problem, const Image& input,
                             const RunOptions& options, bool retune) {
  auto found = caches_.find(target.device_id);
  if (found == caches_.end())
    found = caches_
                .emplace(target.device_id,
                         TuningCache(TuningCache::default_directory(), target.backend->devices()[target.device]))
                .first;
  return choose_variant(*target.backend, target.device, problem, input, options, found->second, retune_ || retune);
}

namespace {

// auto's run: the tuner's choice, run. A cached winner is planned again by running it: one that cannot run
// here (skipped: the device lacks what it needs, as shuffle without sub-group shuffles; or its build fails),
// though the key matched, is a stale or edited entry, so every candidate is measured again as --retune
// would, the fresh winner stored over it and run. `ran` and `choice` (the compile_time note) say what ran.
BackendRun run_auto(const Target& target, const Problem& problem, const Image& input, const RunOptions& options,
                    AutoTuner& tuner, const VariantTraits*& ran, std::string& choice) {
  const auto run_choice = [&](const AutoChoice& chosen, std::string_view note) {
    ran = chosen.traits;
    // "auto: <variant> (<why>); ...": common/report/record.cpp reads the variant that ran from the front.
    choice = fmt::format("auto: {}; {}", chosen.summary(), note);
    return ran ? target.backend->run(problem, input, *ran, target.device, options)
               : skipped("no candidate variant can run this problem here: " + chosen.reason);
  };
  const AutoChoice chosen = tuner.choose(target, problem, input, options);
  if (!chosen.from_cache) return run_choice(chosen, "");
  std::string stale;
  try {
    BackendRun run = run_choice(chosen, "");
    if (run.status != Status::Skipped) return run;
    stale = run.reason;
  } catch (const ApiError& error) {
    stale = error.what();
  }
  return run_choice(tuner.choose(target, problem, input, options, true),
                    fmt::format("measured again: the cached {} cannot run here [{}]; ", chosen.variant, stale));
}

}  // namespace

Outcome run_target(const Target& target, const Problem& problem, const Image& input, const Image& reference,
                   const RunOptions& options, AutoTuner& tuner) {
  Outcome outcome;
  RunRecord& record = outcome.record;
  record = describe_run(target, problem);
  record.times.cold = options.cold;  // skips too, so that they sit in the table of the runs beside them
  if (!target.runs()) {
    record.status = Status::Skipped;
    record.reason = target.skip_reason;
    return outcome;
  }

  BackendRun run;
  const VariantTraits* ran = target.variant;
  std::string choice;  // auto: what it chose and why
  try {
    if (target.variant->kind == VariantKind::Choice) {
      run = run_auto(target, problem, input, options, tuner, ran, choice);
    } else {
      run = target.backend->run(problem, input, *ran, target.device, options);
    }
  } catch (const ApiError& error) {
    record.status = Status::Failed;
    record.reason = error.what();
    if (!error.build_log().empty())
      std::cerr << fmt::format("convcompare: build log of {} {}:\n{}\n", target.backend_name, record.variant,
                               error.build_log());
    return outcome;
  }
  record.compile_time = choice;
  validate_run(outcome, std::move(run), ran, problem, input, reference);
  return outcome;
}

namespace {

// The record of a run the backend returned, and its output validated by the tolerance of `ran`.
void validate_run(Outcome& outcome, BackendRun run, const VariantTraits* ran, const Problem& problem,
                  const Image& input, const Image& reference) {
  RunRecord& record = outcome.record;
  record.times = run.times;
  record.memory = run.memory;
  record.memory_note = run.memory_note;
  record.compile_time += run.compile_time;
  // What "% of bound" counts for a low-rank run (derive_bound): its terms, the filter's rank.
  if (ran && ran->low_rank && problem.correlation_low_rank) record.terms = problem.correlation_low_rank->rank;
  if (run.device_bytes > 0) record.device_mb = static_cast<double>(run.device_bytes) / (1 << 20);
  if (run.status != Status::Ok || !ran) {
    record.status = run.status;
    record.reason = run.reason;
    return;
  }

  outcome.tolerance = tolerance_for_variant(*ran, problem, input);
  const Validation validation = validate(run.output, reference, outcome.tolerance);
  record.status = validation.passed ? Status::Ok : Status::Failed;
  record.reason = validation.message();
  record.max_abs_error = validation.max_abs_error;
  record.rel_l2_error = validation.rel_l2_error;
  record.tolerance = validation.tolerance;
  record.exact = validation.exact;
  derive_rates(record);
  outcome.output = std::move(run.output);
}

}  // namespace

StreamRecord stream_target(const Target& target, const Outcome& single, const Problem& problem, const Image& input,
                           const Image& reference, int frames, const RunOptions& options) {
  StreamRecord record = stream_identity(single.record, frames, options);
  // Not streamed after the single run: skipped with its reason where it was skipped (a device without the
  // --memory mode), else because it did not validate.
  if (single.record.status != Status::Ok) {
    record.reason = single.record.status == Status::Skipped ? single.record.reason : "the single run did not validate";
    return record;
  }
  const std::optional<StreamRun> stream = run_stream(record, [&] {
    return target.backend->stream(problem, input, *target.variant, target.device, frames, options);
  });
  if (stream) fill_stream(record, *stream, reference, single.tolerance);
  return record;
}

namespace {

StreamRecord stream_identity(const RunRecord& run, int frames, const RunOptions& options) {
  StreamRecord record;
  std::tie(record.backend, record.device, record.variant, record.filter) =
      std::tie(run.backend, run.device, run.variant, run.filter);
  std::tie(record.width, record.height, record.channels, record.pixel) =
      std::tie(run.width, run.height, run.channels, run.pixel);
  record.frames = frames;
  record.memory = to_string(options.memory);
  return record;
}

void fill_stream(StreamRecord& record, const StreamRun& stream, const Image& reference, const Tolerance& tolerance) {
  const int frames = record.frames;
  record.status = stream.status;
  record.reason = stream.reason;
  if (stream.status != Status::Ok) return;
  record.queues = stream.queues;
  record.total_ms = stream.total_ms;
  record.frames_per_s = frames / (stream.total_ms / 1e3);
  record.untimed = stream.untimed;
  record.memory_note = stream.memory_note;
  record.serial_ms_per_frame = stream.serial_ms_per_frame;
  // Upload and download use separate copy engines, so the slower direction is the floor per frame.
  record.pcie_floor_ms_per_frame = std::max(stream.h2d_ms_per_frame, stream.d2h_ms_per_frame);
  record.floor_fraction = record.pcie_floor_ms_per_frame / (stream.total_ms / frames);
  // The caller's tolerance (a single run's own, not one rebuilt from the record: 8-bit frames keep the
  // rounding rule).
  const Validation validation = validate(stream.last_output, reference, tolerance);
  record.max_abs_error = validation.max_abs_error;
  if (!validation.passed) {
    record.status = Status::Failed;
    record.reason = "last frame: " + validation.message();
  }
}

}  // namespace

Outcome split_target(const MultiTarget& target, const Problem& problem, const Image& input, const Image& reference,
                     const RunOptions& options) {
  Outcome outcome;
  Target first{target.backend_name, target.device_id, target.backend, target.devices.front(), target.variant, ""};
  outcome.record = describe_run(first, problem);
  outcome.record.times.cold = options.cold;
  BackendRun run;
  try {
    run = target.backend->split(problem, input, *target.variant, target.devices, options);
  } catch (const ApiError& error) {
    outcome.record.status = Status::Failed;
    outcome.record.reason = error.what();
    return outcome;
  }
  validate_run(outcome, std::move(run), target.variant, problem, input, reference);
  return outcome;
}

StreamRecord stream_over_target(const MultiTarget& target, const Problem& problem, const Image& input,
                                const Image& reference, int frames, const RunOptions& options) {
  StreamRecord record = stream_identity(describe_run({target.backend_name, target.device_id, target.backend,
                                                      target.devices.front(), target.variant, ""}, problem),
                                         frames, options);
  const std::optional<StreamRun> stream = run_stream(record, [&] {
    return target.backend->stream_over(problem, input, *target.variant, target.devices, frames, options);
  });
  if (!stream) return record;
  std::vector<std::string> counts;
  for (std::size_t i = 0; i < stream->frames_per_device.size() && i < target.devices.size(); ++i)
    counts.push_back(fmt::format("{}={}", target.backend->devices()[static_cast<std::size_t>(target.devices[i])].id,
                                 stream->frames_per_device[i]));
  record.frames_per_device = fmt::format("{}", fmt::join(counts, " "));
  fill_stream(record, *stream, reference, tolerance_for_variant(*target.variant, problem, input));
  return record;
}

void measure_device_peaks(const std::vector<Target>& targets, Report& report) {
  for (const Target& target : targets) {
    if (!target.runs() || !target.has_device_memory()) continue;
    const auto device = std::ranges::find(report.devices, target.device_id, &DeviceInfo::id);
    if (device == report.devices.end() || !std::isnan(device->peaks.copy_gb_per_s)) continue;
    try {
      device->peaks = target.backend->measure_peaks(target.device);
    } catch (const ApiError& error) {
      std::cerr << fmt::format("convcompare: could not measure the peaks of {}: {}\n", target.device_id,
                               error.what());
      device->peaks.copy_gb_per_s = device->peaks.fma_gflop_per_s = 0;  // tried; "% of bound" stays empty
    }
  }
}

}  // namespace cc
