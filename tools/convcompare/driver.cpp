// driver.cpp: the convcompare job, read straight through: check the input, plan the targets, run and validate each problem, write the reports.
#include "tools/convcompare/driver.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <iostream>
#include <sstream>

#include "backends/backend.h"
#include "backends/device_watchdog.h"
#include "backends/stop_request.h"
#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "common/domain/reference.h"
#include "common/domain/temporary_files.h"
#include "common/report/baseline.h"
#include "common/report/compare.h"
#include "common/report/report_read.h"
#include "common/report/plot.h"
#include "common/report/printer.h"
#include "tools/convcompare/environment.h"
#include "tools/convcompare/execute.h"
#include "tools/convcompare/job.h"
#include "tools/convcompare/merge.h"
#include "tools/convcompare/outputs.h"
#include "tools/convcompare/problem_loop.h"
#include "tools/convcompare/progress.h"
#include "tools/convcompare/targets.h"

namespace cc {

namespace {

// Error messages may carry newlines (a nested API message); the contract is one line on stderr.
// Control characters from an argument are escaped and long words shortened (printable), so a hostile
// argument cannot drive the terminal or fill it.
void print_error(const std::string& message) { std::cerr << "convcompare: error: " << printable(message) << '\n'; }

// A closed standard stream is opened on /dev/null, so no file the job opens takes its number: read-only,
// so that printing to stdout fails (and is reported at exit) instead of vanishing, and a report named
// "-" or /dev/stderr is refused up front (outputs.cpp) instead of going to /dev/null.
void guard_standard_streams() {
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO})
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      const int opened = ::open("/dev/null", O_RDONLY);
      if (opened >= 0 && opened != fd) ::close(opened);  // a lower one was closed too: already done
    }
}

// A reader that goes away (`convcompare | head -1`) or a file-size limit (ulimit -f) makes the write
// fail (EPIPE, EFBIG) instead of killing the process: the reports still get written, a temporary is
// removed, and the failure is one line and exit 2 (docs/correctness.md, "Hostile inputs and outputs").
void report_write_failures_as_errors() {
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGXFSZ, SIG_IGN);
}

// Everything printed to stdout reached it (a full disk or a closed stdout is an error, not exit 0).
bool stdout_written(std::string& problem) {
  errno = 0;
  std::cout.flush();
  const bool ok = std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good();
  if (!ok) problem = errno != 0 ? std::strerror(errno) : "the write failed";
  return ok;
}

// The comparison table names filters and devices, from the baseline file too: escaped for the terminal.
void print_comparison_escaped(const std::vector<Comparison>& comparisons, const CompareRule& rule,
                              const std::vector<MachineChange>& machine) {
  std::ostringstream text;
  print_comparison(comparisons, rule, text, machine);
  std::cout << printable_lines(text.str());
}

// "interrupted by SIGINT after 15 runs": the runs that ran, not the skipped placeholders.
std::string interrupted_reason(const Report& report) {
  const auto ran = std::ranges::count_if(report.runs, [](const RunRecord& run) { return run.status != Status::Skipped; }) +
                   std::ranges::count_if(report.streams, [](const StreamRecord& run) { return run.status != Status::Skipped; });
  return fmt::format("interrupted by {} after {} run{}", stop_signal_name(), ran, ran == 1 ? "" : "s");
}

bool any_failed(const Report& report) {
  return std::ranges::any_of(report.runs, [](const RunRecord& run) { return run.status == Status::Failed; }) ||
         std::ranges::any_of(report.streams, [](const StreamRecord& run) { return run.status == Status::Failed; });
}

// An open-file limit too low for the backends' drivers makes them fail in ways they report as "no
// platform" or "install a driver" (ulimit -n 4): said as what it is, before they start.
void check_open_file_limit() {
  constexpr rlim_t kLeastOpenFiles = 64;  // the ICD loader, its vendor files and libraries, the image, the reports
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < kLeastOpenFiles)
    throw InputError(fmt::format("the open-file limit (ulimit -n) is {}: convcompare needs at least {} open files "
                                 "(the GPU drivers open many): raise it",
                                 limit.rlim_cur, kLeastOpenFiles));
}

// The job's status; an exception out of it after a stop request is the interrupt's (as cut_by_interrupt):
// the interrupt is what is said, with its status (README, "Exit status").
int run_job_or_interrupt(const Config& config) {
  try {
    return run_job(config);
  } catch (...) {
    if (stop_signal() == 0) throw;
    std::cerr << "convcompare: interrupted by " << stop_signal_name()
              << " before the reports were written; no report is written\n";
    return 128 + stop_signal();
  }
}

}  // namespace

namespace {

// --list: the backends, devices, variants and filters as text, or with --json FILE as JSON.
int print_list(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends) {
  if (stop_signal() != 0) {
    std::cerr << "convcompare: interrupted by " << stop_signal_name() << "; no listing is printed\n";
    return 128 + stop_signal();
  }
  // --list --json FILE: the listing as JSON (to standard output with -, in place of the text).
  const auto json = std::ranges::find(job.reports, ReportFormat::Json, &ReportOutput::format);
  if (json != job.reports.end()) write_file_atomically(json->path, listing_json(job, backends));
  if (json != job.reports.end() && (job.quiet || json->path == "/dev/stdout")) return 0;
  std::ostringstream listing;  // device names and driver strings, escaped for the terminal
  print_listing(job, backends, listing);
  std::cout << printable_lines(listing.str());
  return 0;
}

// The input: the file, or the generated chart at the first size (a size sweep makes it again at each);
// the memory for the largest one checked before it is made.
Image load_input(const Job& job) {
  if (job.image_path.empty()) {
    const auto largest = std::ranges::max(job.sizes, {}, [](const auto& size) { return 1LL * size.first * size.second; });
    check_run_memory(job, largest.first, largest.second, job.channels, false);
  }
  Image image = job.image_path.empty()
                    ? make_default_image(job.sizes.front().first, job.sizes.front().second, job.channels)
                    : load_image(job.image_path);
  if (!job.image_path.empty()) check_run_memory(job, image.width, image.height, image.channels, true);
  // A size sweep's charts hold the same values as this one, so one check covers every size.
  const SampleFacts facts = sample_facts(image);
  for (const Filter& filter : job.filters) check_sums_fit_float(facts, filter);
  return image;
}

// Rows of what an API lacks (Target::absent) are shown, and then "nothing ran" if nothing else did.
void check_something_runs(const Job& job, const std::vector<Target>& targets) {
  const std::vector<std::string> unavailable = unavailable_backends(targets);
  if (std::ranges::none_of(targets, [](const Target& target) { return target.runs() || target.absent; }))
    throw InputError(unavailable.empty() ? "nothing to run: no backend, device and variant selected"
                                         : fmt::format("nothing to run: {}", fmt::join(unavailable, "; ")));
  // The console report says "cuda: not run: ..." once; with --quiet there is none, so stderr says it
  // (not both).
  if (job.quiet)
    for (const std::string& line : unavailable) std::cerr << "convcompare: skipping " << printable(line) << '\n';
}

// --compare: the baseline, and enough samples for the U test to decide against it (compare.h,
// compare_sample_floor) and, unless the user set --max-noise, room to add samples until the noise lets
// the threshold come down to --min-change (compare_noise_target_percent), within --time-budget:
// nvbench's rule.
void read_compare_baseline(Job& job) {
  job.baseline = read_baseline(job.compare_path);
  const int floor = compare_sample_floor(*job.baseline, job.compare_rule);
  job.options.repetitions = std::max(job.options.repetitions, floor);
  job.options.min_samples = std::max(job.options.min_samples, floor);  // the noise rule stops no earlier
  if (!(job.options.max_noise_percent > 0)) {
    job.options.max_noise_percent = compare_noise_target_percent(job.compare_rule);
    job.options.repetitions = std::max(job.options.repetitions, kCompareRepetitions);
  }
}

// The loops, cut short by a stop signal: a driver that the signal reached failed in the run in
// progress (problem_loop.cpp, cut_by_interrupt), so the interrupt, reported after, is the cause; the
// runs that finished are kept. Returns the signal that stopped the runs early, or 0.
int run_until_stopped(const ProblemLoop& loop) {
  try {
    run_problems(loop);
  } catch (...) {
    if (stop_signal() == 0) throw;
  }
  const int stopped_by = stop_signal();
  stop_reached();
  return stopped_by;
}

// After the runs: the bounds, the comparison, the console table, the reports and the contact sheet;
// then the exit status (README, "Exit status").
int report_and_exit_status(const Job& job, Report& report, OutputWriter& outputs, Progress& progress,
                           int stopped_by) {
  for (RunRecord& run : report.runs)
    if (const auto device = std::ranges::find(report.devices, run.device, &DeviceInfo::id); device != report.devices.end())
      derive_bound(run, device->peaks);
  progress.finish();  // the report starts on a line of its own
  std::vector<Comparison> comparisons;
  if (job.baseline) {
    comparisons = compare_reports(*job.baseline, report, job.compare_rule);
    attach_verdicts(report, comparisons);  // the verdicts go into the JSON and CSV reports too
  }
  if (stopped_by != 0) report.incomplete = interrupted_reason(report);
  if (!job.quiet) make_printer(ReportFormat::Console, job.verbose, report_columns(kConsoleWidth))->print(report, std::cout);
  write_reports(report, {job.reports, job.plot_path});
  // Interrupted before any image was made, there is no sheet to write (and no error in that).
  if (stopped_by == 0 || outputs.has_images()) outputs.write_contact_sheet();
  if (const int signal_number = stop_signal(); signal_number != 0) {  // README, "Exit status": 128 + the signal
    if (stopped_by != 0)
      std::cerr << "convcompare: " << report.incomplete << "; the reports hold what finished, marked incomplete\n";
    else  // the signal came while the reports were written: every run had finished
      std::cerr << "convcompare: interrupted by " << stop_signal_name()
                << " after every run had finished; the reports are complete\n";
    return 128 + signal_number;
  }
  const bool failed = any_failed(report);
  // A baseline that matches nothing is a usage error (exit 2), not a pass; a failure keeps its own status.
  if (job.baseline && !failed) check_any_matched(comparisons);
  if (job.baseline && !job.quiet)
    print_comparison_escaped(comparisons, job.compare_rule, machine_changes(*job.baseline, report, job.compare_rule));
  if (failed) return 1;  // a validation failure keeps its own status, whatever the comparison says
  // Every target had a device, yet every run was skipped (no variant fits this problem here): the
  // report says why run by run; the status says that nothing was measured.
  if (std::ranges::none_of(report.runs, [](const RunRecord& run) { return run.status != Status::Skipped; }))
    throw InputError(fmt::format("nothing ran: every run was skipped ({})", report.runs.front().reason));
  if (any_slower(comparisons)) return 3;        // README, "Exit status": slower beyond noise, nothing failed
  if (any_inconclusive(comparisons)) return 4;  // README, "Exit status": too few samples to tell
  return 0;
}

}  // namespace

int run_job(const Config& config) {
  if (!config.merge_reports.empty()) {
    std::ostringstream text;  // the hosts and devices the saved reports name, escaped for the terminal
    const int status = run_merge(config, text);
    std::cout << printable_lines(text.str());
    return status;
  }
  check_open_file_limit();
  Job job = make_job(config);
  // From here a first Ctrl-C lets the step in progress finish (device discovery and the peaks can take
  // seconds on a GPU host) and starts no run after it: the reports hold what finished, marked incomplete
  // (README, "Exit status"; backends/stop_request.h bounds how long the step may take).
  const StopOnSignal stop;
  const std::vector<std::unique_ptr<Backend>> backends = make_backends();
  if (job.list) return print_list(job, backends);
  check_variants(job, backends);
  Image image = load_input(job);
  check_devices(job, backends);
  const std::vector<Target> targets = plan_targets(job, backends);
  // Two or more devices of one backend named: --split and --stream also run on them together.
  const std::vector<MultiTarget> multi_targets = plan_multi_targets(job, targets);
  check_something_runs(job, targets);
  // Every output path, checked against the others and the inputs, before any work.
  const OutputPlan plan(job, image, targets);
  OutputWriter outputs(plan);
  if (!job.compare_path.empty()) read_compare_baseline(job);
  check_json_report_fits(job, targets);

  Report report = report_header(job, image, backends);
  if (job.measure_peaks && stop_signal() == 0) measure_device_peaks(targets, report);
  AutoTuner tuner(job.retune);
  Progress progress(progress_steps(job, image, targets, multi_targets), job.options.time_budget_s, std::cerr,
                    isatty(STDERR_FILENO) != 0 ? terminal_columns(STDERR_FILENO) : 0);
  const int stopped_by = run_until_stopped({job, image, targets, multi_targets, outputs, progress, tuner, report});
  return report_and_exit_status(job, report, outputs, progress, stopped_by);
}

int convcompare_main(int argc, const char* const* argv) {
  guard_standard_streams();
  report_write_failures_as_errors();
  remove_temporaries_on_signals();
  int status = 0;
  std::optional<Config> config;
  try {
    config = parse_command_line(argc, argv, std::cout);
    status = config ? run_job_or_interrupt(*config) : 0;
  } catch (const InputError& error) {
    print_error(error.what());
    status = 2;
  } catch (const std::bad_alloc&) {
    // Backstop: the loaders and readers check memory before allocating; what slips past them is still
    // a request too large for this machine, said in one line. The images are checked before any run
    // (check_run_memory); --cold's scratch (backends/measure.h: twice the device's cache, 64 MB at least,
    // 512 MB on some CPUs' OpenCL) is not, so with --cold it is the likelier cause.
    print_error(config && config->measurement.cold
                    ? "out of host memory: this run needs more memory than is free (--cold's cache-flush scratch, "
                      "twice the device's cache, may be what did not fit: try without --cold, or a smaller --size or image)"
                    : "out of host memory: this run needs more memory than is free (try a smaller --size or image)");
    status = 2;
  } catch (const std::exception& error) {
    // Neither bad input nor a validation result (an unexpected failure): still one line, status 1.
    print_error(error.what());
    status = 1;
  }
  if (std::string problem; !stdout_written(problem)) {
    print_error(fmt::format("cannot write to standard output: {}", problem));
    if (status == 0) status = 2;
  }
  return status;
}

}  // namespace cc
