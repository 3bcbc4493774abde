// api_variant.h: the one shape of a GPU API's list of the variants it implements, made once from the variant table for every API.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/device_api.h"
#include "backends/launch_plan.h"
#include "common/domain/problem.h"
#include "common/domain/variants.h"

namespace cc {

// What an API variant is set up from, whichever the API: the plan (backends/launch_plan.h), the problem
// and the kernel's description. An API's setup adds what only it has (CUDA's module, OpenCL's context
// and kernels) by deriving from this one; its prepare functions take their own back.
struct VariantSetup {
  const LaunchPlan& plan;
  const Problem& problem;
  const KernelDescription* description = nullptr;  // null for a library's variant (fft, npp)
};

struct ApiVariant;

// Sets the variant up with its filter uploads queued on `queue`, the API's DeviceQueue.
using PrepareVariantFn = std::unique_ptr<PreparedVariant> (*)(const VariantSetup& setup, DeviceQueue& queue);
// Why the variant cannot run a problem the plan accepted, where a vendor library or the build has a limit
// of its own, or "".
using DeclinesFn = std::string (*)(const ApiVariant& variant, const LaunchPlan& plan, const Problem& problem);

// One variant of the table as one API implements it: resolved once from the table's entry, and carried
// from there to the build and the launch (no name is looked up again).
struct ApiVariant {
  const VariantTraits* traits = nullptr;  // its line in the variant table (common/domain/variants.h)
  PrepareVariantFn prepare = nullptr;     // null where `missing` says why
  std::string_view missing = "";          // why this build cannot run it ("cuFFT not found at build time"), or ""
  DeclinesFn declines = nullptr;
  // Our kernel's description (its line of common/domain/variants.h), launched by the API's generic variant;
  // null for a library's variant.
  const KernelDescription* description = nullptr;
  // The program an API that builds by source makes for it (kernels_cl/<file>.cl) and the kernels of
  // that program it launches, in order: the description's file and entry, or the library's own.
  std::string_view file = "";
  std::span<const std::string_view> kernels = {};
};

// The variant's own decline for a planned problem (ApiVariant::declines), or "" where it has none: what
// GpuBackend asks after the plan, whichever the API.
inline std::string declines_of(const ApiVariant& variant, const LaunchPlan& plan, const Problem& problem) {
  return variant.declines ? variant.declines(variant, plan, problem) : "";
}

// An API's own variant, where a library does the work (fft, npp): named by its line of the table.
struct LibraryVariant {
  std::string_view variant;
  PrepareVariantFn prepare = nullptr;
  std::string_view missing = "";
  DeclinesFn declines = nullptr;
  std::string_view file = "";
  std::span<const std::string_view> kernels = {};
};

// How an API implements the described kernels: one generic variant, and for a variant whose table line
// asks for something of the build or device beyond the plan's, its decline (null for none).
struct DescribedKernels {
  PrepareVariantFn prepare = nullptr;
  DeclinesFn (*declines_for)(const VariantTraits& variant) = nullptr;
};

// Every variant of the table that `api` (a backend name, common/domain/backend_names.h) implements, in
// the table's order: those with a kernel description through `described`, the others from `libraries`
// where listed. A variant the table gives to other APIs only needs nothing of this one.
std::vector<ApiVariant> make_api_variants(std::string_view api, const DescribedKernels& described,
                                          std::span<const LibraryVariant> libraries);

// The entry of `variants` for the table's line `traits`, or null where the API does not implement it.
const ApiVariant* find_api_variant(std::span<const ApiVariant> variants, const VariantTraits& traits);

}  // namespace cc
