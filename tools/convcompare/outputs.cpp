// outputs.cpp: the output plan (every path a run writes, named and checked before any work) and the --output-dir image writes and contact sheet.
#include "tools/convcompare/outputs.h"

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <fstream>
#include <map>
#include <cctype>
#include <sstream>

#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "common/domain/input_file.h"
#include "common/domain/temporary_files.h"
#include "common/report/contact_sheet.h"
#include "common/report/plot.h"
#include "common/report/report_read.h"
#include "tools/convcompare/autotune.h"
#include "common/report/printer.h"

namespace cc {

namespace {

namespace fs = std::filesystem;

// Why no file can be made in `dir` ("" when one can): a probe file created there and removed (on a
// signal too), the one check behind both the report destinations and --output-dir, so a typo or a
// read-only directory fails now and not after minutes of runs.
std::string cannot_create_in(const fs::path& dir) {
  const fs::path probe = dir / fmt::format(".convcompare-probe-{}", ::getpid());
  const TemporaryFile removed_on_signals(probe.string());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno == EEXIST ? "" : std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

constexpr std::size_t kMaxSheetTiles = 16;
// write_file_atomically writes "<name>.tmp-<pid>-<n>" beside each output first: a name must leave room
// for that suffix within the usual 255-byte limit of one path component.
constexpr std::size_t kMaxOutputName = 255 - 32;

// One file the run writes: the option that asks for it, its path, and what it holds (two entries with
// the same `content` are one file written twice with the same bytes).
struct PlannedFile {
  std::string what;
  std::string path;
  std::string content;
};

// One file the run reads.
struct InputName {
  std::string what;
  std::string path;
};

std::string_view report_option(ReportFormat format) {
  switch (format) {
    case ReportFormat::Json: return "--json";
    case ReportFormat::Csv: return "--csv";
    case ReportFormat::Markdown: return "--markdown";
    case ReportFormat::Console: break;
  }
  return "report";
}

// The image, the filter files, the baseline, the OpenCL sources of --kernel-dir, and the tuning cache
// of every device --variant auto runs on (with its lock file).
std::vector<InputName> run_inputs(const Job& job, const std::vector<Target>& targets) {
  std::vector<InputName> inputs;
  if (!job.image_path.empty()) inputs.push_back({"--image", job.image_path});
  for (const Filter& filter : job.filters)
    if (filter.spec.starts_with("file:")) inputs.push_back({"--filter", filter.spec.substr(5)});
  if (!job.compare_path.empty()) inputs.push_back({"--compare", job.compare_path});
  for (const std::string& report : job.merged_reports) inputs.push_back({"merge", report});
  if (!job.options.kernel_dir.empty()) {
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(job.options.kernel_dir, error))
      if (entry.is_regular_file(error)) inputs.push_back({"--kernel-dir", entry.path().string()});
  }
  for (const Target& target : targets)
    if (target.runs() && target.variant && target.variant->kind == VariantKind::Choice) {
      const fs::path cache = TuningCache::file_for(TuningCache::default_directory(),
                                                   target.backend->devices()[target.device]);
      inputs.push_back({"tuning cache", cache.string()});
      inputs.push_back({"tuning cache", cache.string() + ".lock"});
    }
  return inputs;
}

void check_name_length(const PlannedFile& file) {
  const std::string name = fs::path(file.path).filename().string();
  if (name.size() > kMaxOutputName)
    throw InputError(fmt::format("{} '{}': the file name is {} bytes long, at most {} fit beside its temporary",
                                 file.what, file.path, name.size(), kMaxOutputName));
}

// The standard stream (1 or 2) that `path` reaches through /dev/stdout, /dev/stderr, /dev/fd/N or
// /proc/self/fd/N, followed link by link; 0 for any other path.
int standard_stream_named(const std::string& path) {
  const std::string self = fmt::format("/proc/{}/fd/", ::getpid());
  fs::path hop = path;
  for (int links = 0; links < 40; ++links) {
    const std::string name = hop.lexically_normal().string();
    for (const int fd : {STDOUT_FILENO, STDERR_FILENO})
      for (const std::string& spelling : {fmt::format("/dev/fd/{}", fd), fmt::format("/proc/self/fd/{}", fd),
                                          self + std::to_string(fd)})
        if (name == spelling) return fd;
    if (name == "/dev/stdout") return STDOUT_FILENO;
    if (name == "/dev/stderr") return STDERR_FILENO;
    std::error_code error;
    if (!fs::is_symlink(hop, error)) return 0;
    const fs::path target = fs::read_symlink(hop, error);
    if (error) return 0;
    hop = target.is_absolute() ? target : hop.parent_path() / target;
  }
  return 0;
}

// The report can be written: its directory exists, it is not a directory, a standard stream it names
// is open for writing, and a file can be made beside it (where write_file_atomically makes its
// temporary) or, for a device or FIFO written in place, the file is writable. Found out now, not after
// every run has finished (with --quiet that would lose the whole measurement).
void check_report_path(const PlannedFile& file) {
  const fs::path parent = fs::path(file.path).parent_path();
  std::error_code error;
  if (!parent.empty() && !fs::is_directory(parent, error))
    throw InputError(fmt::format("cannot write {} '{}': directory '{}' does not exist", file.what, file.path,
                                 parent.string()));
  if (fs::is_directory(file.path, error))
    throw InputError(fmt::format("cannot write {} '{}': it is a directory", file.what, file.path));
  // The driver reopens a closed standard stream read-only on /dev/null (driver.cpp), so that the
  // stream's name would otherwise lead a report to /dev/null with exit 0.
  if (const int fd = standard_stream_named(file.path); fd != 0) {
    // Standard error carries the progress line, warnings and errors of the run itself: a report there
    // would come out with them mixed in (or be lost with them under 2>/dev/null).
    if (fd == STDERR_FILENO)
      throw InputError(fmt::format("cannot write {} '{}': it is standard error, where progress, warnings and "
                                   "errors go too: name a file, or standard output with --quiet",
                                   file.what, file.path));
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
      throw InputError(fmt::format("cannot write {} '{}': standard {} is closed, so the report would be lost",
                                   file.what, file.path, fd == STDOUT_FILENO ? "output" : "error"));
    return;
  }
  const fs::file_status status = fs::symlink_status(file.path, error);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    // Written in place (a device, a FIFO, through a symlink): opening it here would be a side effect
    // (a FIFO's reader would see the end of its input), so its permission is asked instead.
    if (fs::exists(file.path, error) && ::access(file.path.c_str(), W_OK) != 0)
      throw InputError(fmt::format("cannot write {} '{}': {}", file.what, file.path, std::strerror(errno)));
    return;
  }
  const fs::path dir = parent.empty() ? fs::path(".") : parent;
  if (const std::string reason = cannot_create_in(dir); !reason.empty())
    throw InputError(fmt::format("cannot write {} '{}': {} in '{}'", file.what, file.path, reason, dir.string()));
}

// Reports are read back (merge, --compare) up to kMaxReportBytes. A run's JSON record is about 1.2 KB
// with short names (measured on a 1x1 image) plus its names: the filter spec appears in it up to three
// times (the filter, the output image's name and path) and the --output-dir path once. A job whose
// --json report could pass the reader's limit is refused before it runs, so that every report the tool
// writes is one its own reader accepts.
constexpr std::size_t kRecordBytesBesideNames = 2048;
// A raw sample in kernel_samples_ms: its line's indent (8), the number at its longest (shortest round-trip
// of a double: "-1.2345678901234567e-05", 23) and ",\n".
constexpr std::size_t kSampleBytes = 33;

// The stream a destination writes into, for the rule that each stream is claimed by one writer: the
// inode it reaches (a file, a pipe, a FIFO, a terminal, /dev/stdout followed to whichever of these standard
// output is), or its path while it does not exist yet. "" for /dev/null, which loses nothing and may be
// shared. Two reports in one pipe are as unreadable as two in one file (JSON followed by CSV), so a pipe
// is claimed like a file, whatever kind of stream standard output happens to be.
std::string claimed_stream(const struct stat& info) {
  struct stat null {};
  if (S_ISCHR(info.st_mode) && ::stat("/dev/null", &null) == 0 && info.st_rdev == null.st_rdev) return "";
  return fmt::format("inode {}:{}", static_cast<unsigned long long>(info.st_dev),
                     static_cast<unsigned long long>(info.st_ino));
}

std::string claimed_stream(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? claimed_stream(info) : file_identity(path);
}

// Creates the directory if needed and proves it writable with a probe file (removed on a signal too),
// so a typo fails now and not after minutes of runs.
void prepare_output_dir(const fs::path& dir) {
  std::error_code error;
  if (fs::exists(dir, error) && !fs::is_directory(dir, error))
    throw InputError(fmt::format("--output-dir '{}' exists and is not a directory", dir.string()));
  fs::create_directories(dir, error);
  if (error) throw InputError(fmt::format("cannot create --output-dir '{}': {}", dir.string(), error.message()));
  if (!cannot_create_in(dir).empty()) throw InputError(fmt::format("--output-dir '{}' is not writable", dir.string()));
}

// Each stream claimed by one writer (claimed_stream): the console report (and --compare's table, which
// --quiet leaves out too) claims standard output, each file its own.
void check_streams_claimed_once(const std::vector<PlannedFile>& files, bool quiet) {
  std::map<std::string, const PlannedFile*> claims;
  const PlannedFile console{"the console report", "standard output", "console"};
  if (struct stat out {}; !quiet && ::fstat(STDOUT_FILENO, &out) == 0)
    if (const std::string stream = claimed_stream(out); !stream.empty()) claims.emplace(stream, &console);
  for (const PlannedFile& file : files) {
    const std::string stream = claimed_stream(file.path);
    if (stream.empty()) continue;
    const auto [entry, added] = claims.emplace(stream, &file);
    const PlannedFile& other = *entry->second;
    if (added || (!other.content.empty() && other.content == file.content)) continue;
    if (&other == &console)
      throw InputError(fmt::format("{} '{}' is standard output, where the console report goes too: add --quiet",
                                   file.what, file.path));
    throw InputError(fmt::format("{} and {} name the same {} '{}': each needs its own", other.what, file.what,
                                 stream.starts_with("path ") || fs::is_regular_file(file.path) ? "file" : "stream",
                                 file.path));
  }
}

// An output that is an input, by file (file_identity: a terminal or pipe read and written is no loss).
void check_no_output_is_an_input(const std::vector<PlannedFile>& files, const Job& job,
                                 const std::vector<Target>& targets) {
  std::map<std::string, const PlannedFile*> written;
  for (const PlannedFile& file : files)
    if (const std::string identity = file_identity(file.path); !identity.empty()) written.emplace(identity, &file);
  for (const InputName& read : run_inputs(job, targets)) {
    const std::string identity = file_identity(read.path);
    if (const auto found = written.find(identity); !identity.empty() && found != written.end())
      throw InputError(fmt::format("{} '{}' is the {} input of this run: writing it would destroy the input",
                                   found->second->what, found->second->path, read.what));
  }
}

}  // namespace

// Every report rendered before any is written, and a JSON one larger than what merge and --compare read
// back (kMaxReportBytes, report_read.h) refused: this is the one bound every writer of a report (the
// driver, merge) passes through, so a report the tool writes is always one its reader accepts. The
// driver's job is estimated against the same bound before it runs (OutputPlan), so no runs are spent on
// a report that would be refused here.
void write_reports(const Report& report, const ReportDestinations& destinations) {
  std::vector<std::string> texts;
  for (const ReportOutput& output : destinations.reports) {
    std::ostringstream text;
    make_printer(output.format)->print(report, text);
    texts.push_back(std::move(text).str());
    if (output.format == ReportFormat::Json && texts.back().size() > kMaxReportBytes)
      throw InputError(fmt::format("--json '{}': the report would be {}, over the {} merge and --compare read "
                                   "back: merge fewer reports or split the job; nothing was written",
                                   output.path, describe_bytes(texts.back().size()), describe_bytes(kMaxReportBytes)));
  }
  for (std::size_t i = 0; i < texts.size(); ++i) write_file_atomically(destinations.reports[i].path, texts[i]);
  if (!destinations.plot_path.empty()) write_plot(report, destinations.plot_path);
}

OutputPlan::OutputPlan(const Job& job, const Image& input, const std::vector<Target>& targets)
    : dir_(job.output_dir),
      format_(output_format(job, input)),
      several_sizes_(job.sizes.size() > 1),
      several_memories_(job.memories.size() > 1),
      several_pixels_(job.pixels.size() > 1) {
  std::vector<PlannedFile> files;
  for (const ReportOutput& report : job.reports) files.push_back({std::string(report_option(report.format)), report.path, ""});
  if (!job.plot_path.empty()) files.push_back({"--plot", job.plot_path, ""});
  for (const PlannedFile& file : files) {
    check_name_length(file);
    check_report_path(file);
  }
  if (!job.plot_path.empty()) check_plot_path(job.plot_path);
  if (images()) {
    const std::size_t reports = files.size();
    files.push_back({"--output-dir's contact sheet", contact_sheet_path().string(), "contact sheet"});
    files.push_back({"--output-dir's probe", (dir_ / fmt::format(".convcompare-probe-{}", getpid())).string(), "probe"});
    // An image file's size, or each generated size.
    std::vector<std::pair<int, int>> sizes = job.sizes;
    if (!job.image_path.empty()) sizes = {{input.width, input.height}};
    for (const auto& [width, height] : sizes)
      for (const Filter& filter : job.filters)
        for (const Border border : job.borders)
          for (const PixelType pixel : job.pixels) {
            const std::string problem = fmt::format("{}|{}|{}|{}x{}|{}", filter.spec, to_string(border), job.flip,
                                                    width, height, to_string(pixel));
            const std::string name = stem(filter.spec, border, job.flip, width, height, pixel);
            files.push_back({"--output-dir's reference", reference_path(name).string(), problem});
            for (const HostMemory memory : job.memories)
              for (const Target& target : targets)
                if (target.variant)
                  files.push_back({"--output-dir's result", result_path(name, target, memory).string(),
                                   fmt::format("{}|{}|{}|{}", problem, target.device_id, target.variant->name,
                                               several_memories_ ? to_string(memory) : "")});
          }
    for (std::size_t i = reports; i < files.size(); ++i) check_name_length(files[i]);
  }

  check_streams_claimed_once(files, job.quiet);
  check_no_output_is_an_input(files, job, targets);

  if (images()) prepare_output_dir(dir_);
}

void check_json_report_fits(const Job& job, const std::vector<Target>& targets) {
  if (std::ranges::none_of(job.reports, [](const ReportOutput& report) { return report.format == ReportFormat::Json; }))
    return;
  // As the driver counts them: one run record per target and problem, and a stream record for each
  // --stream target.
  const std::size_t streams = std::ranges::count_if(targets, [&](const Target& target) {
    return job.stream_frames > 0 && target.runs() && target.has_device_memory() &&
           target.variant->kind != VariantKind::Choice;
  });
  const std::size_t records = job.sizes.size() * job.filters.size() * job.borders.size() * job.pixels.size() *
                              job.memories.size() * (targets.size() + streams);
  std::size_t longest_spec = 0;
  for (const Filter& filter : job.filters) longest_spec = std::max(longest_spec, filter.spec.size());
  // Every run may keep all its samples (the time budget usually stops it sooner, but a fast kernel under a
  // long budget does not), so the bound counts --repetitions of them a run: --repetitions 1000000 once
  // measured for seconds and then refused a 76 MB report.
  const std::size_t samples = static_cast<std::size_t>(std::max(job.options.repetitions, 1));
  const std::size_t base_bytes = kRecordBytesBesideNames + 3 * longest_spec + job.output_dir.size();
  if (records == 0 || records <= kMaxReportBytes / (base_bytes + samples * kSampleBytes)) return;
  const std::size_t share = kMaxReportBytes / records;  // what one record may take
  const std::size_t fitting_samples = share > base_bytes ? (share - base_bytes) / kSampleBytes : 0;
  throw InputError(fmt::format(
      "--json: this job makes {} runs of up to {} samples, a report of up to {}, more than the {} merge and "
      "--compare read back: {}split it into several jobs",
      records, samples, describe_bytes(records * (base_bytes + samples * kSampleBytes)), describe_bytes(kMaxReportBytes),
      fitting_samples > 0 ? fmt::format("lower --repetitions to at most {} or ", fitting_samples) : ""));
}

std::string OutputPlan::stem(std::string_view spec, Border border, bool flip, int width, int height,
                             PixelType pixel) const {
  std::string name = fmt::format("{}_{}{}", filter_stem(spec), to_string(border), flip ? "_flip" : "");
  if (several_sizes_) name += fmt::format("_{}x{}", width, height);
  if (several_pixels_) name += fmt::format("_{}", to_string(pixel));
  return name;
}

std::string OutputPlan::stem(const Problem& problem) const {
  return stem(problem.filter.spec, problem.border, problem.flip, problem.width, problem.height, problem.pixel);
}

fs::path OutputPlan::reference_path(const std::string& stem) const { return dir_ / (stem + "_reference." + format_); }

fs::path OutputPlan::result_path(const std::string& stem, const Target& target, HostMemory memory) const {
  // The device id names its backend ("cpu", "cuda-0", "opencl-1-0"): the backend once, not again in
  // front of it ("_opencl_opencl-0-0_global"). The pinned run keeps the plain name; another mode's
  // says which it was ("_pageable", "_mapped").
  std::string device = slug(target.device_id);
  if (!device.starts_with(target.backend_name)) device = fmt::format("{}_{}", target.backend_name, device);
  const std::string suffix = several_memories_ && memory != HostMemory::Pinned ? fmt::format("_{}", to_string(memory)) : "";
  return dir_ / fmt::format("{}_{}_{}{}.{}", stem, device, target.variant->name, suffix, format_);
}

void OutputWriter::save(const Image& image, const fs::path& path) const {
  if (plan_.format() == "png")
    save_png(image, path.string());
  else
    save_pfm(image, path.string());
}

void OutputWriter::begin_image(const Image& image) {
  if (!enabled()) return;
  sheet_.clear();
  sheet_.push_back({"original", image});
}

void OutputWriter::begin_problem(const Problem& problem, const Image& reference) {
  if (!enabled()) return;
  stem_ = plan_.stem(problem);
  problem_label_ = fmt::format("{} {}{}", problem.filter.spec, to_string(problem.border),
                               plan_.several_pixels() ? fmt::format(" {}", to_string(problem.pixel)) : "");
  save(reference, plan_.reference_path(stem_));
  reference_ = &reference;
  tile_.reset();
}

std::string OutputWriter::write_result(const Target& target, HostMemory memory, Image output, bool run_ok) {
  if (!enabled() || output.empty()) return "";
  const fs::path path = plan_.result_path(stem_, target, memory);
  save(output, path);
  if (!tile_ && run_ok && target.has_device_memory())
    tile_ = Tile{fmt::format("{}: {} {}", problem_label_, target.device_id, target.variant->name), std::move(output)};
  return path.string();
}

void OutputWriter::end_problem() {
  if (!enabled() || sheet_.size() >= kMaxSheetTiles) return;
  sheet_.push_back(tile_ ? std::move(*tile_) : Tile{problem_label_ + ": reference", *reference_});
}

void OutputWriter::write_contact_sheet() const {
  if (!enabled()) return;
  std::vector<LabelledImage> tiles;
  for (const Tile& entry : sheet_) tiles.push_back({entry.label, &entry.image});
  cc::write_contact_sheet(tiles, plan_.contact_sheet_path().string());
}

}  // namespace cc
