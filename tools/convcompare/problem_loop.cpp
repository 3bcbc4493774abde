// problem_loop.cpp: the job's loops over sizes, filters, borders, pixels and memories, every target run once per problem, and the progress steps they take.
#include "tools/convcompare/problem_loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "backends/stop_request.h"
#include "common/domain/image_io.h"
#include "common/domain/reference.h"

namespace cc {

namespace {

// The work of one run, for the progress estimate: pixels x channels x (the taps the variant computes per
// value, plus one for moving it). fft's work grows with log(pixels), not the taps; auto runs the direct
// sum's candidates.
double step_work(int width, int height, int channels, const Filter& filter, const VariantTraits& variant) {
  const double pixels = static_cast<double>(width) * height * channels;
  const double taps = variant.kind == VariantKind::Choice
                          ? static_cast<double>(filter.width) * filter.height
                          : taps_per_pixel(variant, filter.radius_x(), filter.radius_y());
  return pixels * ((taps > 0 ? taps : std::log2(std::max(pixels, 2.0))) + 1);
}

// Whether `target` also pushes --stream frames through (auto's choice is not streamed).
bool streams(const Job& job, const Target& target) {
  return job.stream_frames > 0 && target.runs() && target.has_device_memory() &&
         target.variant->kind != VariantKind::Choice;
}

// A run that did not succeed after a stop request came during it is the interrupt's doing, not the
// run's: a driver a signal reaches fails (LLVM, inside PoCL, removes its temporaries at SIGINT and
// SIGTERM, and the build then fails), and a wait past the stop's grace gives up (stop_request.h). It is
// left out of the reports, as a run never started.
bool cut_by_interrupt(Status status) { return stop_signal() != 0 && status != Status::Ok; }

// The image at one size, and its 8-bit pixels where a u8 run needs them.
struct SizedInput {
  const Image& image;
  Image quantized;          // a u8 run's input: the image as 8-bit pixels hold it
  bool same_input = false;  // the 8-bit pixels are the image's values: one reference serves both
  SampleFacts facts[2];     // of the image, and of its 8-bit pixels
};

// One problem: its input, its reference, and "filter border pixel" for the progress line.
struct ProblemRun {
  const Problem& problem;
  const Image& input;
  const Image& reference;
  std::string label;
};

// The loops, one method a level. Each returns false at a stop signal, which ends every loop above it.
class ProblemRunner {
 public:
  explicit ProblemRunner(const ProblemLoop& loop) : loop_(loop), options_(loop.job.options) {}

  void run() {
    for (const auto& [width, height] : loop_.job.sizes)
      if (!run_size(width, height)) return;
  }

 private:
  bool run_size(int width, int height) {
    if (stop_signal() != 0) return false;
    Image& image = loop_.image;
    if (loop_.job.size_sweep && (image.width != width || image.height != height))
      image = make_default_image(width, height, loop_.job.channels);
    loop_.outputs.begin_image(image);
    const bool u8 = std::ranges::find(loop_.job.pixels, PixelType::U8) != loop_.job.pixels.end();
    Image quantized = u8 ? quantized_8bit(image) : Image();
    const bool same_input = u8 && quantized.data == image.data;
    const SampleFacts quantized_facts = u8 ? sample_facts(quantized) : SampleFacts{};
    const SizedInput sized{image, std::move(quantized), same_input, {sample_facts(image), quantized_facts}};
    for (const Filter& filter : loop_.job.filters)
      for (const Border border : loop_.job.borders)
        if (!run_border(sized, filter, border)) return false;
    return true;
  }

  // Every pixel type of one filter and border; a reference is computed once per distinct input.
  bool run_border(const SizedInput& sized, const Filter& filter, Border border) {
    std::optional<Image> references[2];  // of the image, and of its 8-bit pixels where they differ
    for (const PixelType pixel : loop_.job.pixels) {
      if (stop_signal() != 0) return false;  // before the next reference is computed
      const bool u8 = pixel == PixelType::U8;
      const Image& input = u8 ? sized.quantized : sized.image;
      const Problem problem = make_problem(input, sized.facts[u8], filter, border, loop_.job.flip, pixel);
      std::optional<Image>& computed = references[u8 && !sized.same_input];
      if (!computed) computed = reference_convolve(input, problem);
      loop_.outputs.begin_problem(problem, *computed);
      const ProblemRun run{problem, input, *computed,
                           fmt::format("{} {} {}", filter.spec, to_string(border), to_string(pixel))};
      for (const HostMemory memory : loop_.job.memories)
        if (!run_memory(run, memory)) return false;
      loop_.outputs.end_problem();
    }
    return true;
  }

  bool run_memory(const ProblemRun& run, HostMemory memory) {
    options_.memory = memory;
    for (const Target& target : loop_.targets)
      if (!run_single(run, target, memory)) return false;
    for (const MultiTarget& multi : loop_.multi_targets)
      if (!run_multi(run, multi)) return false;
    return true;
  }

  // One target, its --stream twin, and its result image.
  bool run_single(const ProblemRun& run, const Target& target, HostMemory memory) {
    if (stop_signal() != 0) return false;
    const std::string what =
        fmt::format("{} {} {}", target.device_id, target.variant ? target.variant->name : "-", run.label);
    if (target.runs()) loop_.progress.step(what);
    Outcome outcome = run_target(target, run.problem, run.input, run.reference, options_, loop_.tuner);
    if (cut_by_interrupt(outcome.record.status)) return false;
    if (streams(loop_.job, target)) {
      loop_.progress.step(fmt::format("{} --stream {}", what, loop_.job.stream_frames));
      StreamRecord stream =
          stream_target(target, outcome, run.problem, run.input, run.reference, loop_.job.stream_frames, options_);
      if (cut_by_interrupt(stream.status)) return false;
      loop_.report.streams.push_back(std::move(stream));
    }
    outcome.record.output = loop_.outputs.write_result(target, memory, std::move(outcome.output),
                                                       outcome.record.status == Status::Ok);
    loop_.report.runs.push_back(std::move(outcome.record));
    return true;
  }

  // One group of devices: --split's frame in bands, then --stream's frames dealt over them.
  bool run_multi(const ProblemRun& run, const MultiTarget& multi) {
    const std::string what = fmt::format("{} {} {}", multi.device_id, multi.variant->name, run.label);
    if (loop_.job.split) {
      if (stop_signal() != 0) return false;
      loop_.progress.step(fmt::format("{} --split", what));
      RunRecord split = split_target(multi, run.problem, run.input, run.reference, options_).record;
      if (cut_by_interrupt(split.status)) return false;
      loop_.report.runs.push_back(std::move(split));
    }
    if (loop_.job.stream_frames > 0) {
      if (stop_signal() != 0) return false;
      loop_.progress.step(fmt::format("{} --stream {}", what, loop_.job.stream_frames));
      StreamRecord stream =
          stream_over_target(multi, run.problem, run.input, run.reference, loop_.job.stream_frames, options_);
      if (cut_by_interrupt(stream.status)) return false;
      loop_.report.streams.push_back(std::move(stream));
    }
    return true;
  }

  const ProblemLoop& loop_;
  RunOptions options_;  // the job's, with each memory in turn
};

}  // namespace

std::vector<ProgressStep> progress_steps(const Job& job, const Image& image, const std::vector<Target>& targets,
                                         const std::vector<MultiTarget>& multi_targets) {
  std::vector<ProgressStep> steps;
  const std::size_t problems_per_filter = job.borders.size() * job.pixels.size() * job.memories.size();
  for (const auto& [width, height] : job.sizes)
    for (const Filter& filter : job.filters)
      for (std::size_t problem = 0; problem < problems_per_filter; ++problem) {
        const auto work = [&](const VariantTraits& variant) {
          return step_work(job.size_sweep ? width : image.width, job.size_sweep ? height : image.height, image.channels,
                           filter, variant);
        };
        for (const Target& target : targets) {
          if (!target.runs()) continue;
          const std::string key = target.device_id + " " + std::string(target.variant->name);
          steps.push_back({key, work(*target.variant), true});
          if (streams(job, target))
            steps.push_back({key + " --stream", work(*target.variant) * job.stream_frames, false});
        }
        for (const MultiTarget& multi : multi_targets) {
          const std::string key = multi.device_id + " " + std::string(multi.variant->name);
          if (job.split) steps.push_back({key + " --split", work(*multi.variant), true});
          if (job.stream_frames > 0)
            steps.push_back({key + " --stream", work(*multi.variant) * job.stream_frames, false});
        }
      }
  return steps;
}

void run_problems(const ProblemLoop& loop) { ProblemRunner(loop).run(); }

}  // namespace cc
