// test_autotune.cpp: --variant auto's chooser and its per-device cache, on OpenCL (PoCL on a CPU-only host).
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/backend.h"
#include "common/domain/filter.h"
#include "common/domain/image_io.h"
#include "common/domain/problem.h"
#include "common/domain/variants.h"
#include "tools/convcompare/autotune.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using nlohmann::json;

using cc::test::ScopedEnv;
using cc::test::TempDir;

namespace {

// What std::cerr received during the scope.
struct CapturedStderr {
  std::ostringstream text;
  std::streambuf* previous = std::cerr.rdbuf(text.rdbuf());
  ~CapturedStderr() { std::cerr.rdbuf(previous); }
};

// Forwards to a real backend, counting run() calls and keeping the last options, so a test can tell
// a cache hit (no runs) from a measurement.
class CountingBackend final : public cc::Backend {
 public:
  explicit CountingBackend(cc::Backend& inner) : inner_(inner) {}
  std::string_view name() const override { return inner_.name(); }
  const std::vector<cc::DeviceInfo>& devices() override { return inner_.devices(); }
  std::string unavailable_reason() override { return inner_.unavailable_reason(); }
  std::vector<std::string> variants() const override { return inner_.variants(); }
  cc::BackendRun run(const cc::Problem& problem, const cc::Image& input, const cc::VariantTraits& variant, int device,
                     const cc::RunOptions& options) override {
    ++runs;
    last_options = options;
    return inner_.run(problem, input, variant, device, options);
  }
  int runs = 0;
  cc::RunOptions last_options;

 private:
  cc::Backend& inner_;
};

// One OpenCL backend for every test, so PoCL compiles each program once; null without OpenCL or a device.
cc::Backend* opencl_backend() {
  static const std::unique_ptr<cc::Backend> backend = [] {
    for (std::unique_ptr<cc::Backend>& candidate : cc::make_backends())
      if (candidate->name() == "opencl" && !candidate->devices().empty()) return std::move(candidate);
    return std::unique_ptr<cc::Backend>();
  }();
  if (!backend) MESSAGE("no OpenCL device: the autotune tests that run kernels are skipped");
  return backend.get();
}

std::size_t auto_candidate_count(const cc::Backend& backend) {
  return std::ranges::count_if(backend.variants(), [](const std::string& variant) {
    const cc::VariantTraits* traits = cc::find_variant(variant);
    return traits && traits->auto_candidate;
  });
}

bool was_measured(const cc::AutoChoice& choice, std::string_view variant) {
  return std::ranges::any_of(choice.measured, [&](const auto& entry) { return entry.first == variant; });
}

// Why `variant` was left out, or "" when it was not.
std::string left_out_because(const cc::AutoChoice& choice, std::string_view variant) {
  const auto found = std::ranges::find(choice.left_out, variant, &std::pair<std::string, std::string>::first);
  return found == choice.left_out.end() ? "" : found->second;
}

// Every candidate the backend has is either measured or left out with a reason, once.
void check_every_candidate_accounted(const cc::Backend& backend, const cc::AutoChoice& choice) {
  CHECK(choice.measured.size() + choice.left_out.size() == auto_candidate_count(backend));
  for (const auto& [variant, why] : choice.left_out) {
    CAPTURE(variant);
    CHECK_FALSE(why.empty());
    CHECK_FALSE(was_measured(choice, variant));
  }
}

json read_json(const fs::path& path) {
  std::ifstream file(path);
  return json::parse(file);
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  REQUIRE(file.good());
}

cc::DeviceInfo fake_device() {
  cc::DeviceInfo device;
  device.backend = "cuda";
  device.id = "cuda:0";
  device.name = "NVIDIA H100 80GB HBM3";
  device.properties = {{"driver version", "13.0"}, {"runtime version", "13.0"}};
  return device;
}

cc::TuningKey sample_key() {
  const cc::Image image = cc::make_default_image(96, 64, 1);
  return cc::make_tuning_key("cuda", fake_device(),
                             cc::make_problem(image, cc::parse_filter_spec("box:r=3"), cc::Border::Clamp, false));
}

cc::AutoChoice sample_choice() {
  cc::AutoChoice choice;
  choice.variant = "fast";
  choice.measured = {{"fast", 0.262}, {"separable", 0.41}, {"fft", 1.9}};
  return choice;
}

}  // namespace

TEST_CASE("auto: summary names the winner, where the figures came from, and every measurement") {
  cc::AutoChoice choice = sample_choice();
  choice.from_cache = true;
  CHECK(choice.summary() == "fast (cached; fast 0.262 ms, separable 0.41 ms, fft 1.9 ms)");
  choice.from_cache = false;
  CHECK(choice.summary() == "fast (measured; fast 0.262 ms, separable 0.41 ms, fft 1.9 ms)");
  choice.left_out = {{"shuffle", "the device offers no sub-group shuffle (cl_khr_subgroup_shuffle)"},
                     {"lowrank", "a rank-1 filter: separable runs the same passes"}};
  CHECK(choice.summary() == "fast (measured; fast 0.262 ms, separable 0.41 ms, fft 1.9 ms; left out: shuffle [the "
                            "device offers no sub-group shuffle (cl_khr_subgroup_shuffle)], lowrank [a rank-1 filter: "
                            "separable runs the same passes])");
  cc::AutoChoice none;
  none.reason = "fast: too big";
  CHECK(none.summary() == "none (fast: too big)");
}

TEST_CASE("auto: the candidates' runs share one time budget, so more candidates do not add up") {
  CHECK(cc::tuning_budget_s(1) == cc::kTuningTimeBudgetS);
  CHECK(cc::tuning_budget_s(0) == cc::kTuningTimeBudgetS);
  for (const std::size_t candidates : {2u, 6u, 7u, 11u, 12u, 40u}) {
    CAPTURE(candidates);
    CHECK(cc::tuning_budget_s(candidates) <= cc::kTuningTimeBudgetS);
    CHECK(cc::tuning_budget_s(candidates) * static_cast<double>(candidates) <= cc::kTuningTotalBudgetS + 1e-12);
  }
  CHECK(cc::tuning_budget_s(12) < cc::tuning_budget_s(6));  // past the cap, a share shrinks with each candidate
}

TEST_CASE("auto: the tuning key holds the shape, radius, border, separability and versions") {
  const cc::Image image = cc::make_default_image(96, 64, 3);
  const cc::TuningKey box = cc::make_tuning_key(
      "cuda", fake_device(), cc::make_problem(image, cc::parse_filter_spec("box:r=2"), cc::Border::Mirror, false));
  CHECK(box.width == 96);
  CHECK(box.height == 64);
  CHECK(box.channels == 3);
  CHECK(box.radius_x == 2);
  CHECK(box.radius_y == 2);
  CHECK(box.border == "mirror");
  CHECK(box.pixel == "f32");
  CHECK(box.separable);
  CHECK(box.backend == "cuda");
  CHECK(box.versions.find("driver version 13.0") != std::string::npos);
  CHECK(box.versions.find("convcompare ") != std::string::npos);
  const cc::TuningKey laplacian = cc::make_tuning_key(
      "cuda", fake_device(), cc::make_problem(image, cc::parse_filter_spec("laplacian"), cc::Border::Mirror, false));
  CHECK_FALSE(laplacian.separable);
  CHECK(box.rank == 1);
  CHECK(laplacian.rank == 2);  // lowrank runs it as two terms: a choice for rank 1 is not reused
  const cc::TuningKey eight_bit = cc::make_tuning_key(
      "cuda", fake_device(),
      cc::make_problem(cc::quantized_8bit(image), cc::parse_filter_spec("box:r=2"), cc::Border::Mirror, false,
                       cc::PixelType::U8));
  CHECK(eight_bit.pixel == "u8");
  CHECK(eight_bit != box);  // an f32 choice is never reused for u8

  cc::DeviceInfo updated = fake_device();
  updated.properties[0].second = "13.1";
  CHECK(cc::make_tuning_key("cuda", updated,
                            cc::make_problem(image, cc::parse_filter_spec("box:r=2"), cc::Border::Mirror, false)) !=
        box);
}

TEST_CASE("auto: the cache directory follows CONVCOMPARE_CACHE_DIR, then XDG_CACHE_HOME, then HOME") {
  {
    const ScopedEnv cache_dir("CONVCOMPARE_CACHE_DIR", "/tmp/cc-tests-cache");
    CHECK(cc::TuningCache::default_directory() == "/tmp/cc-tests-cache");
  }
  const ScopedEnv cache_dir("CONVCOMPARE_CACHE_DIR", "");
  {
    const ScopedEnv xdg("XDG_CACHE_HOME", "/tmp/xdg");
    CHECK(cc::TuningCache::default_directory() == "/tmp/xdg/convcompare");
  }
  const ScopedEnv xdg("XDG_CACHE_HOME", "relative/ignored");
  const ScopedEnv home("HOME", "/home/someone");
  CHECK(cc::TuningCache::default_directory() == "/home/someone/.cache/convcompare");
}

TEST_CASE("auto: the cache keeps one file per device and finds only the exact key") {
  const TempDir dir("autotune");
  cc::TuningCache cache(dir.path, fake_device());
  CHECK(cache.file() == dir.path / "cuda-0_NVIDIA-H100-80GB-HBM3.json");
  CHECK_FALSE(cache.find(sample_key()));
  cache.store(sample_key(), sample_choice());
  REQUIRE(fs::exists(cache.file()));

  const cc::TuningCache reopened(dir.path, fake_device());
  const std::optional<cc::AutoChoice> found = reopened.find(sample_key());
  REQUIRE(found);
  CHECK(found->from_cache);
  CHECK(found->variant == "fast");
  CHECK(found->measured == sample_choice().measured);
  for (auto change : {+[](cc::TuningKey& key) { key.width += 1; }, +[](cc::TuningKey& key) { key.radius_y += 1; },
                      +[](cc::TuningKey& key) { key.border = "wrap"; }, +[](cc::TuningKey& key) { key.pixel = "u8"; },
                      +[](cc::TuningKey& key) { key.separable = !key.separable; },
                      +[](cc::TuningKey& key) { key.rank += 1; },
                      +[](cc::TuningKey& key) { key.versions += " changed"; }}) {
    cc::TuningKey other = sample_key();
    change(other);
    CHECK_FALSE(reopened.find(other));
  }

  CHECK(found->left_out.empty());

  cc::AutoChoice replaced = sample_choice();
  replaced.variant = "separable";
  replaced.measured = {{"separable", 0.2}, {"fast", 0.3}};
  replaced.left_out = {{"shuffle", "no sub-group shuffle"}};
  cache.store(sample_key(), replaced);
  CHECK(cc::TuningCache(dir.path, fake_device()).find(sample_key())->left_out == replaced.left_out);
  const json document = read_json(cache.file());
  CHECK(document.at("entries").size() == 1);
  CHECK(document.at("device").at("name") == "NVIDIA H100 80GB HBM3");
  CHECK(cc::TuningCache(dir.path, fake_device()).find(sample_key())->variant == "separable");
}

TEST_CASE("auto: an unreadable cache file is ignored with one warning and rewritten") {
  const TempDir dir("autotune");
  const fs::path file = cc::TuningCache(dir.path, fake_device()).file();
  for (const std::string bad : {"not json {", R"({"format": 1, "entries": [{"key": {"width": 1}}]})",
                                R"({"format": 99, "entries": []})", R"([1, 2])"}) {
    CAPTURE(bad);
    write_text(file, bad);
    CapturedStderr err;
    cc::TuningCache cache(dir.path, fake_device());
    const std::string warning = err.text.str();
    CHECK(warning.find("warning: ignoring the tuning cache") != std::string::npos);
    CHECK(warning.find(file.string()) != std::string::npos);
    CHECK(std::ranges::count(warning, '\n') == 1);
    CHECK_FALSE(cache.find(sample_key()));
    cache.store(sample_key(), sample_choice());
    CHECK(read_json(file).at("entries").size() == 1);
  }
}

TEST_CASE("auto: a cache directory that cannot be written is a warning, not an error") {
  const TempDir dir("autotune");
  write_text(dir.path / "not-a-directory", "");
  cc::TuningCache cache(dir.path / "not-a-directory", fake_device());
  CapturedStderr err;
  CHECK_NOTHROW(cache.store(sample_key(), sample_choice()));
  CHECK_NOTHROW(cache.store(sample_key(), sample_choice()));
  CHECK(err.text.str().find("warning: tuning cache not saved") != std::string::npos);
  CHECK(std::ranges::count(err.text.str(), '\n') == 1);
  CHECK(cache.find(sample_key())->variant == "fast");  // still remembered for this process
}

TEST_CASE("auto: two tuners storing into one cache at once lose no entry (flock'ed read-modify-write)") {
  const TempDir dir("autotune");
  constexpr int kPerWriter = 40;
  // Each writer has its own cache object (its own copy of the file's entries), as two processes do;
  // each stores keys the other does not know. Without the lock, a writer's stale copy overwrites the
  // other's entries.
  const auto writer = [&](int first_width) {
    cc::TuningCache cache(dir.path, fake_device());
    for (int i = 0; i < kPerWriter; ++i) {
      cc::TuningKey key = sample_key();
      key.width = first_width + i;
      cache.store(key, sample_choice());
    }
  };
  std::thread a(writer, 1000), b(writer, 2000);
  a.join();
  b.join();
  const cc::TuningCache reopened(dir.path, fake_device());
  int found = 0;
  for (const int first : {1000, 2000})
    for (int i = 0; i < kPerWriter; ++i) {
      cc::TuningKey key = sample_key();
      key.width = first + i;
      found += reopened.find(key).has_value();
    }
  CHECK(found == 2 * kPerWriter);
  CHECK(read_json(reopened.file()).at("entries").size() == 2 * kPerWriter);
}

TEST_CASE("auto: a FIFO in the cache file's place is warned about and left alone, never waited on twice") {
  const TempDir dir("autotune");
  const fs::path file = cc::TuningCache(dir.path, fake_device()).file();
  REQUIRE(mkfifo(file.c_str(), 0600) == 0);
  CapturedStderr err;
  cc::TuningCache cache(dir.path, fake_device());
  cache.store(sample_key(), sample_choice());
  CHECK(err.text.str().find("is not a regular file") != std::string::npos);
  CHECK(cache.find(sample_key())->variant == "fast");
  CHECK(fs::is_fifo(file));
}

TEST_CASE("auto: choose_variant measures the candidates once, then answers from the cache") {
  cc::Backend* opencl = opencl_backend();
  if (!opencl) return;
  const TempDir dir("autotune");
  const ScopedEnv cache_dir("CONVCOMPARE_CACHE_DIR", dir.path.string());
  const cc::Image image = cc::make_default_image(96, 64, 1);
  const int candidates = static_cast<int>(auto_candidate_count(*opencl));
  REQUIRE(candidates >= 2);
  // These filters are rank 1: lowrank would run separable's passes, so it is left out without a run.
  const int run = candidates - 1;
  cc::RunOptions options;
  options.repetitions = 50;  // the tuning runs use their own short settings, not these
  options.time_budget_s = 5;

  for (const std::string spec : {"box:r=1", "box:r=7", "gaussian:sigma=2"}) {
    CAPTURE(spec);
    const cc::Problem problem = cc::make_problem(image, cc::parse_filter_spec(spec), cc::Border::Clamp, false);
    CountingBackend counting(*opencl);
    cc::TuningCache cache(cc::TuningCache::default_directory(), opencl->devices()[0]);
    CHECK(cache.file().parent_path() == dir.path);

    const cc::AutoChoice first = cc::choose_variant(counting, 0, problem, image, options, cache, false);
    CHECK_FALSE(first.from_cache);
    CHECK(counting.runs == run);
    CHECK(counting.last_options.repetitions == cc::kTuningRepetitions);
    CHECK(counting.last_options.warmup == cc::kTuningWarmup);
    CHECK(counting.last_options.time_budget_s == cc::tuning_budget_s(run));
    const std::vector<std::string> implemented = opencl->variants();
    CHECK(std::ranges::find(implemented, first.variant) != implemented.end());
    check_every_candidate_accounted(*opencl, first);
    CHECK(left_out_because(first, "lowrank") == "a rank-1 filter: separable runs the same passes");
    // A box and a Gaussian are rank-1: every OpenCL candidate but lowrank runs on PoCL at these small radii,
    // shuffle where the device offers a sub-group shuffle (PoCL 3 and 5 offer none: left out, with why).
    const bool shuffles = left_out_because(first, "shuffle").empty();
    if (!shuffles) CHECK(left_out_because(first, "shuffle").find("shuffle") != std::string::npos);
    // What else a device leaves out varies (PoCL 5 on the GPU host left one more out, with its reason):
    // check_every_candidate_accounted above counts every one; here, at least two were raced.
    for (const auto& [variant, why] : first.left_out) MESSAGE(variant << " left out: " << why);
    REQUIRE(first.measured.size() >= 2);
    CHECK(first.measured.size() <= static_cast<std::size_t>(run - (shuffles ? 0 : 1)));
    const auto fastest = std::ranges::min_element(first.measured, {}, &std::pair<std::string, double>::second);
    CHECK(first.measured.front() == *fastest);
    CHECK(first.variant == fastest->first);
    CHECK(first.traits == cc::find_variant(first.variant));  // the winner's table line, carried to its run
    CHECK(first.summary().starts_with(first.variant + " (measured; "));

    const json document = read_json(cache.file());
    REQUIRE(document.at("entries").size() == 1);
    CHECK(document["entries"][0]["key"]["radius_x"] == problem.radius_x());
    CHECK(document["entries"][0]["choice"]["variant"] == first.variant);

    const cc::AutoChoice second = cc::choose_variant(counting, 0, problem, image, options, cache, false);
    CHECK(second.from_cache);
    CHECK(counting.runs == run);  // nothing ran
    CHECK(second.variant == first.variant);
    CHECK(second.traits == first.traits);  // resolved from the candidates, the file holding the name alone
    CHECK(second.measured == first.measured);
    CHECK(second.left_out == first.left_out);
    CHECK(second.summary().starts_with(first.variant + " (cached; "));

    // A new process (a new cache object over the same file) hits too.
    cc::TuningCache reopened(dir.path, opencl->devices()[0]);
    CHECK(cc::choose_variant(counting, 0, problem, image, options, reopened, false).from_cache);
    CHECK(counting.runs == run);

    const cc::AutoChoice retuned = cc::choose_variant(counting, 0, problem, image, options, reopened, true);
    CHECK_FALSE(retuned.from_cache);
    CHECK(counting.runs == 2 * run);
    CHECK(cc::TuningCache(dir.path, opencl->devices()[0]).find(cc::make_tuning_key("opencl", opencl->devices()[0],
                                                                                  problem))
              ->measured == retuned.measured);
    fs::remove(cache.file());
  }
}

TEST_CASE("auto: choose_variant leaves out candidates that skip, and re-measures over a corrupt cache") {
  cc::Backend* opencl = opencl_backend();
  if (!opencl) return;
  const TempDir dir("autotune");
  const cc::Image image = cc::make_default_image(96, 64, 1);
  // A Laplacian is not rank-1: the separable variant skips and must not be in `measured`.
  const cc::Problem problem = cc::make_problem(image, cc::parse_filter_spec("laplacian"), cc::Border::Zero, false);
  CountingBackend counting(*opencl);
  const fs::path file = cc::TuningCache(dir.path, opencl->devices()[0]).file();
  write_text(file, "{ truncated");

  CapturedStderr err;
  cc::TuningCache cache(dir.path, opencl->devices()[0]);
  const cc::AutoChoice choice = cc::choose_variant(counting, 0, problem, image, {}, cache, false);
  CHECK(err.text.str().find("ignoring the tuning cache") != std::string::npos);
  CHECK_FALSE(choice.from_cache);
  CHECK(counting.runs == static_cast<int>(auto_candidate_count(*opencl)));  // rank 2: lowrank runs too
  check_every_candidate_accounted(*opencl, choice);
  CHECK_FALSE(was_measured(choice, "separable"));
  CHECK(left_out_because(choice, "separable") == "filter is not separable");
  CHECK(read_json(file).at("entries")[0]["choice"]["variant"] == choice.variant);
  CHECK(read_json(file).at("entries")[0]["choice"]["left_out"].size() == choice.left_out.size());
}

TEST_CASE("auto: a rank-2 LoG considers lowrank, and the summary says why the others were left out") {
  cc::Backend* opencl = opencl_backend();
  if (!opencl) return;
  const TempDir dir("autotune");
  const cc::Image image = cc::make_default_image(96, 64, 1);
  const cc::Problem problem = cc::make_problem(image, cc::parse_filter_spec("log:sigma=1"), cc::Border::Clamp, false);
  REQUIRE(problem.correlation_low_rank);
  REQUIRE(problem.correlation_low_rank->rank == 2);
  CountingBackend counting(*opencl);
  cc::TuningCache cache(dir.path, opencl->devices()[0]);
  const cc::AutoChoice choice = cc::choose_variant(counting, 0, problem, image, {}, cache, false);
  CHECK(counting.runs == static_cast<int>(auto_candidate_count(*opencl)));
  check_every_candidate_accounted(*opencl, choice);
  CHECK(was_measured(choice, "lowrank"));
  CHECK(left_out_because(choice, "separable") == "filter is not separable");
  const std::string summary = choice.summary();
  CHECK(summary.find("lowrank ") != std::string::npos);
  CHECK(summary.find("; left out: ") != std::string::npos);
  CHECK(summary.find("separable [filter is not separable]") != std::string::npos);
  CHECK(read_json(cache.file()).at("entries")[0]["key"]["rank"] == 2);
}

TEST_CASE("auto: a rank over lowrank's terms leaves lowrank out with the reason, never failing auto") {
  cc::Backend* opencl = opencl_backend();
  if (!opencl) return;
  const TempDir dir("autotune");
  const cc::Image image = cc::make_default_image(48, 32, 1);
  // A disk of radius 6 has a numerical rank well over kMaxLowRank (4).
  std::string spec = "file:" + (dir.path / "disk.txt").string();
  {
    std::ofstream disk(dir.path / "disk.txt");
    disk << "13 13\n";
    for (int y = -6; y <= 6; ++y)
      for (int x = -6; x <= 6; ++x) disk << (x * x + y * y <= 36 ? 1 : 0) << (x == 6 ? "\n" : " ");
  }
  const cc::Problem problem = cc::make_problem(image, cc::parse_filter_spec(spec), cc::Border::Zero, false);
  REQUIRE(problem.correlation_low_rank);
  REQUIRE(problem.correlation_low_rank->rank > cc::kMaxLowRank);
  CountingBackend counting(*opencl);
  cc::TuningCache cache(dir.path, opencl->devices()[0]);
  const cc::AutoChoice choice = cc::choose_variant(counting, 0, problem, image, {}, cache, false);
  CHECK_FALSE(choice.variant.empty());
  check_every_candidate_accounted(*opencl, choice);
  CHECK(left_out_because(choice, "lowrank").find("numerical rank") != std::string::npos);
}

TEST_CASE("auto: a backend with one candidate (cpu: fast) still measures it once and caches it") {
  std::unique_ptr<cc::Backend> cpu;
  for (std::unique_ptr<cc::Backend>& backend : cc::make_backends())
    if (backend->name() == "cpu") cpu = std::move(backend);
  REQUIRE(cpu);
  REQUIRE(auto_candidate_count(*cpu) == 1);
  const TempDir dir("autotune");
  const cc::Image image = cc::make_default_image(96, 64, 1);
  const cc::Problem problem = cc::make_problem(image, cc::parse_filter_spec("box:r=1"), cc::Border::Zero, false);
  CountingBackend counting(*cpu);
  cc::TuningCache cache(dir.path, cpu->devices()[0]);
  const cc::AutoChoice first = cc::choose_variant(counting, 0, problem, image, {}, cache, false);
  CHECK(first.variant == "fast");
  CHECK(first.measured.size() == 1);
  CHECK(counting.runs == 1);
  const cc::AutoChoice second = cc::choose_variant(counting, 0, problem, image, {}, cache, false);
  CHECK(second.from_cache);
  CHECK(second.summary().starts_with("fast (cached; fast "));
  CHECK(counting.runs == 1);
}

TEST_CASE("auto: an 8-bit problem measures only the candidates with 8-bit kernels, separable and fast among them") {
  cc::Backend* opencl = opencl_backend();
  if (!opencl) return;
  const TempDir dir("autotune");
  const cc::Image image = cc::quantized_8bit(cc::make_default_image(96, 64, 4));
  const cc::Problem problem =
      cc::make_problem(image, cc::parse_filter_spec("box:r=2"), cc::Border::Mirror, false, cc::PixelType::U8);
  CountingBackend counting(*opencl);
  cc::TuningCache cache(dir.path, opencl->devices()[0]);
  const cc::AutoChoice choice = cc::choose_variant(counting, 0, problem, image, {}, cache, false);
  const auto eight_bit = std::ranges::count_if(opencl->variants(), [](const std::string& variant) {
    const cc::VariantTraits* traits = cc::find_variant(variant);
    return traits && traits->auto_candidate && (traits->pixels & cc::kU8);
  });
  CHECK(eight_bit < static_cast<long>(auto_candidate_count(*opencl)));  // fft has no 8-bit kernels
  CHECK(counting.runs == eight_bit - 1);  // never a run that could only skip; lowrank is separable's at rank 1
  check_every_candidate_accounted(*opencl, choice);
  for (const char* variant : {"separable", "fast"}) CHECK(was_measured(choice, variant));
  CHECK(left_out_because(choice, "fft") == "no u8 kernels");
  CHECK(read_json(cache.file()).at("entries")[0]["key"]["pixel"] == "u8");
}
