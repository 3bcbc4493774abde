// backend.cpp: the backend registry: which APIs this binary was built with, in report order.
#include "backends/backend.h"

#include <stdexcept>
#include <utility>

#include "backends/cpu/cpu_backend.h"
#include "backends/embedded_sources.h"
#include "common/domain/backend_names.h"
#include "common/domain/error.h"
#ifdef CONVCOMPARE_WITH_CUDA
#include "backends/cuda/cuda_backend.h"
#endif
#ifdef CONVCOMPARE_WITH_OPENCL
#include "backends/opencl/opencl_backend.h"
#endif

namespace cc {

namespace {
constexpr std::pair<HostMemory, std::string_view> kHostMemoryNames[] = {
    {HostMemory::Pinned, "pinned"}, {HostMemory::Pageable, "pageable"},
    {HostMemory::Mapped, "mapped"}, {HostMemory::Managed, "managed"}};
}  // namespace

std::string_view to_string(HostMemory memory) {
  for (const auto& [known, name] : kHostMemoryNames)
    if (known == memory) return name;
  return "pinned";
}

HostMemory parse_host_memory(std::string_view name) {
  for (const auto& [known, known_name] : kHostMemoryNames)
    if (known_name == name) return known;
  throw InputError("unknown host memory '" + std::string(name) + "' (pinned, pageable, mapped, managed)");
}

std::vector<std::unique_ptr<Backend>> make_backends() {
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(make_cpu_backend());
#ifdef CONVCOMPARE_WITH_CUDA
  backends.push_back(make_cuda_backend());
#endif
#ifdef CONVCOMPARE_WITH_OPENCL
  backends.push_back(make_opencl_backend());
#endif
  // Every backend answers to a name of the one list (common/domain/backend_names.h) that the command
  // line, the help text and the report read; one missing there could be built but never selected.
  for (const std::unique_ptr<Backend>& backend : backends)
    if (!find_backend_name(backend->name()))
      throw std::logic_error(std::string(backend->name()) + " is not in common/domain/backend_names.h");
  return backends;
}

std::vector<std::string> compiled_backends() {
  std::vector<std::string> names = {"cpu"};
#ifdef CONVCOMPARE_WITH_CUDA
  std::string cuda = "cuda";
  std::vector<std::string> libraries;
#ifdef CONVCOMPARE_WITH_NPP
  libraries.push_back("npp");
#endif
#ifdef CONVCOMPARE_WITH_CUFFT
  libraries.push_back("cufft");
#endif
  for (std::size_t i = 0; i < libraries.size(); ++i) cuda += (i == 0 ? " (" : ", ") + libraries[i];
  names.push_back(libraries.empty() ? cuda : cuda + ")");
#endif
#ifdef CONVCOMPARE_WITH_OPENCL
  names.push_back("opencl");
#endif
  return names;
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
