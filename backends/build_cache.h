// build_cache.h: the one cache of run-time builds (NVRTC modules, OpenCL programs) for every GPU API, keyed by what a build depends on.
#pragma once

#include <chrono>
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

// A build and how long it took: the first build's time, reported again for its cached uses.
template <typename Built>
struct CachedBuild {
  Built built;
  double build_ms = 0;
};

// Builds of type `Built` by key, each made once. One per API object, since a build belongs to that API's
// contexts and is released with them (or, where the API gives up on a stuck driver, left unreleased with them).
template <typename Built>
class BuildCache {
 public:
  // The build for `key`, made and timed by `build()` on the first ask. A build that throws leaves nothing
  // cached, so the next ask builds again.
  template <typename Build>
  const CachedBuild<Built>& get(BuildKey key, Build&& build) {
    if (auto found = built_.find(key); found != built_.end()) return found->second;
    const auto start = std::chrono::steady_clock::now();
    Built made = std::forward<Build>(build)();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return built_.emplace(std::move(key), CachedBuild<Built>{std::move(made), ms}).first->second;
  }

 private:
  std::map<BuildKey, CachedBuild<Built>> built_;
};

}  // namespace cc
