// problem_loop.h: the job's loops over sizes, filters, borders, pixels and memories, every target run once per problem, and the progress steps they take.
#pragma once

#include <vector>

#include "common/domain/image.h"
#include "common/report/report.h"
#include "tools/convcompare/execute.h"
#include "tools/convcompare/job.h"
#include "tools/convcompare/outputs.h"
#include "tools/convcompare/progress.h"
#include "tools/convcompare/targets.h"

namespace cc {

// The progress line's steps in run_problems' order, each weighed by its work (ProgressStep). Only the
// targets that run are steps: a skipped one takes no time.
std::vector<ProgressStep> progress_steps(const Job& job, const Image& image, const std::vector<Target>& targets,
                                         const std::vector<MultiTarget>& multi_targets);

// What the loops read and write.
struct ProblemLoop {
  const Job& job;
  Image& image;  // the input; a size sweep makes it again at each size
  const std::vector<Target>& targets;
  const std::vector<MultiTarget>& multi_targets;  // two or more devices of one backend: --split, --stream
  OutputWriter& outputs;
  Progress& progress;
  AutoTuner& tuner;
  Report& report;  // each run and stream row, in the loops' order
};

// Runs every target on every problem into the report; returns at a stop signal, between runs.
void run_problems(const ProblemLoop& loop);

}  // namespace cc
