// environment.cpp: the report's environment block and device list, read from the host, the build and the backends.
#include "tools/convcompare/environment.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <iterator>
#include <tuple>

#include "tools/convcompare/targets.h"

namespace cc {

namespace {

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "unknown";
}

std::string compiler_description() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "GCC " __VERSION__;
#else
  return "unknown";
#endif
}

std::string build_description() {
#if defined(CONVCOMPARE_BUILD_TYPE)
  return CONVCOMPARE_BUILD_TYPE;
#else
  std::string description;
#if defined(__OPTIMIZE__)
  description = "optimized";
#else
  description = "not optimized";
#endif
#if !defined(NDEBUG)
  description += ", assertions on";
#endif
  return description;
#endif
}

// The time the report is made, UTC, to the second: 2026-11-24T05:41:30Z.
std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32] = {};
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// The host's load, CPUs and clock now, for --compare's machine check (compare.h, machine_changes):
// Linux's /proc; what is not readable stays not measured.
HostState host_state() {
  HostState host;
  if (std::ifstream loadavg("/proc/loadavg"); !(loadavg >> host.load_average)) host.load_average = kNotMeasured;
  host.cpus = static_cast<int>(std::max(0L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  std::ifstream cpuinfo("/proc/cpuinfo");
  double mhz_sum = 0;
  int counted = 0;
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.starts_with("cpu MHz"))
      if (const auto colon = line.find(':'); colon != std::string::npos) {
        try {
          mhz_sum += std::stod(line.substr(colon + 1));
          ++counted;
        } catch (const std::exception&) {  // a line that is no number: that CPU's clock is not readable
        }
      }
  if (counted > 0) host.cpu_mhz = mhz_sum / counted;
  return host;
}

}  // namespace

Report report_header(const Job& job, const Image& image, const std::vector<std::unique_ptr<Backend>>& backends) {
  Report report;
  report.tool_version = CONVCOMPARE_VERSION;
  report.tool_git = CONVCOMPARE_GIT_REVISION;
  report.created = utc_now_iso8601();
  report.command = job.command;
  report.measurement = job.options;  // its MeasurementSettings
  report.host = host_state();
  const std::string source = job.image_path.empty() ? "generated default image" : job.image_path;
  report.environment = {
      {"host", host_name()},
      {"compiler", compiler_description()},
      {"build", build_description()},
      {"math flags",
       "no fast-math on either side; FMA contraction at each compiler's default "
       "(nvcc --fmad=true, OpenCL without -cl-mad-enable)"},
      {"input", fmt::format("{}: {}x{}, {} channel{}, {}", source, image.width, image.height, image.channels,
                            image.channels == 1 ? "" : "s", image.eight_bit ? "8-bit" : "float")},
      {"host memory", fmt::format("{}", fmt::join(job.memory_names, ", "))},
  };
  for (const std::string& name : job.backends)
    if (Backend* backend = find_backend(backends, name))
      std::ranges::copy(backend->devices(), std::back_inserter(report.devices));

  // The API versions belong in the environment block; the devices carry them.
  const auto distinct_property = [&](std::string_view backend, std::string_view property) {
    std::vector<std::string> values;
    for (const DeviceInfo& device : report.devices)
      for (const auto& [name, value] : device.properties)
        if (device.backend == backend && name == property && std::ranges::find(values, value) == values.end())
          values.push_back(value);
    return fmt::format("{}", fmt::join(values, "; "));
  };
  for (const auto& [label, backend, property] :
       {std::tuple{"CUDA driver", "cuda", "driver version"}, std::tuple{"CUDA runtime", "cuda", "runtime version"},
        std::tuple{"OpenCL platforms", "opencl", "platform version"}})
    if (std::string values = distinct_property(backend, property); !values.empty())
      report.environment.emplace_back(label, std::move(values));
  return report;
}

}  // namespace cc
