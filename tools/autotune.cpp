// autotune.cpp: --variant auto: measures the candidate variants once per problem shape and caches the winner per device.
#include "tools/autotune.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/domain/error.h"
#include "common/domain/filter.h"
#include "common/domain/image_io.h"
#include "common/domain/variants.h"

namespace cc {

// The cache file's key object: one JSON field per member; a missing or mistyped field throws
// json::exception, and the file is then treated as corrupt.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TuningKey, width, height, channels, radius_x, radius_y, border, separable, backend,
                                   versions)

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Bumped when the file layout changes; a file of another format is rebuilt like a corrupt one.
constexpr int kCacheFormat = 1;

// Letters, digits, '.' and '-' kept (case too, so the file name still reads as the device); every
// other run of characters becomes one '-'.
std::string file_name_part(std::string_view text) {
  std::string result;
  for (const char c : text) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
    if (keep)
      result += c;
    else if (!result.empty() && result.back() != '-')
      result += '-';
  }
  while (!result.empty() && result.back() == '-') result.pop_back();
  return result;
}

std::string property(const DeviceInfo& device, std::string_view name) {
  for (const auto& [key, value] : device.properties)
    if (key == name) return value;
  return "";
}

json to_json(const AutoChoice& choice) {
  json measured = json::array();
  for (const auto& [variant, ms] : choice.measured) measured.push_back({{"variant", variant}, {"kernel_ms", ms}});
  return {{"variant", choice.variant}, {"measured", measured}};
}

AutoChoice choice_from_json(const json& object) {
  AutoChoice choice;
  choice.variant = object.at("variant").get<std::string>();
  for (const json& entry : object.at("measured"))
    choice.measured.emplace_back(entry.at("variant").get<std::string>(), entry.at("kernel_ms").get<double>());
  if (choice.variant.empty() || choice.measured.empty() || choice.measured.front().first != choice.variant)
    throw std::runtime_error("an entry's winner is not its fastest measurement");
  return choice;
}

}  // namespace

std::string AutoChoice::summary() const {
  if (variant.empty()) return fmt::format("none ({})", reason);
  std::vector<std::string> times;
  for (const auto& [name, ms] : measured) times.push_back(fmt::format("{} {:.3g} ms", name, ms));
  return fmt::format("{} ({}; {})", variant, from_cache ? "cached" : "measured", fmt::join(times, ", "));
}

TuningKey make_tuning_key(std::string_view backend, const DeviceInfo& device, const Problem& problem) {
  TuningKey key;
  key.width = problem.width;
  key.height = problem.height;
  key.channels = problem.channels;
  key.radius_x = problem.radius_x();
  key.radius_y = problem.radius_y();
  key.border = std::string(to_string(problem.border));
  key.separable = separate(problem.correlation_filter).has_value();
  key.backend = std::string(backend);
  std::vector<std::string> versions;
  for (const std::string_view name : {"driver version", "runtime version", "platform version"})
    if (std::string value = property(device, name); !value.empty()) versions.push_back(fmt::format("{} {}", name, value));
  versions.push_back("convcompare " CONVCOMPARE_VERSION);
  key.versions = fmt::format("{}", fmt::join(versions, "; "));
  return key;
}

fs::path TuningCache::default_directory() {
  const auto environment = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value ? value : "";
  };
  if (std::string dir = environment("CONVCOMPARE_CACHE_DIR"); !dir.empty()) return dir;
  // The XDG spec says to ignore a relative XDG_CACHE_HOME.
  if (fs::path xdg = environment("XDG_CACHE_HOME"); xdg.is_absolute()) return xdg / "convcompare";
  if (std::string home = environment("HOME"); !home.empty()) return fs::path(home) / ".cache" / "convcompare";
  return fs::temp_directory_path() / "convcompare-cache";
}

TuningCache::TuningCache(fs::path directory, const DeviceInfo& device)
    : file_(std::move(directory) / fmt::format("{}_{}.json", file_name_part(device.id), file_name_part(device.name))),
      device_(device) {
  std::error_code error;
  if (!fs::exists(file_, error)) return;
  try {
    std::ifstream in(file_, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open it");
    const json document = json::parse(in);
    if (document.at("format").get<int>() != kCacheFormat) throw std::runtime_error("another format version");
    for (const json& entry : document.at("entries"))
      entries_.emplace_back(entry.at("key").get<TuningKey>(), choice_from_json(entry.at("choice")));
  } catch (const std::exception& problem) {  // json::exception or the runtime_errors above
    entries_.clear();
    std::cerr << fmt::format("convcompare: warning: ignoring the tuning cache '{}' ({}); it will be rebuilt\n",
                             file_.string(), problem.what());
  }
}

std::optional<AutoChoice> TuningCache::find(const TuningKey& key) const {
  const auto found = std::ranges::find(entries_, key, &std::pair<TuningKey, AutoChoice>::first);
  if (found == entries_.end()) return std::nullopt;
  AutoChoice choice = found->second;
  choice.from_cache = true;
  return choice;
}

void TuningCache::store(const TuningKey& key, const AutoChoice& choice) {
  const auto found = std::ranges::find(entries_, key, &std::pair<TuningKey, AutoChoice>::first);
  if (found != entries_.end())
    found->second = choice;
  else
    entries_.emplace_back(key, choice);
  write();
}

void TuningCache::write() const {
  json entries = json::array();
  for (const auto& [key, choice] : entries_) entries.push_back({{"key", json(key)}, {"choice", to_json(choice)}});
  const json document = {{"format", kCacheFormat},
                         {"device", {{"id", device_.id}, {"name", device_.name}}},
                         {"entries", entries}};
  try {
    std::error_code error;
    fs::create_directories(file_.parent_path(), error);
    if (error) throw InputError(fmt::format("cannot create '{}': {}", file_.parent_path().string(), error.message()));
    write_file_atomically(file_.string(), document.dump(2) + "\n");
  } catch (const InputError& problem) {
    // Tuning still chose a variant; only the next run loses the saved measurement.
    if (!warned_unwritable_)
      std::cerr << fmt::format("convcompare: warning: tuning cache not saved: {}\n", problem.what());
    warned_unwritable_ = true;
  }
}

AutoChoice choose_variant(Backend& backend, int device, const Problem& problem, const Image& input,
                          const RunOptions& options, TuningCache& cache, bool retune) {
  std::vector<std::string> candidates = backend.variants();
  std::erase_if(candidates, [](const std::string& variant) {
    const VariantTraits* traits = find_variant(variant);
    return !traits || !traits->auto_candidate;
  });
  AutoChoice choice;
  if (candidates.empty()) {
    choice.reason = fmt::format("the {} backend has none of the variants auto chooses from", backend.name());
    return choice;
  }

  const TuningKey key = make_tuning_key(backend.name(), backend.devices().at(device), problem);
  if (!retune)
    if (std::optional<AutoChoice> cached = cache.find(key);
        cached && std::ranges::find(candidates, cached->variant) != candidates.end())
      return *cached;

  RunOptions tuning = options;
  tuning.repetitions = kTuningRepetitions;
  tuning.warmup = kTuningWarmup;
  tuning.time_budget_s = kTuningTimeBudgetS;
  std::vector<std::string> skip_reasons;
  for (const std::string& variant : candidates) {
    try {
      const BackendRun run = backend.run(problem, input, variant, device, tuning);
      if (run.status == Status::Ok && run.times.kernel_ms.samples > 0)
        choice.measured.emplace_back(variant, run.times.kernel_ms.median);
      else
        skip_reasons.push_back(fmt::format("{}: {}", variant, run.reason.empty() ? "no kernel time measured" : run.reason));
    } catch (const ApiError& error) {
      // One candidate's API failure (out of resources, a build failure) leaves the others to choose from.
      skip_reasons.push_back(fmt::format("{}: {}", variant, error.what()));
    }
  }
  if (choice.measured.empty()) {
    choice.reason = fmt::format("{}", fmt::join(skip_reasons, "; "));
    return choice;
  }
  std::ranges::stable_sort(choice.measured, {}, &std::pair<std::string, double>::second);
  choice.variant = choice.measured.front().first;
  cache.store(key, choice);
  return choice;
}

}  // namespace cc
