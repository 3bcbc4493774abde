// build_cache.h: the one cache of run-time builds (NVRTC modules, OpenCL programs) for every GPU API, keyed by what a build depends on.
#pragma once

#include <compare>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cc {

// What a run-time build depends on. Later runs of the same key reuse the first build and report its
// time (docs/architecture.md, "Planning").
struct BuildKey {
  int device = 0;             // the API's number for the device it is built for
  std::vector<int> context;   // the devices of the context it belongs to (a split's shared one, or {device})
  std::string source;         // the source text, or the name of a source fixed at build time (embedded)
  std::vector<std::string> options;  // the compiler's options and the plan's -D, as the API passes them

  auto operator<=>(const BuildKey&) const = default;
};

// Builds of type `Built` by key, each made once. One per API object, since a build belongs to that API's
// contexts and is released with them (or, where the API gives up on a stuck driver, left unreleased with them).
template <typename Built>
class BuildCache {
 public:
  // The build for `key`, made by `build()` on the first ask. A build that throws leaves nothing cached,
  // so the next ask builds again.
  template <typename Build>
  Built& get(BuildKey key, Build&& build) {
    if (auto found = built_.find(key); found != built_.end()) return found->second;
    Built made = std::forward<Build>(build)();
    return built_.emplace(std::move(key), std::move(made)).first->second;
  }

 private:
  std::map<BuildKey, Built> built_;
};

}  // namespace cc
