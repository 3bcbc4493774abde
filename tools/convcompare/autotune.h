// autotune.h: --variant auto: picks the fastest variant per (size, radius, device), measured once and cached per device.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "common/domain/image.h"
#include "common/domain/problem.h"
#include "common/report/record.h"

namespace cc {

// Auto chooses among the variants the table marks auto_candidate (common/domain/variants.h) that store the
// problem's pixel type (the table's `pixels`: fft does not run u8, so an 8-bit auto never measures it): every one of
// the project's own single-pass, two-pass and low-rank forms and the memory paths (async, shuffle,
// cluster), so that "auto" is never slower than the best of them by more than the timing noise; not naive (a
// one-thread CPU baseline) nor the vendor baselines. A candidate that cannot run here (no lane shuffles, no
// clusters, a rank over lowrank's terms, no kernels for the pixel type) is left out with its reason, never an error.
// The tile shape is not tuned here: `fast` picks its shape per radius at compile time
// (common/geometry/fast_shape.h), and no backend exposes the shape as a run option, so auto tunes the variant.

// Tuning runs are short: enough for a stable median of a few launches, not a benchmark.
inline constexpr int kTuningRepetitions = 5;
inline constexpr int kTuningWarmup = 1;
inline constexpr double kTuningTimeBudgetS = 0.3;
// The time budget (RunOptions::time_budget_s) of all candidates' runs together: each gets an equal share, at
// most kTuningTimeBudgetS, so a new candidate shortens the others' runs instead of adding its own 0.3 s. What still adds up per candidate: its build (NVRTC, clBuildProgram), outside every run's
// budget, and the launches a run makes whatever its budget (a warm-up and one sample, backends/measure.h).
inline constexpr double kTuningTotalBudgetS = 2.0;

// The time budget of each of `candidates` tuning runs.
double tuning_budget_s(std::size_t candidates);

struct AutoChoice {
  std::string variant;      // the winner, e.g. "fast"; empty when no candidate could run (see reason)
  // The winner's table line, resolved from the backend's candidates by choose_variant (the cache file
  // keeps the name alone); null when none could run.
  const VariantTraits* traits = nullptr;
  bool from_cache = false;  // true: no measurement this time
  // Candidate -> median kernel ms (this time or cached), fastest first; skipped candidates absent.
  std::vector<std::pair<std::string, double>> measured;
  // Candidate -> why it was not measured (it skipped here, has no kernels for the pixel type, or another
  // candidate runs the same kernels): with `measured`, every candidate the backend has, in table order.
  std::vector<std::pair<std::string, std::string>> left_out;
  std::string reason;  // when variant is empty: why each candidate was skipped

  // For the report's compile_time column: "fast (cached; fast 0.262 ms, separable 0.41 ms, fft 1.9 ms; left
  // out: shuffle [the device offers no sub-group shuffle])".
  std::string summary() const;
};

// What a measurement depends on. A new driver, runtime or convcompare version changes `versions`,
// so a cached choice made with other kernels or another compiler is never reused.
struct TuningKey {
  int width = 0, height = 0, channels = 0, radius_x = 0, radius_y = 0;
  std::string border;      // "zero", "clamp", ...
  std::string pixel;       // "f32", "u8": the device frame's pixels, which decide the candidates and their speed
  bool separable = false;  // rank-1 filter: the separable variant can run
  int rank = 0;            // the filter's numerical rank (Problem::correlation_low_rank), which lowrank runs as terms
  std::string backend;     // "cuda", "opencl", "cpu"
  std::string versions;    // the device's driver / runtime / platform versions and convcompare's

  bool operator==(const TuningKey&) const = default;
};

TuningKey make_tuning_key(std::string_view backend, const DeviceInfo& device, const Problem& problem);

// One JSON file per device under the user's cache directory, holding every choice made on it. The
// cache only saves time: a file that cannot be read or parsed is ignored with one warning on stderr
// and rebuilt, and a directory that cannot be written is warned about once; neither is an error.
// Two processes tuning the same device at once: each store re-reads the file and writes it back with
// its one entry changed, under an flock on "<file>.lock" beside it, so no process loses another's
// entries; the file itself is replaced atomically (write and rename). A lock held for more than a few
// seconds is a warning, not a hang. Every file is opened relative to the checked directory, never through
// a symlink, and a directory that is a symlink, belongs to another user or others can write is not used
// (one warning): the temp-directory fallback is shared with every local user.
class TuningCache {
 public:
  // $CONVCOMPARE_CACHE_DIR when set (tests), else $XDG_CACHE_HOME/convcompare, else
  // ~/.cache/convcompare, else $TMPDIR (or /tmp)/convcompare-cache-<uid>. An InputError when that
  // last one is needed and TMPDIR is not a directory.
  static std::filesystem::path default_directory();

  // The device's file under `directory` (what file() will be), without reading it.
  static std::filesystem::path file_for(const std::filesystem::path& directory, const DeviceInfo& device);

  // Reads the device's file if there is one (the directory is created on the first store).
  TuningCache(std::filesystem::path directory, const DeviceInfo& device);

  std::optional<AutoChoice> find(const TuningKey& key) const;  // from_cache is set on the result
  void store(const TuningKey& key, const AutoChoice& choice);  // replaces any entry under key in the file

  const std::filesystem::path& file() const { return file_; }  // e.g. ".../cuda-0_NVIDIA-H100-80GB-HBM3.json"

 private:
  // The file's entries, read through the open cache directory `directory`; none (and one warning per
  // cache object) when it is missing or unreadable.
  std::vector<std::pair<TuningKey, AutoChoice>> read_entries(int directory) const;
  void write(int directory, const std::vector<std::pair<TuningKey, AutoChoice>>& entries) const;

  std::filesystem::path directory_, file_;
  std::string unusable_;  // why the directory is refused (another user's, writable by others, a symlink)
  DeviceInfo device_;
  std::vector<std::pair<TuningKey, AutoChoice>> entries_;
  mutable bool warned_unreadable_ = false;
  bool warned_unwritable_ = false;
};

// Runs each candidate the backend implements once through backend.run() with the short tuning
// options above and picks the lowest median kernel time; the exact winner, no setup-cost trade-offs.
// A cache hit (unless `retune`) returns without running anything; a fresh choice is stored. Results
// are not validated here: the driver validates the "auto" row it runs with the winner. Candidates
// that skip or throw ApiError are left out (in `left_out`, and their reasons go to `reason` when none is
// left). A single candidate (the CPU backend's fast) is measured and cached too, so every auto row reads alike.
AutoChoice choose_variant(Backend& backend, int device, const Problem& problem, const Image& input,
                          const RunOptions& options, TuningCache& cache, bool retune);

}  // namespace cc
