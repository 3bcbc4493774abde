// targets.cpp: expanding the Job into backend/device/variant targets, the checks that need the backends, and --list.
#include "tools/convcompare/targets.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "common/domain/error.h"
#include "common/report/tables.h"

#include <nlohmann/json.hpp>

namespace cc {

namespace {

template <typename Range, typename Value>
bool contains(const Range& range, const Value& value) {
  return std::ranges::find(range, value) != std::ranges::end(range);
}

std::string not_built_reason(std::string_view backend) {
  return fmt::format("not built into this convcompare (configure with {})", find_backend_name(backend)->build_option);
}

bool absent_from(const VariantTraits& variant, const Backend& backend) { return variant.absent_from == backend.name(); }

// The job's variants this backend runs, in table order: those it implements, every Choice (auto
// chooses among the backend's own), and those its API lacks, which it shows as skipped rows.
std::vector<const VariantTraits*> variants_on(const Job& job, const Backend& backend) {
  const std::vector<std::string> implemented = backend.variants();
  std::vector<const VariantTraits*> variants;
  for (const VariantTraits* variant : job.variants)
    if (variant->kind == VariantKind::Choice || contains(implemented, variant->name) || absent_from(*variant, backend))
      variants.push_back(variant);
  return variants;
}

}  // namespace

Backend* find_backend(const std::vector<std::unique_ptr<Backend>>& backends, std::string_view name) {
  const auto found = std::ranges::find_if(backends, [&](const auto& backend) { return backend->name() == name; });
  return found == backends.end() ? nullptr : found->get();
}

void check_variants(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends) {
  std::vector<std::string> offered;
  std::vector<std::string_view> requested;
  for (const VariantTraits* variant : job.variants) requested.push_back(variant->name);
  for (const std::string& name : job.backends) {
    const Backend* backend = find_backend(backends, name);
    if (!backend) continue;
    if (!variants_on(job, *backend).empty()) return;
    offered.push_back(fmt::format("{} has {}", name, fmt::join(backend->variants(), ", ")));
  }
  if (!offered.empty())
    throw InputError(fmt::format("no selected backend implements variant {} ({})", fmt::join(requested, ", "),
                                 fmt::join(offered, "; ")));
}

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

std::vector<Target> plan_targets(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends) {
  std::vector<Target> targets;
  for (const std::string& name : job.backends) {
    Backend* backend = find_backend(backends, name);
    if (!backend) {
      if (!job.backends_named) continue;  // "all" means the backends this binary has
      targets.push_back({name, "-", nullptr, -1, nullptr, not_built_reason(name)});
      continue;
    }
    const std::vector<const VariantTraits*> variants = variants_on(job, *backend);
    const std::vector<DeviceInfo>& devices = backend->devices();
    if (devices.empty()) {
      const std::string reason = backend->unavailable_reason();
      for (const VariantTraits* variant : variants) targets.push_back({name, "-", backend, -1, variant, reason});
      continue;
    }
    for (int index = 0; index < static_cast<int>(devices.size()); ++index) {
      const auto selects = [&](const DeviceSelector& selector) { return selector.matches(devices[index]); };
      if (!job.devices.empty() && std::ranges::none_of(job.devices, selects)) continue;
      for (const VariantTraits* variant : variants)
        targets.push_back(absent_from(*variant, *backend)
                              ? Target{name, devices[index].id, backend, -1, variant, std::string(variant->absent_reason), true}
                              : Target{name, devices[index].id, backend, index, variant, ""});
    }
  }
  return targets;
}

std::string joined_device_id(const std::vector<std::string>& ids) {
  std::string joined;
  for (const std::string& id : ids) {
    const std::size_t colon = id.find(':');
    if (joined.empty()) joined = id;
    else joined += "+" + (colon == std::string::npos ? id : id.substr(colon + 1));
  }
  return joined;
}

std::vector<MultiTarget> plan_multi_targets(const Job& job, const std::vector<Target>& targets) {
  std::vector<MultiTarget> groups;
  if (job.devices.empty()) return groups;
  for (const Target& target : targets) {
    if (!target.runs() || !target.has_device_memory() || target.variant->kind == VariantKind::Choice) continue;
    auto group = std::ranges::find_if(groups, [&](const MultiTarget& multi) {
      return multi.backend == target.backend && multi.variant == target.variant;
    });
    if (group == groups.end()) group = groups.insert(groups.end(), {target.backend_name, "", target.backend, {}, target.variant});
    if (!contains(group->devices, target.device)) group->devices.push_back(target.device);
  }
  std::erase_if(groups, [](const MultiTarget& group) { return group.devices.size() < 2; });
  for (MultiTarget& group : groups) {
    std::vector<std::string> ids;
    for (const int device : group.devices) ids.push_back(group.backend->devices()[static_cast<std::size_t>(device)].id);
    group.device_id = joined_device_id(ids);
  }
  // Devices of two backends (cuda:0 and opencl:0:0) share no queue or memory: a frame is not split
  // across APIs (docs/multi-device.md); said once, before any run.
  if (job.split && groups.empty()) {
    std::vector<std::string_view> named;
    bool backends_differ = false;
    for (const DeviceSelector& selector : job.devices) {
      named.push_back(selector.text);
      backends_differ = backends_differ || selector.id.backend != job.devices.front().id.backend;
    }
    throw InputError(fmt::format("--split needs two or more devices of one backend that run a selected variant "
                                 "other than auto (--device opencl:0:0,opencl:0:1 or cuda:0,cuda:1); --device names {}{}",
                                 named.empty() ? "none" : fmt::format("{}", fmt::join(named, ", ")),
                                 backends_differ ? ": a frame is not split across backends" : ""));
  }
  return groups;
}

std::vector<std::string> unavailable_backends(const std::vector<Target>& targets) {
  std::vector<std::string> lines;
  for (const Target& target : targets)
    if (!target.runs() && !target.absent)
      if (std::string line = fmt::format("{}: {}", target.backend_name, target.skip_reason); !contains(lines, line))
        lines.push_back(std::move(line));
  return lines;
}

namespace {

// What --list says, gathered once for its text and its JSON.
struct ListedBackend {
  std::string name;
  std::string unavailable;  // why it has no device (not built, no driver), or ""
  const std::vector<DeviceInfo>* devices = nullptr;
};
struct ListedVariant {
  const VariantTraits* traits;
  std::vector<std::string_view> implementers;  // the backends of this build that implement it
  std::string where;                            // "cuda, opencl", "the driver, for every backend", "none in this build"
};

std::vector<ListedBackend> listed_backends(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends) {
  std::vector<ListedBackend> listed;
  for (const std::string& name : job.backends) {
    Backend* backend = find_backend(backends, name);
    if (!backend) listed.push_back({name, not_built_reason(name), nullptr});
    else
      listed.push_back({name, backend->devices().empty() ? "no device: " + backend->unavailable_reason() : "",
                        &backend->devices()});
  }
  return listed;
}

std::vector<ListedVariant> listed_variants(const std::vector<std::unique_ptr<Backend>>& backends) {
  std::vector<std::pair<std::string_view, std::vector<std::string>>> offered;  // each backend's list, asked once
  for (const auto& backend : backends) offered.emplace_back(backend->name(), backend->variants());
  std::vector<ListedVariant> listed;
  for (const VariantTraits& variant : all_variants()) {
    ListedVariant entry{&variant, {}, ""};
    for (const auto& [backend, names] : offered)
      if (contains(names, variant.name)) entry.implementers.push_back(backend);
    entry.where = variant.kind == VariantKind::Choice ? "the driver, for every backend"
                  : entry.implementers.empty()        ? "none in this build"
                                                      : fmt::format("{}", fmt::join(entry.implementers, ", "));
    listed.push_back(std::move(entry));
  }
  return listed;
}

std::vector<std::string_view> border_names() {
  std::vector<std::string_view> borders;
  for (const Border border : {Border::Zero, Border::Clamp, Border::Mirror, Border::Wrap})
    borders.push_back(to_string(border));
  return borders;
}

// The names of the capabilities a variant needs (common/domain/capability.h), in the table's order.
std::vector<std::string_view> needed_capabilities(const VariantTraits& variant) {
  std::vector<std::string_view> names;
  for (const CapabilityName& each : kCapabilityNames)
    if (variant.needs.has(each.capability)) names.push_back(each.name);
  return names;
}

// "{pixels: f32, u8; input: buffer; needs: sub-group shuffles}": the traits scripts select variants by
// (tests/oclgrind.sh: 8-bit kernels, image input, and sub-group shuffles, which Oclgrind 21.10 lacks).
std::string trait_braces(const VariantTraits& variant) {
  const std::vector<std::string_view> needs = needed_capabilities(variant);
  return fmt::format("{{pixels: {}; input: {}{}{}}}", pixel_names(variant.pixels),
                     variant.input_as_image ? "image" : "buffer", needs.empty() ? "" : "; needs: ",
                     fmt::join(needs, ", "));
}

constexpr std::size_t kListWidth = 100;  // the console's width (README: the console fits in 100 columns)

// One line of the listing as it is, or wrapped to kListWidth with its continuation lines indented by
// `indent`: a short line keeps its spacing ("  cpu  NAME", which scripts read).
std::string listing_line(const std::string& line, std::size_t indent) {
  if (report_tables::display_width(line) <= kListWidth) return line;
  const std::size_t lead = std::min(line.find_first_not_of(' '), line.size());
  return line.substr(0, lead) + report_tables::wrap_words(std::string_view(line).substr(lead), kListWidth, indent, lead);
}

}  // namespace

void print_listing(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends, std::ostream& out) {
  out << "Backends and devices:\n";
  for (const ListedBackend& backend : listed_backends(job, backends)) {
    if (!backend.unavailable.empty())
      out << listing_line(fmt::format("  {}: {}", backend.name, backend.unavailable), 6) << '\n';
    if (backend.devices == nullptr) continue;
    for (const DeviceInfo& device : *backend.devices) {
      out << listing_line(fmt::format("  {}  {}", device.id, device.name), 6) << '\n';
      for (const auto& [property, value] : device.properties)
        out << listing_line(fmt::format("      {}: {}", property, value), 8) << '\n';
    }
  }
  // Each variant's first line is its name, the backends and the trait braces, whole (the scripts read
  // it: tests/oclgrind.sh, tools/gpu_host.sh); its memory space follows, wrapped, on lines of its own.
  out << "\nVariants [backends that implement each] {pixel types; input read as buffer or image}, memory space:\n";
  for (const ListedVariant& variant : listed_variants(backends))
    out << fmt::format("  {:<14} [{}] {}\n", variant.traits->name, variant.where, trait_braces(*variant.traits))
        << listing_line(std::string(19, ' ') + std::string(variant.traits->memory_space), 19) << '\n';
  out << "\n" << listing_line(fmt::format("Filters: {}, file:PATH", fmt::join(builtin_filter_names(), ", ")), 2)
      << fmt::format("\nBorders: {}\n", fmt::join(border_names(), ", "));
}

std::string listing_json(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends) {
  nlohmann::ordered_json listing;
  listing["tool"] = {{"name", "convcompare"}, {"version", CONVCOMPARE_VERSION}};
  nlohmann::ordered_json listed = nlohmann::ordered_json::array();
  nlohmann::ordered_json platforms = nlohmann::ordered_json::array();
  for (const ListedBackend& backend : listed_backends(job, backends)) {
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    if (backend.devices != nullptr)
      for (const DeviceInfo& device : *backend.devices) {
        nlohmann::ordered_json properties = nlohmann::ordered_json::object();
        for (const auto& [property, value] : device.properties) properties[property] = value;
        devices.push_back({{"id", device.id}, {"name", device.name}, {"properties", properties}});
        // A platform, "opencl:P", with the devices it holds: a device id of two numbers names one
        // (common/domain/backend_names.h: opencl:P:D).
        if (std::ranges::count(device.id, ':') != 2) continue;
        const std::string platform = device.id.substr(0, device.id.rfind(':'));
        auto found = std::ranges::find_if(platforms, [&](const auto& entry) { return entry["id"] == platform; });
        if (found == platforms.end()) {
          nlohmann::ordered_json entry = {{"id", platform}, {"devices", nlohmann::ordered_json::array()}};
          for (const auto& [property, value] : device.properties)
            if (property.starts_with("platform")) entry[property] = value;
          platforms.push_back(entry);
          found = platforms.end() - 1;
        }
        (*found)["devices"].push_back(device.id);
      }
    listed.push_back({{"name", backend.name},
                      {"available", backend.devices != nullptr && !backend.devices->empty()},
                      {"reason", backend.unavailable},
                      {"devices", devices}});
  }
  listing["backends"] = listed;
  listing["platforms"] = platforms;
  nlohmann::ordered_json variants = nlohmann::ordered_json::array();
  for (const ListedVariant& variant : listed_variants(backends)) {
    nlohmann::ordered_json pixels = nlohmann::ordered_json::array();
    for (const PixelType pixel : {PixelType::F32, PixelType::U8})
      if (variant.traits->pixels & (pixel == PixelType::U8 ? kU8 : kF32)) pixels.push_back(to_string(pixel));
    variants.push_back({{"name", variant.traits->name},
                        {"memory_space", variant.traits->memory_space},
                        {"backends", variant.implementers},
                        {"in_all", variant.traits->in_all()},
                        {"chooses", variant.traits->kind == VariantKind::Choice},
                        {"pixels", pixels},
                        {"input", variant.traits->input_as_image ? "image" : "buffer"},
                        {"needs", needed_capabilities(*variant.traits)}});
  }
  listing["variants"] = variants;
  std::vector<std::string> filters = builtin_filter_names();
  filters.emplace_back("file:PATH");
  listing["filters"] = filters;
  listing["borders"] = border_names();
  return listing.dump(2) + "\n";
}

}  // namespace cc
