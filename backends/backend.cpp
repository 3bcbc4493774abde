// backend.cpp: the backends this binary was built with, in report order, from CMake's generated list.
#include "backends/backend.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/embedded_sources.h"
#include "common/domain/error.h"
#include "common/domain/backend_names.h"
#include "compiled_backends.h"  // generated from backends/*/backend.cmake (CMakeLists.txt)

namespace cc {

// Each backend folder defines make_<name>_backend(); the list names those the build links, so a new
// backend needs no line here (docs/architecture.md, "Adding a backend").
#define CC_DECLARE_FACTORY(name, description, build_option) std::unique_ptr<Backend> make_##name##_backend();
CC_COMPILED_BACKENDS(CC_DECLARE_FACTORY)
#undef CC_DECLARE_FACTORY

namespace {

struct CompiledBackend {
  std::string_view name;
  std::string_view description;   // for --version: "cuda (npp, cufft)", the optional libraries it links
  std::string_view build_option;  // the CMake option its backend.cmake reads
  std::unique_ptr<Backend> (*make)();
};

#define CC_COMPILED_BACKEND(name, description, build_option) \
  CompiledBackend{#name, description, build_option, &make_##name##_backend},
constexpr CompiledBackend kCompiledBackends[] = {CC_COMPILED_BACKENDS(CC_COMPILED_BACKEND)};
#undef CC_COMPILED_BACKEND

// A backend built but missing from the one name list (common/domain/backend_names.h), which the command
// line, the help text and the report read, could never be selected; its build option there must be the
// one its backend.cmake reads, or the "not built" hint would name the wrong one.
constexpr bool listed_with_its_option(const CompiledBackend& backend) {
  return std::ranges::any_of(kBackendNames, [&](const BackendName& listed) {
    return listed.name == backend.name && listed.build_option == backend.build_option;
  });
}
static_assert(std::ranges::all_of(kCompiledBackends, listed_with_its_option),
              "a backend folder's name or option disagrees with common/domain/backend_names.h");

// In kBackendNames' order (the report's), whatever order CMake found the folders in.
std::vector<const CompiledBackend*> in_report_order() {
  std::vector<const CompiledBackend*> compiled;
  for (const BackendName& listed : kBackendNames)
    for (const CompiledBackend& backend : kCompiledBackends)
      if (backend.name == listed.name) compiled.push_back(&backend);
  return compiled;
}

}  // namespace

namespace {
constexpr std::pair<HostMemory, std::string_view> kHostMemoryNames[] = {
    {HostMemory::Pinned, "pinned"}, {HostMemory::Pageable, "pageable"},
    {HostMemory::Mapped, "mapped"}, {HostMemory::Managed, "managed"}, {HostMemory::ManagedFaults, "managed-faults"}};
}  // namespace

std::string_view to_string(HostMemory memory) {
  for (const auto& [known, name] : kHostMemoryNames)
    if (known == memory) return name;
  return "pinned";
}

HostMemory parse_host_memory(std::string_view name) {
  for (const auto& [known, known_name] : kHostMemoryNames)
    if (known_name == name) return known;
  throw InputError("unknown host memory '" + std::string(name) + "' (pinned, pageable, mapped, managed, managed-faults)");
}

std::vector<std::unique_ptr<Backend>> make_backends() {
  std::vector<std::unique_ptr<Backend>> backends;
  for (const CompiledBackend* backend : in_report_order()) {
    backends.push_back(backend->make());
    if (backends.back()->name() != backend->name)
      throw std::logic_error(std::string(backend->name) + "'s factory made " + std::string(backends.back()->name()));
  }
  return backends;
}

std::vector<std::string> compiled_backends() {
  std::vector<std::string> names;
  for (const CompiledBackend* backend : in_report_order()) names.emplace_back(backend->description);
  return names;
}

const VariantTraits& Backend::table_line(std::string_view variant) {
  if (const VariantTraits* traits = find_variant(variant)) return *traits;
  throw InputError(fmt::format("the {} backend has no variant '{}' ({})", name(), variant, fmt::join(variants(), ", ")));
}

BackendRun skipped(std::string reason) {
  BackendRun run;
  run.status = Status::Skipped;
  run.reason = std::move(reason);
  return run;
}

std::string embedded_source(const std::vector<EmbeddedSource>& sources, std::string_view name) {
  for (const EmbeddedSource& source : sources)
    if (source.name == name) return std::string(source.text);
  throw std::logic_error(std::string(name) + " is not embedded in this binary");
}

}  // namespace cc
