// targets.cpp: expanding the Job into backend/device/variant targets, the checks that need the backends, and --list.
#include "tools/convcompare/targets.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "common/domain/error.h"

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
  // The braces carry the traits scripts select variants by (tests/oclgrind.sh: 8-bit kernels, image
  // input, and sub-group shuffles, which Oclgrind 21.10 does not offer).
  out << "\nVariants (memory space) [backends that implement it] {pixel types; input read as buffer or image}:\n";
  for (const VariantTraits& variant : all_variants()) {
    std::vector<std::string_view> implementers;
    for (const auto& backend : backends)
      if (contains(backend->variants(), variant.name)) implementers.push_back(backend->name());
    const std::string where = variant.kind == VariantKind::Choice ? "the driver, for every backend"
                              : implementers.empty()              ? "none in this build"
                                                                  : fmt::format("{}", fmt::join(implementers, ", "));
    out << fmt::format("  {:<14} {} [{}] {{pixels: {}; input: {}{}}}\n", variant.name, variant.memory_space, where,
                       pixel_names(variant.pixels), variant.input_as_image ? "image" : "buffer",
                       variant.lane_shuffles ? "; needs: sub-group shuffles" : "");
  }
  std::vector<std::string_view> borders;
  for (const Border border : {Border::Zero, Border::Clamp, Border::Mirror, Border::Wrap})
    borders.push_back(to_string(border));
  out << fmt::format("\nFilters: {}, file:PATH\nBorders: {}\n", fmt::join(builtin_filter_names(), ", "),
                     fmt::join(borders, ", "));
}

}  // namespace cc
