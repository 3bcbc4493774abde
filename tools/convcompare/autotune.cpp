// autotune.cpp: --variant auto: measures the candidate variants once per problem shape and caches the winner per device.
#include "tools/convcompare/autotune.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <utility>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/domain/error.h"
#include "common/domain/filter.h"
#include "common/domain/image_io.h"
#include "common/domain/input_file.h"
#include "common/domain/json_nesting.h"
#include "common/domain/variants.h"
#include "tools/convcompare/cache_files.h"

namespace cc {

// The cache file's key object: one JSON field per member; a missing or mistyped field throws
// json::exception, and the file is then treated as corrupt.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TuningKey, width, height, channels, radius_x, radius_y, border, pixel, separable,
                                   rank, backend, versions)

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Bumped when the file layout changes; a file of another format is rebuilt like a corrupt one.
// 2: the key holds the pixel type, so an f32 choice is never reused for u8.
// 3: the key holds the filter's rank and the choice the candidates left out, with why.
constexpr int kCacheFormat = 3;

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
  json left_out = json::array();
  for (const auto& [variant, why] : choice.left_out) left_out.push_back({{"variant", variant}, {"reason", why}});
  return {{"variant", choice.variant}, {"measured", measured}, {"left_out", left_out}};
}

AutoChoice choice_from_json(const json& object) {
  AutoChoice choice;
  choice.variant = object.at("variant").get<std::string>();
  for (const json& entry : object.at("measured"))
    choice.measured.emplace_back(entry.at("variant").get<std::string>(), entry.at("kernel_ms").get<double>());
  for (const json& entry : object.at("left_out"))
    choice.left_out.emplace_back(entry.at("variant").get<std::string>(), entry.at("reason").get<std::string>());
  // A time below 0 was never measured (JSON holds no NaN): the entry was edited or corrupted, and its
  // winner and its times in the report would be made up.
  if (std::ranges::any_of(choice.measured, [](const auto& measured) { return !(measured.second >= 0); }))
    throw std::runtime_error("an entry holds a negative time");
  if (choice.variant.empty() || choice.measured.empty() || choice.measured.front().first != choice.variant ||
      !std::ranges::is_sorted(choice.measured, {}, &std::pair<std::string, double>::second))
    throw std::runtime_error("an entry's winner is not its fastest measurement");
  return choice;
}

}  // namespace

double tuning_budget_s(std::size_t candidates) {
  return std::min(kTuningTimeBudgetS, kTuningTotalBudgetS / static_cast<double>(std::max<std::size_t>(candidates, 1)));
}

std::string AutoChoice::summary() const {
  if (variant.empty()) return fmt::format("none ({})", reason);
  std::vector<std::string> times;
  for (const auto& [name, ms] : measured) times.push_back(fmt::format("{} {:.3g} ms", name, ms));
  // Brackets, not parentheses: a reason may hold "(...)", ", " and "; " of its own.
  std::vector<std::string> others;
  for (const auto& [name, why] : left_out) others.push_back(fmt::format("{} [{}]", name, why));
  return fmt::format("{} ({}; {}{}{})", variant, from_cache ? "cached" : "measured", fmt::join(times, ", "),
                     others.empty() ? "" : "; left out: ", fmt::join(others, ", "));
}

TuningKey make_tuning_key(std::string_view backend, const DeviceInfo& device, const Problem& problem) {
  TuningKey key;
  key.width = problem.width;
  key.height = problem.height;
  key.channels = problem.channels;
  key.radius_x = problem.radius_x();
  key.radius_y = problem.radius_y();
  key.border = std::string(to_string(problem.border));
  key.pixel = std::string(to_string(problem.pixel));
  key.separable = problem.correlation_factors.has_value();
  key.rank = problem.correlation_low_rank ? problem.correlation_low_rank->rank : 0;
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
  // No home: the temp directory, shared with every user. The name carries the user id so that users
  // do not collide; a directory of that name made by someone else is refused when opened (CacheDirectory).
  // Not fs::temp_directory_path(): its filesystem_error for a TMPDIR naming a file is no one-line message.
  fs::path temp = environment("TMPDIR");
  if (temp.empty()) temp = "/tmp";
  if (std::error_code error; !fs::is_directory(temp, error))
    throw InputError(fmt::format("TMPDIR '{}' is not a directory: the tuning cache of --variant auto goes there when "
                                 "CONVCOMPARE_CACHE_DIR, XDG_CACHE_HOME and HOME are unset",
                                 temp.string()));
  return temp / fmt::format("convcompare-cache-{}", ::geteuid());
}

fs::path TuningCache::file_for(const fs::path& directory, const DeviceInfo& device) {
  return directory / fmt::format("{}_{}.json", file_name_part(device.id), file_name_part(device.name));
}

TuningCache::TuningCache(fs::path directory, const DeviceInfo& device)
    : directory_(std::move(directory)), file_(file_for(directory_, device)), device_(device) {
  try {
    if (const Descriptor dir = open_cache_directory(directory_, false)) entries_ = read_entries(dir.get());
  } catch (const CacheDirectoryRefused& problem) {
    unusable_ = problem.what();
    std::cerr << fmt::format("convcompare: warning: tuning cache not used: {}\n", printable(unusable_));
  } catch (const InputError&) {  // cannot be opened now (not a directory, no permission): store says so
    entries_.clear();
  }
}

std::vector<std::pair<TuningKey, AutoChoice>> TuningCache::read_entries(int directory) const {
  std::vector<std::pair<TuningKey, AutoChoice>> entries;
  // The warning names what is wrong, never the file's bytes (json's parse messages quote them).
  std::string problem;
  try {
    // Entries are about 300 bytes: 16 MB is 50,000 problem shapes.
    constexpr std::uint64_t kMaxCacheBytes = 16u << 20;
    const std::optional<std::string> text = read_cache_file(directory, file_.filename().string(), kMaxCacheBytes);
    if (!text) return entries;
    const json document = parse_json_nested<json>(*text);
    if (document.at("format").get<int>() != kCacheFormat) throw std::runtime_error("another format version");
    for (const json& entry : document.at("entries"))
      entries.emplace_back(entry.at("key").get<TuningKey>(), choice_from_json(entry.at("choice")));
    return entries;
  } catch (const json::parse_error& error) {
    problem = fmt::format("not valid JSON at byte {}", error.byte);
  } catch (const json::exception&) {
    problem = "a field is missing or has the wrong type";
  } catch (const std::exception& error) {  // InputError or the runtime_errors above, all our own words
    problem = error.what();
  }
  entries.clear();
  if (!warned_unreadable_)
    std::cerr << fmt::format("convcompare: warning: ignoring the tuning cache '{}' ({}); it will be rebuilt\n",
                             file_.string(), printable(problem));
  warned_unreadable_ = true;
  return entries;
}

std::optional<AutoChoice> TuningCache::find(const TuningKey& key) const {
  const auto found = std::ranges::find(entries_, key, &std::pair<TuningKey, AutoChoice>::first);
  if (found == entries_.end()) return std::nullopt;
  AutoChoice choice = found->second;
  choice.from_cache = true;
  return choice;
}

void TuningCache::store(const TuningKey& key, const AutoChoice& choice) {
  const auto put = [&](std::vector<std::pair<TuningKey, AutoChoice>>& entries) {
    const auto found = std::ranges::find(entries, key, &std::pair<TuningKey, AutoChoice>::first);
    if (found != entries.end())
      found->second = choice;
    else
      entries.emplace_back(key, choice);
  };
  put(entries_);  // remembered for this process even when the file cannot be written
  if (!unusable_.empty()) return;  // refused when read, and said so then
  try {
    const Descriptor dir = open_cache_directory(directory_, true);
    // Read, change one entry, write, all under the lock: another process tuning the same device
    // meanwhile keeps its entries instead of being overwritten with this process's older copy.
    const CacheLock lock(dir.get(), directory_, file_.filename().string() + ".lock");
    std::vector<std::pair<TuningKey, AutoChoice>> entries = read_entries(dir.get());
    put(entries);
    write(dir.get(), entries);
    entries_ = std::move(entries);
  } catch (const InputError& problem) {
    // Tuning still chose a variant; only the next run loses the saved measurement.
    if (!warned_unwritable_)
      std::cerr << fmt::format("convcompare: warning: tuning cache not saved: {}\n", printable(problem.what()));
    warned_unwritable_ = true;
  }
}

void TuningCache::write(int directory, const std::vector<std::pair<TuningKey, AutoChoice>>& entries) const {
  json array = json::array();
  for (const auto& [key, choice] : entries) array.push_back({{"key", json(key)}, {"choice", to_json(choice)}});
  const json document = {{"format", kCacheFormat},
                         {"device", {{"id", device_.id}, {"name", device_.name}}},
                         {"entries", array}};
  replace_cache_file(directory, directory_, file_.filename().string(), document.dump(2) + "\n");
}

AutoChoice choose_variant(Backend& backend, int device, const Problem& problem, const Image& input,
                          const RunOptions& options, TuningCache& cache, bool retune) {
  // The backend's variants as table lines, resolved once and carried to its runs; only the
  // candidates with kernels for the problem's pixel type (the table's `pixels`).
  AutoChoice choice;
  std::vector<const VariantTraits*> candidates;
  for (const std::string& variant : backend.variants()) {
    const VariantTraits* traits = find_variant(variant);
    if (!traits || !traits->auto_candidate) continue;
    if (traits->pixels & pixel_bit(problem.pixel))
      candidates.push_back(traits);
    else
      choice.left_out.emplace_back(variant, fmt::format("no {} kernels", to_string(problem.pixel)));
  }
  if (candidates.empty()) {
    choice.reason = fmt::format("the {} backend has none of the variants auto chooses from for {} pixels",
                                backend.name(), to_string(problem.pixel));
    return choice;
  }

  const TuningKey key = make_tuning_key(backend.name(), backend.devices().at(device), problem);
  const auto candidate_named = [&](std::string_view name) -> const VariantTraits* {
    const auto found = std::ranges::find(candidates, name, &VariantTraits::name);
    return found == candidates.end() ? nullptr : *found;
  };
  if (std::optional<AutoChoice> cached = retune ? std::nullopt : cache.find(key); cached) {
    cached->traits = candidate_named(cached->variant);  // a winner this backend no longer offers is measured again
    if (cached->traits) return *cached;
  }

  // A rank-1 filter is one term: lowrank would run separable's passes (docs/architecture.md, "The variant
  // table"), so where separable is measured lowrank is left out, a build and a run saved.
  const bool rank_one_measured =
      problem.correlation_factors &&
      std::ranges::any_of(candidates, [](const VariantTraits* traits) { return traits->rank_one; });
  if (rank_one_measured)
    std::erase_if(candidates, [&](const VariantTraits* traits) {
      if (!traits->low_rank) return false;
      choice.left_out.emplace_back(traits->name, "a rank-1 filter: separable runs the same passes");
      return true;
    });

  RunOptions tuning = options;
  tuning.repetitions = kTuningRepetitions;
  tuning.warmup = kTuningWarmup;
  tuning.time_budget_s = tuning_budget_s(candidates.size());
  std::vector<std::string> skip_reasons;
  for (const VariantTraits* candidate : candidates) {
    const std::string_view variant = candidate->name;
    std::string why;
    try {
      const BackendRun run = backend.run(problem, input, *candidate, device, tuning);
      if (run.status == Status::Ok && run.times.kernel_ms.samples > 0)
        choice.measured.emplace_back(std::string(variant), run.times.kernel_ms.median);
      else
        why = run.reason.empty() ? "no kernel time measured" : run.reason;
    } catch (const ApiError& error) {
      // One candidate's API failure (out of resources, a build failure) leaves the others to choose from.
      why = error.what();
    }
    if (why.empty()) continue;
    skip_reasons.push_back(fmt::format("{}: {}", variant, why));
    choice.left_out.emplace_back(std::string(variant), std::move(why));
  }
  if (choice.measured.empty()) {
    choice.reason = fmt::format("{}", fmt::join(skip_reasons, "; "));
    return choice;
  }
  // In table order, as --list shows them, whichever step left each out.
  const auto table_place = [](const std::pair<std::string, std::string>& entry) {
    return find_variant(entry.first) - all_variants().data();
  };
  std::ranges::stable_sort(choice.left_out, {}, table_place);
  std::ranges::stable_sort(choice.measured, {}, &std::pair<std::string, double>::second);
  choice.variant = choice.measured.front().first;
  choice.traits = candidate_named(choice.variant);
  cache.store(key, choice);
  return choice;
}

}  // namespace cc
