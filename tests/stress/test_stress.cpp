// test_stress.cpp: the GPU host's stress run: every variant of CUDA and of a GPU's OpenCL device over many
// sizes and radii in one process, twice, each result validated, device memory equal after both passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "backends/backend.h"
#include "common/domain/error.h"
#include "common/domain/filter.h"
#include "common/domain/reference.h"
#include "common/domain/validate.h"
#include "common/domain/variants.h"
#include "tests/support/backend_matrix.h"

namespace {

constexpr std::pair<int, int> kSizes[] = {{1, 1}, {7, 3}, {64, 64}, {333, 129}, {1000, 777}, {2048, 2048}};
constexpr int kRadii[] = {0, 1, 2, 3, 7, 13, 16, 32};
constexpr cc::Border kBorders[] = {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap};
// Caches a first pass fills (programs, NVRTC modules, library handles) are allowed; a leak is not.
constexpr double kAllowedDriftMB = 2.0;

struct Target {
  cc::Backend* backend;
  int device;
  std::string variant;
};

// The OpenCL device under test: the one CONVCOMPARE_TEST_OPENCL_DEVICE names ("opencl:P:D"), else the
// first that is not a CPU; -1 when there is none (then only CUDA is stressed).
int opencl_device(cc::Backend& opencl) {
  const std::vector<cc::DeviceInfo>& devices = opencl.devices();
  const char* wanted = std::getenv("CONVCOMPARE_TEST_OPENCL_DEVICE");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (wanted != nullptr && *wanted != '\0') {
      if (devices[i].id == wanted) return static_cast<int>(i);
      continue;
    }
    for (const auto& [name, value] : devices[i].properties)
      if (name == "type" && value != "CPU") return static_cast<int>(i);
  }
  if (wanted != nullptr && *wanted != '\0') FAIL("CONVCOMPARE_TEST_OPENCL_DEVICE names no device: " << wanted);
  return -1;
}

std::size_t free_device_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  REQUIRE(cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess);
  return free_bytes;
}

double megabytes(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

struct Tally {
  int runs = 0;                         // ran and validated (or failed a CHECK)
  std::map<std::string, int> skipped;  // reason -> count
};

// Every size x radius x filter, the border cycling through the four rules and the host memory
// between pinned and pageable; each case computes its reference once and runs every target on it.
void sweep(const std::vector<Target>& targets, Tally& tally) {
  std::mt19937 rng(20240611);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  cc::RunOptions options;
  options.repetitions = 1;
  options.warmup = 0;
  options.time_budget_s = 0.001;
  int case_index = 0;
  for (const auto& [width, height] : kSizes) {
    cc::Image input(width, height, 1);
    for (float& value : input.data) value = pixel(rng);
    for (const int radius : kRadii)
      for (const std::string& spec : {fmt::format("box:r={}", radius),
                                      fmt::format("gaussian:sigma={},r={}", std::max(0.5, radius / 3.0), radius)}) {
        const cc::Border border = kBorders[case_index % std::size(kBorders)];
        options.memory = (case_index / std::size(kBorders)) % 2 == 0 ? cc::HostMemory::Pinned : cc::HostMemory::Pageable;
        ++case_index;
        const cc::Problem problem = cc::make_problem(input, cc::parse_filter_spec(spec), border, false);
        const cc::Image reference = cc::reference_convolve(input, problem);
        for (const Target& target : targets) {
          INFO(fmt::format("{} {} {}x{} {} border {} {}", target.backend->name(), target.variant, width, height, spec,
                           cc::to_string(border), cc::to_string(options.memory)));
          cc::BackendRun run;
          try {
            run = target.backend->run(problem, input, target.variant, target.device, options);
          } catch (const cc::ApiError& error) {
            FAIL_CHECK("API error: " << error.what());
            ++tally.runs;
            continue;
          }
          if (run.status == cc::Status::Skipped) {
            ++tally.skipped[fmt::format("{} {}: {}", target.backend->name(), target.variant, run.reason)];
            continue;
          }
          ++tally.runs;
          CHECK(run.status == cc::Status::Ok);
          const cc::Validation validation =
              cc::validate(run.output, reference, cc::testing::tolerance_of(target.variant, problem, input));
          CHECK_MESSAGE(validation.passed, validation.message());
        }
      }
  }
}

}  // namespace

TEST_CASE("stress: every variant over sizes and radii, twice in one process: all validate, no device memory leaks") {
  const std::unique_ptr<cc::Backend> cuda = cc::testing::find_backend("cuda");
  const std::unique_ptr<cc::Backend> opencl = cc::testing::find_backend("opencl");
  REQUIRE(cuda);  // stress_main.cpp runs this only when CUDA has a device
  std::vector<Target> targets;
  // Not tma: a fault of the tensor memory accelerator loses the CUDA context for the rest of a process;
  // tests/cuda/test_tma.cpp runs it in a process of its own.
  for (const std::string& variant : cuda->variants())
    if (!cc::find_variant(variant)->needs.has(cc::Capability::TensorMaps))
      targets.push_back({cuda.get(), 0, variant});
  if (opencl) {
    if (const int device = opencl_device(*opencl); device >= 0) {
      MESSAGE("OpenCL device: " << opencl->devices()[device].id << " " << opencl->devices()[device].name);
      for (const std::string& variant : opencl->variants()) targets.push_back({opencl.get(), device, variant});
    } else {
      MESSAGE("no OpenCL GPU device: CUDA only");
    }
  }
  REQUIRE(cudaSetDevice(0) == cudaSuccess);

  Tally first, second;
  sweep(targets, first);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::size_t free_after_first = free_device_bytes();
  sweep(targets, second);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::size_t free_after_second = free_device_bytes();

  MESSAGE(fmt::format("{} targets; {} runs in pass 1, {} in pass 2; device memory free after pass 1: {:.1f} MB, "
                      "after pass 2: {:.1f} MB",
                      targets.size(), first.runs, second.runs, megabytes(free_after_first),
                      megabytes(free_after_second)));
  for (const auto& [reason, count] : first.skipped) MESSAGE(fmt::format("skipped {}x per pass: {}", count, reason));
  CHECK(first.runs == second.runs);
  CHECK(first.skipped == second.skipped);
  CHECK(first.runs > 0);
  CHECK(std::fabs(megabytes(free_after_first) - megabytes(free_after_second)) <= kAllowedDriftMB);
}
