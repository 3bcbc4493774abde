// driver.cpp: the convcompare job: check all input cheaply first, then run, validate, write and report.
#include "tools/driver.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <cmath>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <tuple>

#include "backends/backend.h"
#include "common/domain/error.h"
#include "common/domain/filter.h"
#include "common/domain/image_io.h"
#include "common/domain/input_file.h"
#include "common/domain/problem.h"
#include "common/domain/temporary_files.h"
#include "common/domain/reference.h"
#include "common/report/report.h"
#include "common/domain/validate.h"
#include "common/domain/variants.h"
#include "common/report/compare.h"
#include "common/report/contact_sheet.h"
#include "common/report/plot.h"
#include "common/report/report_read.h"
#include "tools/autotune.h"
#include "tools/progress.h"
#include "tools/sweep.h"

namespace cc {

namespace {

namespace fs = std::filesystem;

// The backends the command line knows, in report order, with how many numbers their device ids carry.
struct BackendName {
  std::string_view name;
  std::size_t id_numbers;         // cpu: "cpu", cuda: "cuda:N", opencl: "opencl:P:D"
  std::string_view build_option;  // how to get it when this binary lacks it
};
constexpr BackendName kBackendNames[] = {
    {"cpu", 0, ""}, {"cuda", 1, "-DCONVCOMPARE_CUDA=ON"}, {"opencl", 2, "-DCONVCOMPARE_OPENCL=ON"}};
constexpr Border kBorders[] = {Border::Zero, Border::Clamp, Border::Mirror, Border::Wrap};


template <typename Range, typename Value>
bool contains(const Range& range, const Value& value) {
  return std::ranges::find(range, value) != std::ranges::end(range);
}

const BackendName* find_backend_name(std::string_view name) {
  const auto* found = std::ranges::find(kBackendNames, name, &BackendName::name);
  return found == std::ranges::end(kBackendNames) ? nullptr : found;
}

Backend* find_backend(const std::vector<std::unique_ptr<Backend>>& backends, std::string_view name) {
  const auto found = std::ranges::find_if(backends, [&](const auto& backend) { return backend->name() == name; });
  return found == backends.end() ? nullptr : found->get();
}

// A device id split at its colons: "opencl:1:0" -> {"opencl", {1, 0}}; nullopt when a number is not one.
struct DeviceId {
  std::string backend;
  std::vector<int> numbers;
};

std::optional<DeviceId> split_device_id(std::string_view id) {
  DeviceId result;
  std::size_t colon = id.find(':');
  result.backend = id.substr(0, colon);
  while (colon != std::string_view::npos) {
    id.remove_prefix(colon + 1);
    colon = id.find(':');
    const std::string_view part = id.substr(0, colon);
    int number = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), number);
    if (part.empty() || error != std::errc{} || end != part.data() + part.size() || number < 0) return std::nullopt;
    result.numbers.push_back(number);
  }
  return result;
}

// One --device. Fewer numbers select more: "opencl:1" is every device of OpenCL platform 1.
struct DeviceSelector {
  std::string text;
  DeviceId id;

  bool matches(const DeviceInfo& device) const {
    const std::optional<DeviceId> other = split_device_id(device.id);
    return other && other->backend == id.backend && other->numbers.size() >= id.numbers.size() &&
           std::equal(id.numbers.begin(), id.numbers.end(), other->numbers.begin());
  }
};

DeviceSelector parse_device(const std::string& text) {
  const std::optional<DeviceId> id = split_device_id(text);
  const BackendName* backend = id ? find_backend_name(id->backend) : nullptr;
  if (!backend || id->numbers.size() > backend->id_numbers)
    throw InputError(fmt::format("bad device '{}': expected cpu, cuda:N or opencl:P:D", text));
  return {text, *id};
}

// The Config checked and resolved; everything here was validated before any slow work.
struct Job {
  std::vector<std::string> backends;  // selected, in report order
  bool backends_named = false;        // --backend listed them (not "all"): a missing one is reported
  std::vector<DeviceSelector> devices;
  std::vector<std::string> variants;  // requested, in kVariants order
  std::vector<Filter> filters;  // with --sweep radius, every filter at every radius
  std::vector<Border> borders;
  std::vector<std::pair<int, int>> sizes;  // --sweep size: the generated image at each; empty: one image
  std::vector<bool> pinned;                // per --memory mode, in order
  std::optional<Report> baseline;          // --compare, read before any work
};

std::vector<std::string> select_backends(const std::vector<std::string>& requested) {
  for (const std::string& name : requested)
    if (name != "all" && !find_backend_name(name))
      throw InputError(fmt::format("unknown backend '{}' (cpu, cuda, opencl, all)", name));
  std::vector<std::string> selected;
  for (const BackendName& backend : kBackendNames)
    if (contains(requested, "all") || contains(requested, backend.name)) selected.emplace_back(backend.name);
  return selected;
}

std::vector<std::string> select_variants(const std::vector<std::string>& requested) {
  std::vector<std::string_view> known;
  for (const VariantInfo& variant : all_variants()) known.push_back(variant.name);
  for (const std::string& name : requested)
    if (name != "all" && !find_variant(name))
      throw InputError(fmt::format("unknown variant '{}' ({}, all)", name, fmt::join(known, ", ")));
  std::vector<std::string> selected;
  for (std::string_view name : known)
    // "all" is every implementation; auto is a choice among them, run only when named.
    if ((contains(requested, "all") && name != "auto") || contains(requested, name)) selected.emplace_back(name);
  return selected;
}

// Creates the directory if needed and proves it writable with a probe file, so a typo fails now and
// not after minutes of runs.
void prepare_output_dir(const fs::path& dir) {
  std::error_code error;
  if (fs::exists(dir, error) && !fs::is_directory(dir, error))
    throw InputError(fmt::format("--output-dir '{}' exists and is not a directory", dir.string()));
  fs::create_directories(dir, error);
  if (error) throw InputError(fmt::format("cannot create --output-dir '{}': {}", dir.string(), error.message()));
  const fs::path probe = dir / fmt::format(".convcompare-probe-{}", getpid());
  const bool writable = std::ofstream(probe).good();
  fs::remove(probe, error);
  if (!writable) throw InputError(fmt::format("--output-dir '{}' is not writable", dir.string()));
}

void check_report_path(const std::string& path, std::string_view option) {
  if (path.empty()) return;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent))
    throw InputError(fmt::format("cannot write {} '{}': directory '{}' does not exist", option, path, parent.string()));
  if (fs::is_directory(path)) throw InputError(fmt::format("cannot write {} '{}': it is a directory", option, path));
}

// --json, --csv, --markdown and --plot each need a file of their own, and none may be an input of the
// run (the image, a filter file, the --compare baseline): writing one would destroy another.
void check_reports_distinct(const Config& config) {
  const std::pair<std::string_view, const std::string*> reports[] = {
      {"--json", &config.json_path}, {"--csv", &config.csv_path}, {"--markdown", &config.markdown_path},
      {"--plot", &config.plot_path}};
  std::vector<std::pair<std::string, std::string>> inputs = {{"--image", config.image_path},
                                                             {"--compare", config.compare_path}};
  for (const std::string& spec : config.filters)
    if (spec.starts_with("file:")) inputs.emplace_back("--filter", spec.substr(5));
  for (auto report = std::begin(reports); report != std::end(reports); ++report) {
    if (report->second->empty()) continue;
    for (auto other = std::begin(reports); other != report; ++other)
      if (!other->second->empty() && same_file(*report->second, *other->second))
        throw InputError(fmt::format("{} and {} name the same file '{}': each needs its own", other->first,
                                     report->first, *report->second));
    for (const auto& [option, input] : inputs)
      if (!input.empty() && same_file(*report->second, input))
        throw InputError(fmt::format("{} '{}' is the {} input of this run: writing it would destroy the input",
                                     report->first, *report->second, option));
  }
}

Job check_config(const Config& config) {
  Job job;
  job.backends = select_backends(config.backends);
  job.backends_named = !contains(config.backends, "all");
  for (const std::string& device : config.devices) job.devices.push_back(parse_device(device));
  if (!job.devices.empty()) {
    for (const DeviceSelector& device : job.devices)
      if (!contains(job.backends, device.id.backend))
        throw InputError(fmt::format("device '{}' is on backend {}, which --backend does not select", device.text,
                                     device.id.backend));
    // Naming devices runs only those: a backend with none named drops out.
    std::erase_if(job.backends, [&](const std::string& backend) {
      return std::ranges::none_of(job.devices,
                                  [&](const DeviceSelector& device) { return device.id.backend == backend; });
    });
  }
  job.variants = select_variants(config.variants);
  const Sweep sweep = parse_sweeps(config.sweeps);
  // A radius sweep needs filters with a radius: box unless --filter names others.
  std::vector<std::string> specs =
      !config.filters.empty() ? config.filters : sweep.radii.empty() ? default_filter_specs() : std::vector<std::string>{"box"};
  for (const std::string& spec : specs) {
    parse_filter_spec(spec);  // a bad spec is named as the user wrote it
    if (sweep.radii.empty()) job.filters.push_back(parse_filter_spec(spec));
    for (const int radius : sweep.radii) job.filters.push_back(parse_filter_spec(filter_spec_with_radius(spec, radius)));
  }
  if (!sweep.sizes.empty() && !config.image_path.empty())
    throw InputError("--sweep size varies the generated image; it cannot be used with --image");
  job.sizes = sweep.sizes;
  for (const auto& [width, height] : job.sizes) check_image_size(width, height, config.channels, "--sweep size");
  for (const std::string& memory : config.memories)
    if (!contains(job.pinned, memory == "pinned")) job.pinned.push_back(memory == "pinned");
  for (const std::string& name : config.borders)
    if (const Border border = parse_border(name); !contains(job.borders, border)) job.borders.push_back(border);
  if (config.image_path.empty()) check_image_size(config.width, config.height, config.channels, "--size");
  if (!config.kernel_dir.empty() && !fs::is_directory(config.kernel_dir))
    throw InputError(fmt::format("--kernel-dir '{}' is not a directory", config.kernel_dir));
  check_report_path(config.json_path, "--json");
  check_report_path(config.csv_path, "--csv");
  check_report_path(config.markdown_path, "--markdown");
  check_reports_distinct(config);
  if (!config.plot_path.empty()) check_plot_path(config.plot_path);
  if (!config.output_dir.empty()) prepare_output_dir(config.output_dir);
  if (!config.compare_path.empty()) job.baseline = read_json_report(config.compare_path);
  return job;
}

// png for 8-bit input, pfm for float, unless --output-format says otherwise; PFM holds 1 or 3 channels.
std::string output_format(const Config& config, const Image& image) {
  const std::string format = !config.output_format.empty() ? config.output_format : image.eight_bit ? "png" : "pfm";
  if (!config.output_dir.empty() && format == "pfm" && image.channels != 1 && image.channels != 3)
    throw InputError(
        fmt::format("PFM holds 1 or 3 channels and the input has {}: use --output-format png", image.channels));
  return format;
}

std::string not_built_reason(std::string_view backend) {
  return fmt::format("not built into this convcompare (configure with {})", find_backend_name(backend)->build_option);
}

// Runs before any backend work, since the variant lists need no device discovery.
void check_variants(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends) {
  if (contains(job.variants, "auto")) return;  // every backend has something to choose from
  std::vector<std::string> offered;
  for (const std::string& name : job.backends) {
    const Backend* backend = find_backend(backends, name);
    if (!backend) continue;
    const std::vector<std::string> variants = backend->variants();
    if (std::ranges::any_of(variants, [&](const std::string& variant) { return contains(job.variants, variant); }))
      return;
    offered.push_back(fmt::format("{} has {}", name, fmt::join(variants, ", ")));
  }
  if (!offered.empty())
    throw InputError(fmt::format("no selected backend implements variant {} ({})", fmt::join(job.variants, ", "),
                                 fmt::join(offered, "; ")));
}

// Runs after discovery, before any run: every --device must name a device that exists.
void check_devices(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends) {
  for (const DeviceSelector& selector : job.devices) {
    Backend* backend = find_backend(backends, selector.id.backend);
    if (!backend)
      throw InputError(fmt::format("unknown device '{}' (this convcompare was built without {})", selector.text,
                                   selector.id.backend));
    const std::vector<DeviceInfo>& devices = backend->devices();
    if (std::ranges::any_of(devices, [&](const DeviceInfo& device) { return selector.matches(device); })) continue;
    if (devices.empty())
      throw InputError(fmt::format("unknown device '{}' ({} has no device: {})", selector.text, selector.id.backend,
                                   backend->unavailable_reason()));
    std::vector<std::string_view> ids;
    for (const DeviceInfo& device : devices) ids.push_back(device.id);
    throw InputError(fmt::format("unknown device '{}' ({} has {} device{}: {})", selector.text, selector.id.backend,
                                 devices.size(), devices.size() == 1 ? "" : "s", fmt::join(ids, ", ")));
  }
}

// One backend/device/variant to run for every filter and border, or to report as skipped.
struct Target {
  std::string backend_name;
  std::string device_id;       // "-" when skipped for want of a device
  Backend* backend = nullptr;  // null: not built into this binary
  int device = -1;             // index into backend->devices(); -1: skipped
  std::string variant;
  std::string skip_reason;
};

std::vector<Target> plan_targets(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends) {
  const auto skip_notice = [](std::string_view backend, std::string_view reason) {
    std::cerr << fmt::format("convcompare: skipping {}: {}\n", backend, reason);
  };
  std::vector<Target> targets;
  for (const std::string& name : job.backends) {
    Backend* backend = find_backend(backends, name);
    if (!backend) {
      if (!job.backends_named) continue;  // "all" means the backends this binary has
      skip_notice(name, not_built_reason(name));
      targets.push_back({name, "-", nullptr, -1, "-", not_built_reason(name)});
      continue;
    }
    std::vector<std::string> variants = backend->variants();
    std::erase_if(variants, [&](const std::string& variant) { return !contains(job.variants, variant); });
    if (contains(job.variants, "auto")) variants.emplace_back("auto");
    const std::vector<DeviceInfo>& devices = backend->devices();
    if (devices.empty()) {
      const std::string reason = backend->unavailable_reason();
      skip_notice(name, reason);
      for (const std::string& variant : variants) targets.push_back({name, "-", backend, -1, variant, reason});
      continue;
    }
    for (int index = 0; index < static_cast<int>(devices.size()); ++index) {
      const auto selects = [&](const DeviceSelector& selector) { return selector.matches(devices[index]); };
      if (!job.devices.empty() && std::ranges::none_of(job.devices, selects)) continue;
      for (const std::string& variant : variants)
        targets.push_back({name, devices[index].id, backend, index, variant, ""});
    }
  }
  return targets;
}

void print_listing(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends, std::ostream& out) {
  out << "Backends and devices:\n";
  for (const std::string& name : job.backends) {
    Backend* backend = find_backend(backends, name);
    if (!backend) {
      out << fmt::format("  {}: {}\n", name, not_built_reason(name));
      continue;
    }
    const std::vector<DeviceInfo>& devices = backend->devices();
    if (devices.empty()) out << fmt::format("  {}: no device: {}\n", name, backend->unavailable_reason());
    for (const DeviceInfo& device : devices) {
      out << fmt::format("  {}  {}\n", device.id, device.name);
      for (const auto& [property, value] : device.properties) out << fmt::format("      {}: {}\n", property, value);
    }
  }
  out << "\nVariants (memory space) [backends that implement it]:\n";
  for (const VariantInfo& variant : all_variants()) {
    std::vector<std::string_view> implementers;
    for (const auto& backend : backends)
      if (contains(backend->variants(), variant.name)) implementers.push_back(backend->name());
    const std::string where = variant.name == "auto"          ? "the driver, for every backend"
                              : implementers.empty()           ? "none in this build"
                                                               : fmt::format("{}", fmt::join(implementers, ", "));
    out << fmt::format("  {:<14} {} [{}]\n", variant.name, variant.memory_space, where);
  }
  std::vector<std::string_view> borders;
  for (Border border : kBorders) borders.push_back(to_string(border));
  out << fmt::format("\nFilters: {}, file:PATH\nBorders: {}\n", fmt::join(builtin_filter_names(), ", "),
                     fmt::join(borders, ", "));
}

// File-name-safe form: lowercase, anything but [a-z0-9.-] becomes '-'.
std::string slug(std::string_view text) {
  std::string result;
  for (const char c : text) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool keep = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9') || lower == '.' || lower == '-';
    result += keep ? lower : '-';
  }
  return result;
}

void save_image(const Image& image, const fs::path& path, const std::string& format) {
  if (format == "png")
    save_png(image, path.string());
  else
    save_pfm(image, path.string());
}

struct Outcome {
  RunRecord record;
  Image output;  // empty unless the backend produced a result
};

// The tuning caches of --variant auto, one per device, opened on first use.
class AutoTuner {
 public:
  explicit AutoTuner(bool retune) : retune_(retune) {}
  AutoChoice choose(const Target& target, const Problem& problem, const Image& input, const RunOptions& options) {
    auto found = caches_.find(target.device_id);
    if (found == caches_.end())
      found = caches_
                  .emplace(target.device_id, TuningCache(TuningCache::default_directory(),
                                                         target.backend->devices()[target.device]))
                  .first;
    return choose_variant(*target.backend, target.device, problem, input, options, found->second, retune_);
  }

 private:
  bool retune_;
  std::map<std::string, TuningCache> caches_;
};

RunRecord describe_run(const Target& target, const Problem& problem) {
  RunRecord record;
  record.backend = target.backend_name;
  record.device = target.device_id;
  record.variant = target.variant;
  record.filter = problem.filter.spec;
  record.width = problem.width;
  record.height = problem.height;
  record.channels = problem.channels;
  record.radius_x = problem.radius_x();
  record.radius_y = problem.radius_y();
  record.border = to_string(problem.border);
  record.flip = problem.flip;
  return record;
}

Outcome run_target(const Target& target, const Problem& problem, const Image& input, const Image& reference,
                   const RunOptions& options, AutoTuner& tuner) {
  Outcome outcome;
  RunRecord& record = outcome.record;
  record = describe_run(target, problem);
  if (!target.backend || target.device < 0) {
    record.status = Status::Skipped;
    record.reason = target.skip_reason;
    return outcome;
  }

  BackendRun run;
  std::string choice;  // auto: what it chose and why
  try {
    std::string variant = target.variant;
    std::string no_candidate;
    if (variant == "auto") {
      const AutoChoice chosen = tuner.choose(target, problem, input, options);
      variant = chosen.variant;
      choice = "auto: " + chosen.summary() + "; ";
      no_candidate = "no candidate variant can run this problem here: " + chosen.reason;
    }
    run = variant.empty() ? skipped(no_candidate) : target.backend->run(problem, input, variant, target.device, options);
  } catch (const ApiError& error) {
    // One API failure costs this run only; the report carries it and the next run goes ahead.
    record.status = Status::Failed;
    record.reason = error.what();
    if (!error.build_log().empty())
      std::cerr << fmt::format("convcompare: build log of {} {}:\n{}\n", target.backend_name, target.variant,
                               error.build_log());
    return outcome;
  }
  record.times = run.times;
  record.memory = run.memory;
  record.compile_time = choice + run.compile_time;
  if (run.device_bytes > 0) record.device_mb = static_cast<double>(run.device_bytes) / (1 << 20);
  if (run.status != Status::Ok) {
    record.status = run.status;
    record.reason = run.reason;
    return outcome;
  }

  const Validation validation = validate(run.output, reference, tolerance_for_run(run, problem, input));
  record.status = validation.passed ? Status::Ok : Status::Failed;
  record.reason = validation.message();
  record.max_abs_error = validation.max_abs_error;
  record.rel_l2_error = validation.rel_l2_error;
  record.tolerance = validation.tolerance;
  record.exact = validation.exact;
  derive_rates(record);
  outcome.output = std::move(run.output);
  return outcome;
}

// --stream: the same target with N frames overlapped, validated (last frame) by the run's own bound.
StreamRecord stream_target(const Target& target, const RunRecord& run, const Problem& problem, const Image& input,
                           const Image& reference, int frames, const RunOptions& options) {
  StreamRecord record;  // the run's identity, so a stream row names exactly the run it repeats
  std::tie(record.backend, record.device, record.variant, record.filter) =
      std::tie(run.backend, run.device, run.variant, run.filter);
  std::tie(record.width, record.height, record.channels) = std::tie(run.width, run.height, run.channels);
  record.frames = frames;
  record.memory = options.pinned ? "pinned" : "pageable";
  if (run.status != Status::Ok) {
    record.reason = "the single run did not validate";
    return record;
  }
  StreamRun stream;
  try {
    stream = target.backend->stream(problem, input, target.variant, target.device, frames, options);
  } catch (const ApiError& error) {
    record.status = Status::Failed;
    record.reason = error.what();
    return record;
  }
  record.status = stream.status;
  record.reason = stream.reason;
  if (stream.status != Status::Ok) return record;
  record.queues = stream.queues;
  record.total_ms = stream.total_ms;
  record.frames_per_s = frames / (stream.total_ms / 1e3);
  record.serial_ms_per_frame = stream.serial_ms_per_frame;
  // Upload and download use separate copy engines, so the slower direction is the floor per frame.
  record.pcie_floor_ms_per_frame = std::max(stream.h2d_ms_per_frame, stream.d2h_ms_per_frame);
  record.floor_fraction = record.pcie_floor_ms_per_frame / (stream.total_ms / frames);
  const Validation validation = validate(stream.last_output, reference, Tolerance{run.tolerance, run.exact});
  record.max_abs_error = validation.max_abs_error;
  if (!validation.passed) {
    record.status = Status::Failed;
    record.reason = "last frame: " + validation.message();
  }
  return record;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "unknown";
}

std::string compiler_description() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "GCC " __VERSION__;
#else
  return "unknown";
#endif
}

std::string build_description() {
#if defined(CONVCOMPARE_BUILD_TYPE)
  return CONVCOMPARE_BUILD_TYPE;
#else
  std::string description;
#if defined(__OPTIMIZE__)
  description = "optimized";
#else
  description = "not optimized";
#endif
#if !defined(NDEBUG)
  description += ", assertions on";
#endif
  return description;
#endif
}

Report report_header(const Config& config, const Image& image, const Job& job,
                     const std::vector<std::unique_ptr<Backend>>& backends) {
  Report report;
  report.tool_version = CONVCOMPARE_VERSION;
  const std::string source = config.image_path.empty() ? "generated default image" : config.image_path;
  report.environment = {
      {"host", host_name()},
      {"compiler", compiler_description()},
      {"build", build_description()},
      {"math flags",
       "no fast-math on either side; FMA contraction at each compiler's default "
       "(nvcc --fmad=true, OpenCL without -cl-mad-enable)"},
      {"input", fmt::format("{}: {}x{}, {} channel{}, {}", source, image.width, image.height, image.channels,
                            image.channels == 1 ? "" : "s", image.eight_bit ? "8-bit" : "float")},
      {"repetitions", std::to_string(config.repetitions)},
      {"warmup", std::to_string(config.warmup)},
      {"host memory", fmt::format("{}", fmt::join(config.memories, ", "))},
  };
  for (const std::string& name : job.backends)
    if (Backend* backend = find_backend(backends, name))
      std::ranges::copy(backend->devices(), std::back_inserter(report.devices));

  // DESIGN.md wants the API versions in the environment block; the devices carry them.
  const auto distinct_property = [&](std::string_view backend, std::string_view property) {
    std::vector<std::string> values;
    for (const DeviceInfo& device : report.devices)
      for (const auto& [name, value] : device.properties)
        if (device.backend == backend && name == property && !contains(values, value)) values.push_back(value);
    return fmt::format("{}", fmt::join(values, "; "));
  };
  for (const auto& [label, backend, property] :
       {std::tuple{"CUDA driver", "cuda", "driver version"}, std::tuple{"CUDA runtime", "cuda", "runtime version"},
        std::tuple{"OpenCL platforms", "opencl", "platform version"}})
    if (std::string values = distinct_property(backend, property); !values.empty())
      report.environment.emplace_back(label, std::move(values));
  return report;
}

void write_report(const std::string& path, const Report& report, void (*writer)(const Report&, std::ostream&)) {
  if (path.empty()) return;
  std::ostringstream text;
  writer(report, text);
  write_file_atomically(path, text.str());
}

// Error messages may carry newlines (a nested API message); the contract is one line on stderr.
// Control characters from an argument are escaped and long words shortened (printable), so a hostile
// argument cannot drive the terminal or fill it.
void print_error(const std::string& message) { std::cerr << "convcompare: error: " << printable(message) << '\n'; }

// A closed standard stream is opened on /dev/null, so no file the job opens takes its number: stdout
// opened read-only, so that printing fails (and is reported at exit) instead of vanishing.
void guard_standard_streams() {
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO})
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      const int opened = ::open("/dev/null", fd == STDERR_FILENO ? O_WRONLY : O_RDONLY);
      if (opened >= 0 && opened != fd) ::close(opened);  // a lower one was closed too: already done
    }
}

// Everything printed to stdout reached it (a full disk or a closed stdout is an error, not exit 0).
bool stdout_written(std::string& problem) {
  errno = 0;
  std::cout.flush();
  const bool ok = std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good();
  if (!ok) problem = errno != 0 ? std::strerror(errno) : "the write failed";
  return ok;
}

}  // namespace

// `convcompare merge a.json b.json`: one side-by-side table from reports saved anywhere.
int run_merge(const Config& config) {
  std::vector<Report> reports;
  std::vector<std::string> labels;
  for (const std::string& path : config.merge_reports) {
    reports.push_back(read_json_report(path));
    // The file stem names the column; a repeated stem gets its position appended.
    std::string label = fs::path(path).stem().string();
    if (contains(labels, label)) label += fmt::format("#{}", labels.size() + 1);
    labels.push_back(std::move(label));
  }
  print_merged(reports, labels, std::cout);
  return 0;
}

// Measured once per device that will run something, before the runs, so "% of bound" has a ceiling.
void measure_device_peaks(const std::vector<Target>& targets, Report& report) {
  for (const Target& target : targets) {
    if (!target.backend || target.device < 0 || target.backend_name == "cpu") continue;
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

// One tile per filter for the contact sheet: the first validated device result, else the reference.
struct SheetTile {
  std::string label;
  Image image;
};
constexpr std::size_t kMaxSheetTiles = 16;

int run_job(const Config& config) {
  if (!config.merge_reports.empty()) return run_merge(config);
  const Job job = check_config(config);
  const std::vector<std::unique_ptr<Backend>> backends = make_backends();
  if (config.list) {
    print_listing(job, backends, std::cout);
    return 0;
  }
  check_variants(job, backends);

  // With a size sweep the generated image is made again at each size; otherwise there is one image.
  std::vector<std::pair<int, int>> sizes = job.sizes;
  if (sizes.empty()) sizes.emplace_back(config.width, config.height);
  Image image = config.image_path.empty() ? make_default_image(sizes[0].first, sizes[0].second, config.channels)
                                          : load_image(config.image_path);
  const std::string format = output_format(config, image);
  check_devices(job, backends);
  const std::vector<Target> targets = plan_targets(job, backends);

  Report report = report_header(config, image, job, backends);
  if (config.measure_peaks) measure_device_peaks(targets, report);
  RunOptions options;
  options.repetitions = config.repetitions;
  options.warmup = config.warmup;
  options.time_budget_s = config.time_budget_s;
  options.kernel_dir = config.kernel_dir;
  AutoTuner tuner(config.retune);
  const fs::path output_dir = config.output_dir;
  const auto streams = [&](const Target& target) {
    return config.stream_frames > 0 && target.device >= 0 && target.backend_name != "cpu" && target.variant != "auto";
  };
  const std::size_t runs_per_problem = targets.size() + std::ranges::count_if(targets, streams);
  Progress progress(sizes.size() * job.filters.size() * job.borders.size() * job.pinned.size() * runs_per_problem,
                    std::cerr, isatty(STDERR_FILENO) != 0);
  std::vector<SheetTile> sheet;

  for (const auto& [width, height] : sizes) {
    if (!job.sizes.empty() && (image.width != width || image.height != height))
      image = make_default_image(width, height, config.channels);
    sheet.clear();  // the sheet shows the last (largest) size of a sweep
    if (!config.output_dir.empty()) sheet.push_back({"original", image});
    for (const Filter& filter : job.filters) {
      for (const Border border : job.borders) {
        const Problem problem = make_problem(image, filter, border, config.flip);
        const Image reference = reference_convolve(image, problem);
        std::string stem = fmt::format("{}_{}{}", slug(filter.spec), to_string(border), config.flip ? "_flip" : "");
        if (job.sizes.size() > 1) stem += fmt::format("_{}x{}", width, height);
        if (!config.output_dir.empty()) save_image(reference, output_dir / (stem + "_reference." + format), format);
        std::optional<SheetTile> tile;

        for (const bool pinned : job.pinned) {
          options.pinned = pinned;
          for (const Target& target : targets) {
            progress.step(fmt::format("{} {} {} {}", target.device_id, target.variant, filter.spec, to_string(border)));
            Outcome outcome = run_target(target, problem, image, reference, options, tuner);
            if (!config.output_dir.empty() && !outcome.output.empty()) {
              const fs::path path = output_dir / fmt::format("{}_{}_{}_{}{}.{}", stem, target.backend_name,
                                                             slug(target.device_id), target.variant,
                                                             job.pinned.size() > 1 && !pinned ? "_pageable" : "",
                                                             format);
              save_image(outcome.output, path, format);
              outcome.record.output = path.string();
              if (!tile && outcome.record.status == Status::Ok && target.backend_name != "cpu")
                tile = SheetTile{fmt::format("{} {}: {} {}", filter.spec, to_string(border), target.device_id,
                                             target.variant),
                                 std::move(outcome.output)};
            }
            if (streams(target)) {
              progress.step(fmt::format("{} {} {} --stream {}", target.device_id, target.variant, filter.spec,
                                        config.stream_frames));
              report.streams.push_back(stream_target(target, outcome.record, problem, image, reference,
                                                     config.stream_frames, options));
            }
            report.runs.push_back(std::move(outcome.record));
          }
        }
        if (!config.output_dir.empty() && sheet.size() < kMaxSheetTiles)
          sheet.push_back(tile ? std::move(*tile)
                               : SheetTile{fmt::format("{} {}: reference", filter.spec, to_string(border)), reference});
      }
    }
  }

  // The bound is the direct convolution's: an FFT's work does not grow with the taps.
  for (RunRecord& run : report.runs)
    if (const auto device = std::ranges::find(report.devices, run.device, &DeviceInfo::id);
        run.variant != "fft" && device != report.devices.end())
      derive_bound(run, device->peaks);
  if (!config.quiet) print_console(report, std::cout);
  write_report(config.json_path, report, write_json);
  write_report(config.csv_path, report, write_csv);
  write_report(config.markdown_path, report, write_markdown);
  if (!config.plot_path.empty()) write_plot(report, config.plot_path);
  if (!config.output_dir.empty()) {
    std::vector<LabelledImage> tiles;
    for (const SheetTile& entry : sheet) tiles.push_back({entry.label, &entry.image});
    write_contact_sheet(tiles, (output_dir / "contact_sheet.png").string());
  }
  if (job.baseline) print_comparison(compare_reports(*job.baseline, report), std::cout);
  const bool any_failed =
      std::ranges::any_of(report.runs, [](const RunRecord& run) { return run.status == Status::Failed; }) ||
      std::ranges::any_of(report.streams, [](const StreamRecord& run) { return run.status == Status::Failed; });
  return any_failed ? 1 : 0;
}

int convcompare_main(int argc, const char* const* argv) {
  guard_standard_streams();
  remove_temporaries_on_signals();
  int status = 0;
  try {
    const std::optional<Config> config = parse_command_line(argc, argv, std::cout);
    status = config ? run_job(*config) : 0;
  } catch (const InputError& error) {
    print_error(error.what());
    status = 2;
  } catch (const std::bad_alloc&) {
    // Backstop: the loaders and readers check memory before allocating; what slips past them is still
    // a request too large for this machine, said in one line.
    print_error("out of host memory: this run needs more memory than is free (try a smaller --size or image)");
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
