// backend_names.h: the one backend registry, in report order: names, id syntax, build option, plot rank and
// variant-table bit, read by the command line, the help text, the report, the plot and backends/backend.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cc {

// A backend the command line knows: how its device ids read, how a build gets it, and where it sits
// among the others in the report's ratios and the plot's legend.
struct BackendName {
  std::string_view name;
  std::size_t id_numbers;         // cpu: "cpu", cuda: "cuda:N", opencl: "opencl:P:D"
  std::string_view id_numbers_placeholder;  // how the help text writes those numbers: "N", "P:D"
  std::string_view build_option;  // how to get it when this binary lacks it
  bool has_device_memory;         // transfers, --stream, measured peaks; the contact sheet shows its results
  bool ratio_base;                // the console's kernel-time ratios are taken against it (tables.cpp)
  int plot_rank;                  // the plot's legend order: lower first; a name not listed here ranks 2
};
inline constexpr BackendName kBackendNames[] = {
    {"cpu", 0, "", "", false, false, 3},
    {"cuda", 1, "N", "-DCONVCOMPARE_CUDA=ON", true, true, 0},
    {"opencl", 2, "P:D", "-DCONVCOMPARE_OPENCL=ON", true, false, 1},
};
// Adding a backend: its line above and its folder under backends/ (docs/architecture.md, "Adding a backend").
static_assert(std::size(kBackendNames) <= 8, "a variant's apis (common/domain/variants.h) holds 8 backend bits");
inline constexpr int kUnlistedBackendPlotRank = 2;  // a report's backend this binary does not know

const BackendName* find_backend_name(std::string_view name);  // nullptr when unknown

// A backend's bit in a variant's `apis` (common/domain/variants.h): its place in kBackendNames, so its line
// there is its bit too. An unknown name throws, which in a constant expression (the variant table) is a
// compile error.
constexpr std::uint8_t backend_bit(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kBackendNames); ++i)
    if (kBackendNames[i].name == name) return static_cast<std::uint8_t>(1u << i);
  throw std::logic_error(std::string(name) + " is not in common/domain/backend_names.h");
}

// "cpu, cuda, opencl" joined by `separator`, with `last` before the final one ("cpu, cuda or opencl").
std::string backend_name_list(std::string_view separator, std::string_view last);

// "cpu, cuda:N, opencl:P:D": every backend's device id form, for the help text and its errors.
std::string device_id_forms(std::string_view separator, std::string_view last);

// "cuda:0", "opencl:0:0": each backend's first device id, for the shell completion's examples.
std::string first_device_id(const BackendName& backend);

}  // namespace cc
