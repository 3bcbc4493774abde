// job.cpp: checking the command line's names, sizes and paths, and resolving them into the Job the driver runs.
#include "tools/job.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

#include "common/domain/error.h"
#include "common/domain/input_file.h"
#include "common/report/plot.h"
#include "common/report/report_read.h"
#include "tools/sweep.h"

namespace cc {

namespace {

namespace fs = std::filesystem;

template <typename Range, typename Value>
bool contains(const Range& range, const Value& value) {
  return std::ranges::find(range, value) != std::ranges::end(range);
}

// "opencl:1:0" -> {"opencl", {1, 0}}; nullopt when a number is not one.
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

DeviceSelector parse_device(const std::string& text) {
  const std::optional<DeviceId> id = split_device_id(text);
  const BackendName* backend = id ? find_backend_name(id->backend) : nullptr;
  if (!backend || id->numbers.size() > backend->id_numbers)
    throw InputError(fmt::format("bad device '{}': expected cpu, cuda:N or opencl:P:D", text));
  return {text, *id};
}

std::vector<std::string> select_backends(const std::vector<std::string>& requested) {
  for (const std::string& name : requested)
    if (name != "all" && !find_backend_name(name))
      throw InputError(fmt::format("unknown backend '{}' (cpu, cuda, opencl, all)", name));
  std::vector<std::string> selected;
  for (const BackendName& backend : kBackendNames)
    if (contains(requested, "all") || contains(requested, backend.name)) selected.emplace_back(backend.name);
  return selected;
}

// In table order; "all" is every implementation (a Choice such as auto runs only when named).
std::vector<const VariantTraits*> select_variants(const std::vector<std::string>& requested) {
  std::vector<std::string_view> known;
  for (const VariantTraits& variant : all_variants()) known.push_back(variant.name);
  for (const std::string& name : requested)
    if (name != "all" && !find_variant(name))
      throw InputError(fmt::format("unknown variant '{}' ({}, all)", name, fmt::join(known, ", ")));
  std::vector<const VariantTraits*> selected;
  for (const VariantTraits& variant : all_variants())
    if ((contains(requested, "all") && variant.in_all()) || contains(requested, variant.name))
      selected.push_back(&variant);
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
  for (const std::string& path : config.merge_reports) inputs.emplace_back("merge", path);
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

void check_report_path(const std::string& path, std::string_view option) {
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent))
    throw InputError(fmt::format("cannot write {} '{}': directory '{}' does not exist", option, path, parent.string()));
  if (fs::is_directory(path)) throw InputError(fmt::format("cannot write {} '{}': it is a directory", option, path));
}

}  // namespace

const BackendName* find_backend_name(std::string_view name) {
  const auto* found = std::ranges::find(kBackendNames, name, &BackendName::name);
  return found == std::ranges::end(kBackendNames) ? nullptr : found;
}

bool DeviceSelector::matches(const DeviceInfo& device) const {
  const std::optional<DeviceId> other = split_device_id(device.id);
  return other && other->backend == id.backend && other->numbers.size() >= id.numbers.size() &&
         std::equal(id.numbers.begin(), id.numbers.end(), other->numbers.begin());
}

bool Job::runs_variant(std::string_view name) const {
  return std::ranges::any_of(variants, [&](const VariantTraits* variant) { return variant->name == name; });
}

ReportDestinations report_destinations(const Config& config) {
  ReportDestinations destinations;
  for (const auto& [path, option, format] : {std::tuple{&config.json_path, "--json", ReportFormat::Json},
                                             std::tuple{&config.csv_path, "--csv", ReportFormat::Csv},
                                             std::tuple{&config.markdown_path, "--markdown", ReportFormat::Markdown}})
    if (!path->empty()) {
      check_report_path(*path, option);
      destinations.reports.push_back({*path, format});
    }
  check_reports_distinct(config);
  destinations.plot_path = config.plot_path;
  if (!destinations.plot_path.empty()) check_plot_path(destinations.plot_path);
  return destinations;
}

Job make_job(const Config& config) {
  Job job;
  job.list = config.list;
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
  const std::vector<std::string> specs = !config.filters.empty() ? config.filters
                                         : sweep.radii.empty()   ? default_filter_specs()
                                                                 : std::vector<std::string>{"box"};
  for (const std::string& spec : specs) {
    parse_filter_spec(spec);  // a bad spec is named as the user wrote it
    if (sweep.radii.empty()) job.filters.push_back(parse_filter_spec(spec));
    for (const int radius : sweep.radii) job.filters.push_back(parse_filter_spec(filter_spec_with_radius(spec, radius)));
  }
  for (const std::string& name : config.borders)
    if (const Border border = parse_border(name); !contains(job.borders, border)) job.borders.push_back(border);
  job.flip = config.flip;

  job.image_path = config.image_path;
  job.channels = config.channels;
  if (!sweep.sizes.empty() && !config.image_path.empty())
    throw InputError("--sweep size varies the generated image; it cannot be used with --image");
  job.size_sweep = !sweep.sizes.empty();
  job.sizes = job.size_sweep ? sweep.sizes : std::vector<std::pair<int, int>>{{config.width, config.height}};
  for (const auto& [width, height] : job.sizes)
    if (config.image_path.empty()) check_image_size(width, height, config.channels, job.size_sweep ? "--sweep size" : "--size");

  job.options.repetitions = config.repetitions;
  job.options.warmup = config.warmup;
  job.options.time_budget_s = config.time_budget_s;
  job.options.kernel_dir = config.kernel_dir;
  if (!config.kernel_dir.empty() && !fs::is_directory(config.kernel_dir))
    throw InputError(fmt::format("--kernel-dir '{}' is not a directory", config.kernel_dir));
  for (const std::string& memory : config.memories)
    if (!contains(job.pinned, memory == "pinned")) job.pinned.push_back(memory == "pinned");
  job.memory_names = config.memories;
  for (const std::string& name : config.pixels)
    if (const PixelType pixel = parse_pixel(name); !contains(job.pixels, pixel)) job.pixels.push_back(pixel);
  job.stream_frames = config.stream_frames;
  job.retune = config.retune;
  job.measure_peaks = config.measure_peaks;

  job.quiet = config.quiet;
  job.verbose = config.verbose;
  ReportDestinations destinations = report_destinations(config);
  job.reports = std::move(destinations.reports);
  job.plot_path = std::move(destinations.plot_path);
  job.output_dir = config.output_dir;
  job.output_format = config.output_format;
  if (!job.output_dir.empty()) prepare_output_dir(job.output_dir);
  if (!config.compare_path.empty()) job.baseline = read_json_report(config.compare_path);
  return job;
}

std::string output_format(const Job& job, const Image& image) {
  const std::string format = !job.output_format.empty() ? job.output_format : image.eight_bit ? "png" : "pfm";
  if (!job.output_dir.empty() && format == "pfm" && image.channels != 1 && image.channels != 3)
    throw InputError(
        fmt::format("PFM holds 1 or 3 channels and the input has {}: use --output-format png", image.channels));
  return format;
}

}  // namespace cc
