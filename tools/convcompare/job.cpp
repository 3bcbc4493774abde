// job.cpp: checking the command line's names, sizes and paths, and resolving them into the Job the driver runs.
#include "tools/convcompare/job.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "common/domain/error.h"
#include "common/domain/input_file.h"
#include "common/domain/memory.h"
#include "common/domain/suggest.h"
#include "common/report/report_read.h"
#include "tools/convcompare/sweep.h"

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
    throw InputError(fmt::format("bad device '{}': expected {}", text, device_id_forms(", ", " or ")));
  return {text, *id};
}

std::vector<std::string> select_backends(const std::vector<std::string>& requested) {
  std::vector<std::string_view> backend_names_and_all{"all"};
  for (const BackendName& backend : kBackendNames) backend_names_and_all.push_back(backend.name);
  for (const std::string& name : requested)
    if (name != "all" && !find_backend_name(name))
      throw InputError(fmt::format("unknown backend '{}' ({}, all){}", name, backend_name_list(", ", ", "),
                                   did_you_mean(name, backend_names_and_all)));
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
      throw InputError(fmt::format("unknown variant '{}' ({}, all){}", name, fmt::join(known, ", "),
                                   did_you_mean(name, known)));
  std::vector<const VariantTraits*> selected;
  for (const VariantTraits& variant : all_variants())
    if ((contains(requested, "all") && variant.in_all()) || contains(requested, variant.name))
      selected.push_back(&variant);
  return selected;
}

// Every input file is read once; a pipe or device (/dev/stdin) can be read only once, so naming one
// twice (two file: filters, or the image and a filter) would hand the second reader an empty stream.
void check_streams_named_once(const Config& config) {
  std::vector<std::pair<std::string, std::string>> inputs = {{"--image", config.image_path},
                                                             {"--compare", config.compare_path}};
  for (const std::string& spec : config.filters)
    if (spec.starts_with("file:")) inputs.emplace_back("--filter", spec.substr(5));
  std::vector<std::tuple<dev_t, ino_t, std::string>> streams;
  for (const auto& [option, path] : inputs) {
    struct stat info {};
    if (path.empty() || ::stat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode) || S_ISDIR(info.st_mode)) continue;
    for (const auto& [device, inode, earlier] : streams)
      if (device == info.st_dev && inode == info.st_ino)
        throw InputError(fmt::format("{} and {} '{}' name one stream: a pipe or device can be read only once",
                                     earlier, option, path));
    streams.emplace_back(info.st_dev, info.st_ino, fmt::format("{} '{}'", option, path));
  }
}

// "-" is standard output, as in most tools.
std::string report_path(const std::string& path) { return path == "-" ? "/dev/stdout" : path; }

}  // namespace

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
  for (const auto& [path, format] : {std::pair{&config.json_path, ReportFormat::Json},
                                     std::pair{&config.csv_path, ReportFormat::Csv},
                                     std::pair{&config.markdown_path, ReportFormat::Markdown}})
    if (!path->empty()) destinations.reports.push_back({report_path(*path), format});
  destinations.plot_path = config.plot_path;
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
  check_streams_named_once(config);
  // A filter named twice is measured once, as a border or pixel type named twice is: its runs would be
  // the same runs, and a report holds each run once (--compare refuses a baseline that does not).
  const auto add_filter = [&](Filter filter) {
    if (std::ranges::none_of(job.filters, [&](const Filter& f) { return f.spec == filter.spec; }))
      job.filters.push_back(std::move(filter));
  };
  for (const std::string& spec : specs) {
    Filter parsed = parse_filter_spec(spec);  // read once (a pipe has no second reading); a bad spec is named as the user wrote it
    if (sweep.radii.empty()) add_filter(std::move(parsed));
    for (const int radius : sweep.radii) add_filter(parse_filter_spec(filter_spec_with_radius(spec, radius)));
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

  static_cast<MeasurementSettings&>(job.options) = config.measurement;
  job.options.kernel_timeout_s = config.kernel_timeout_s;
  job.compare_rule = {.min_change = config.min_change_percent / 100, .significance = config.significance};
  job.command = config.command;
  job.options.kernel_dir = config.kernel_dir;
  if (!config.kernel_dir.empty() && !fs::is_directory(config.kernel_dir))
    throw InputError(fmt::format("--kernel-dir '{}' is not a directory", config.kernel_dir));
  for (const std::string& memory : config.memories)
    if (const HostMemory mode = parse_host_memory(memory); !contains(job.memories, mode)) job.memories.push_back(mode);
  job.memory_names = config.memories;
  for (const std::string& name : config.pixels)
    if (const PixelType pixel = parse_pixel(name); !contains(job.pixels, pixel)) job.pixels.push_back(pixel);
  job.stream_frames = config.stream_frames;
  job.split = config.split;
  job.retune = config.retune;
  job.measure_peaks = config.measure_peaks;

  job.quiet = config.quiet;
  job.verbose = config.verbose;
  ReportDestinations destinations = report_destinations(config);
  job.reports = std::move(destinations.reports);
  job.plot_path = std::move(destinations.plot_path);
  job.output_dir = config.output_dir;
  job.output_format = config.output_format;
  job.compare_path = config.compare_path;  // read by the driver once the output plan has checked it
  return job;
}

void check_run_memory(const Job& job, int width, int height, int channels, bool input_loaded) {
  const std::uint64_t image_bytes = std::uint64_t{4} * static_cast<std::uint64_t>(width) *
                                    static_cast<std::uint64_t>(height) * static_cast<std::uint64_t>(channels);
  std::uint64_t images = 4 + (input_loaded ? 0 : 1);  // input, reference, result, two host frames
  std::vector<std::string> parts{"input, reference, result and two host frames"};
  if (contains(job.pixels, PixelType::U8)) {
    images += 2;
    parts.emplace_back("the 8-bit input and its reference");
  }
  if (!job.output_dir.empty()) {
    const std::size_t tiles =
        std::min<std::size_t>(job.filters.size() * job.borders.size() * job.pixels.size() + 1, 16);
    images += 1 + tiles;
    parts.push_back(fmt::format("an encoded copy and {} contact-sheet tiles", tiles));
  }
  if (job.stream_frames > 0) {
    // Three slots' input and output per device; frames dealt over several devices hold every
    // device's at once (docs/multi-device.md): as many devices as --device names, at most.
    const std::size_t devices = std::max<std::size_t>(1, job.devices.size());
    images += 6 * devices;
    parts.emplace_back(devices == 1 ? "the --stream frames" : fmt::format("the --stream frames of {} devices", devices));
  }
  check_host_memory(images * image_bytes,
                    fmt::format("a {}x{} image with {} channel{} ({} images of {}: {})", width, height, channels,
                                channels == 1 ? "" : "s", images, describe_bytes(image_bytes), fmt::join(parts, "; ")));
}

std::string output_format(const Job& job, const Image& image) {
  const std::string format = !job.output_format.empty() ? job.output_format : image.eight_bit ? "png" : "pfm";
  if (!job.output_dir.empty() && format == "pfm" && image.channels != 1 && image.channels != 3)
    throw InputError(
        fmt::format("PFM holds 1 or 3 channels and the input has {}: use --output-format png", image.channels));
  return format;
}

}  // namespace cc
