// execute.h: running one target on one problem (auto's choice included), validating it, and its --stream twin.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "common/domain/image.h"
#include "common/domain/problem.h"
#include "common/domain/validate.h"
#include "common/report/report.h"
#include "tools/convcompare/autotune.h"
#include "tools/convcompare/targets.h"

namespace cc {

// The tuning caches of --variant auto, one per device, opened on first use.
class AutoTuner {
 public:
  explicit AutoTuner(bool retune) : retune_(retune) {}
  // `retune`: measure again whatever the cache holds (--retune does it for every choice).
  AutoChoice choose(const Target& target, const Problem& problem, const Image& input, const RunOptions& options,
                    bool retune = false);

 private:
  bool retune_;
  std::map<std::string, TuningCache> caches_;
};

struct Outcome {
  RunRecord record;
  Image output;  // empty unless the backend produced a result
  Tolerance tolerance;  // the bound the result was validated by (its variant's, its pixel type's)
};

// Runs the target (auto: the variant it chooses) and validates the result against `reference` with the
// tolerance of the variant that ran. One API failure costs this run only: it is recorded as failed
// (a build log goes to stderr) and the job goes on.
Outcome run_target(const Target& target, const Problem& problem, const Image& input, const Image& reference,
                   const RunOptions& options, AutoTuner& tuner);

// The same target with `frames` frames overlapped, its last frame validated by the run's own bound.
StreamRecord stream_target(const Target& target, const Outcome& single, const Problem& problem, const Image& input,
                           const Image& reference, int frames, const RunOptions& options);

// --split: the frame in bands over the group's devices, stitched and validated like any run (its row's
// device is the group's joined id).
Outcome split_target(const MultiTarget& target, const Problem& problem, const Image& input, const Image& reference,
                     const RunOptions& options);

// --stream with two or more devices of one backend: `frames` frames dealt over them, the last validated
// by the variant's tolerance; the record says how many each device took (frames_per_device).
StreamRecord stream_over_target(const MultiTarget& target, const Problem& problem, const Image& input,
                                const Image& reference, int frames, const RunOptions& options);

// Measured once per device that will run something, before the runs, so "% of bound" has a ceiling.
void measure_device_peaks(const std::vector<Target>& targets, Report& report);

}  // namespace cc
