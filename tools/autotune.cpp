// autotune.cpp: --variant auto: measures the candidate variants once per problem shape and caches the winner per device.
#include "tools/autotune.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/domain/error.h"
#include "common/domain/filter.h"
#include "common/domain/image_io.h"
#include "common/domain/input_file.h"
#include "common/domain/variants.h"

namespace cc {

// The cache file's key object: one JSON field per member; a missing or mistyped field throws
// json::exception, and the file is then treated as corrupt.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TuningKey, width, height, channels, radius_x, radius_y, border, pixel, separable,
                                   backend, versions)

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Bumped when the file layout changes; a file of another format is rebuilt like a corrupt one.
// 2: the key holds the pixel type (issue #16), so an f32 choice is never reused for u8.
constexpr int kCacheFormat = 2;

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
  key.pixel = std::string(to_string(problem.pixel));
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

fs::path TuningCache::file_for(const fs::path& directory, const DeviceInfo& device) {
  return directory / fmt::format("{}_{}.json", file_name_part(device.id), file_name_part(device.name));
}

TuningCache::TuningCache(fs::path directory, const DeviceInfo& device)
    : file_(file_for(directory, device)), device_(device) {
  entries_ = read_entries();
}

std::vector<std::pair<TuningKey, AutoChoice>> TuningCache::read_entries() const {
  std::vector<std::pair<TuningKey, AutoChoice>> entries;
  try {
    // Through the one input opener: a FIFO or a device put in the cache's place is refused, not read
    // forever, and the file is capped (entries are about 300 bytes: 16 MB is 50,000 problem shapes).
    constexpr std::uint64_t kMaxCacheBytes = 16u << 20;
    if (!input_exists(file_.string(), "tuning cache")) return entries;
    if (std::error_code error; !fs::is_regular_file(file_, error))
      throw InputError("it is not a regular file, so it is neither read nor written");
    const json document = json::parse(
        read_input_file(file_.string(), "tuning cache", kMaxCacheBytes, "far more than any set of tuned shapes needs"));
    if (document.at("format").get<int>() != kCacheFormat) throw std::runtime_error("another format version");
    for (const json& entry : document.at("entries"))
      entries.emplace_back(entry.at("key").get<TuningKey>(), choice_from_json(entry.at("choice")));
  } catch (const std::exception& problem) {  // InputError, json::exception or the runtime_errors above
    entries.clear();
    if (!warned_unreadable_)
      std::cerr << fmt::format("convcompare: warning: ignoring the tuning cache '{}' ({}); it will be rebuilt\n",
                               file_.string(), printable(problem.what()));
    warned_unreadable_ = true;
  }
  return entries;
}

std::optional<AutoChoice> TuningCache::find(const TuningKey& key) const {
  const auto found = std::ranges::find(entries_, key, &std::pair<TuningKey, AutoChoice>::first);
  if (found == entries_.end()) return std::nullopt;
  AutoChoice choice = found->second;
  choice.from_cache = true;
  return choice;
}

namespace {

// An exclusive flock on `path` (created if missing), held while the object lives: the lock file sits
// beside the cache, since the cache itself is replaced by a rename and a lock on it would not last.
class FileLock {
 public:
  explicit FileLock(const fs::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666)) {
    if (fd_ < 0) throw InputError(fmt::format("cannot open the lock file '{}': {}", path.string(), std::strerror(errno)));
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) {
        const int error = errno;
        ::close(fd_);
        throw InputError(fmt::format("cannot lock '{}': {}", path.string(), std::strerror(error)));
      }
  }
  ~FileLock() { ::close(fd_); }  // closing releases the lock
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

}  // namespace

void TuningCache::store(const TuningKey& key, const AutoChoice& choice) {
  const auto put = [&](std::vector<std::pair<TuningKey, AutoChoice>>& entries) {
    const auto found = std::ranges::find(entries, key, &std::pair<TuningKey, AutoChoice>::first);
    if (found != entries.end())
      found->second = choice;
    else
      entries.emplace_back(key, choice);
  };
  put(entries_);  // remembered for this process even when the file cannot be written
  try {
    std::error_code error;
    fs::create_directories(file_.parent_path(), error);
    if (error) throw InputError(fmt::format("cannot create '{}': {}", file_.parent_path().string(), error.message()));
    // Read, change one entry, write, all under the lock: another process tuning the same device
    // meanwhile keeps its entries instead of being overwritten with this process's older copy.
    const FileLock lock(file_.string() + ".lock");
    std::vector<std::pair<TuningKey, AutoChoice>> entries = read_entries();
    put(entries);
    write(entries);
    entries_ = std::move(entries);
  } catch (const InputError& problem) {
    // Tuning still chose a variant; only the next run loses the saved measurement.
    if (!warned_unwritable_)
      std::cerr << fmt::format("convcompare: warning: tuning cache not saved: {}\n", printable(problem.what()));
    warned_unwritable_ = true;
  }
}

void TuningCache::write(const std::vector<std::pair<TuningKey, AutoChoice>>& entries) const {
  json array = json::array();
  for (const auto& [key, choice] : entries) array.push_back({{"key", json(key)}, {"choice", to_json(choice)}});
  const json document = {{"format", kCacheFormat},
                         {"device", {{"id", device_.id}, {"name", device_.name}}},
                         {"entries", array}};
  write_file_atomically(file_.string(), document.dump(2) + "\n");
}

AutoChoice choose_variant(Backend& backend, int device, const Problem& problem, const Image& input,
                          const RunOptions& options, TuningCache& cache, bool retune) {
  std::vector<std::string> candidates = backend.variants();
  // Only the candidates with kernels for the problem's pixel type (the table's `pixels`).
  std::erase_if(candidates, [&](const std::string& variant) {
    const VariantTraits* traits = find_variant(variant);
    return !traits || !traits->auto_candidate || !(traits->pixels & pixel_bit(problem.pixel));
  });
  AutoChoice choice;
  if (candidates.empty()) {
    choice.reason = fmt::format("the {} backend has none of the variants auto chooses from for {} pixels",
                                backend.name(), to_string(problem.pixel));
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
