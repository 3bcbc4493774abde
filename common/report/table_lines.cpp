// table_lines.cpp: the lines below each problem's kernel table: the fastest run with the others against it, and each variant's ratios between the APIs (tables.h).
#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "common/domain/backend_names.h"
#include "common/report/tables.h"

namespace cc::report_tables {

std::string fastest_line(const Group& group, std::size_t width) {
  std::vector<const RunRecord*> timed;
  for (const RunRecord* r : group.records)
    if (r->status == Status::Ok && r->times.untimed.empty() && r->times.kernel_ms.samples > 0 &&
        r->times.kernel_ms.median > 0)
      timed.push_back(r);
  if (timed.empty()) return "";
  std::ranges::stable_sort(timed, {}, [](const RunRecord* r) { return r->times.kernel_ms.median; });
  // Runs named by variant alone when one device ran them all, else by device and variant.
  const bool one_device =
      std::ranges::all_of(timed, [&](const RunRecord* r) { return r->device == timed.front()->device; });
  const auto name = [&](const RunRecord* r) {
    return one_device ? variant_label(*r) : fmt::format("{} {}", shorten(r->device, kDeviceWidth), variant_label(*r));
  };
  const RunRecord& best = *timed.front();
  const Stats& fastest = best.times.kernel_ms;
  std::string line = fmt::format("fastest: {} on {}, {} ms ({})", variant_label(best), shorten(best.device, kDeviceWidth),
                                 short_number(fastest.median),
                                 std::isfinite(fastest.noise_percent) ? short_percent(fastest.noise_percent) + " noise"
                                                                      : fmt::format("n = {}", fastest.samples));
  for (std::size_t i = 1; i < timed.size(); ++i) {
    const Stats& k = timed[i]->times.kernel_ms;
    const double ratio = k.median / fastest.median;
    // 3 x the combined relative noise, as --compare's threshold (compare.h): below it the order is not known.
    const double noise = 3 * std::hypot(fastest.noise_percent, k.noise_percent) / 100;
    const std::string entry = fmt::format("{} {} {:.2f}x{}", i == 1 ? ";" : ",", name(timed[i]), ratio,
                                          std::isfinite(noise) && ratio - 1 <= noise ? " (within noise)" : "");
    const std::size_t room = i + 1 < timed.size() ? 5 : 0;  // for ", ..." should the next not fit
    if (width != std::string::npos && display_width(line) + display_width(entry) + room > width) {
      line += ", ...";
      break;
    }
    line += entry;
  }
  return line;
}

// One line per variant that two or more runs of the group completed: each run's kernel median over
// a common denominator (CUDA's when it ran, else the first), so "opencl/cuda 1.10" reads as
// "OpenCL took 10% longer".
// `device_width`: the console cuts device names to a column; markdown keeps them whole (a
// merged report's "nvidia/NVIDIA H100 80GB HBM3" must keep its name).
std::vector<std::string> ratio_lines(const Group& group, std::size_t device_width) {
  std::vector<std::string> variants;
  for (const RunRecord* r : group.records)
    if (std::find(variants.begin(), variants.end(), r->variant) == variants.end()) variants.push_back(r->variant);

  std::size_t variant_width = 0;
  for (const std::string& variant : variants) variant_width = std::max(variant_width, variant.size());

  std::vector<std::string> lines;
  for (const std::string& variant : variants) {
    std::vector<const RunRecord*> done;
    for (const RunRecord* r : group.records)
      if (r->variant == variant && r->status == Status::Ok && r->times.kernel_ms.samples > 0 && r->times.kernel_ms.median > 0)
        // Pinned and pageable runs time the same kernel on the same device: one of them is its kernel time
        // (a ratio between them would only measure noise). A mapped or managed run's kernel
        // time holds its memory traffic (memory_note): it is another figure, kept apart.
        if (std::ranges::none_of(done, [&](const RunRecord* seen) {
              return seen->backend == r->backend && seen->device == r->device &&
                     seen->memory_note.empty() == r->memory_note.empty() &&
                     (seen->memory_note.empty() || seen->memory == r->memory);
            }))
          done.push_back(r);
    if (done.size() < 2) continue;

    // Name each run by its backend, adding the device and then the host memory only when needed to
    // tell two runs apart (two OpenCL platforms, pinned and pageable).
    std::vector<std::function<std::string(const RunRecord*)>> namings = {
        [](const RunRecord* r) { return r->backend; },
        [&](const RunRecord* r) { return fmt::format("{}[{}]", r->backend, shorten(r->device, device_width)); },
        [&](const RunRecord* r) { return fmt::format("{}[{}, {}]", r->backend, shorten(r->device, device_width), r->memory); },
    };
    std::vector<std::string> labels;
    for (const auto& naming : namings) {
      labels.clear();
      for (const RunRecord* r : done) labels.push_back(naming(r));
      std::vector<std::string> sorted = labels;
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) break;
    }

    const auto cuda = std::find_if(done.begin(), done.end(), [](const RunRecord* r) {
      const BackendName* known = find_backend_name(r->backend);
      return known && known->ratio_base;
    });
    const std::size_t base = cuda == done.end() ? 0 : static_cast<std::size_t>(cuda - done.begin());
    // Wrapped under the first ratio where a line would pass kLineWidth (with the caller's 2-space indent).
    std::string line = fmt::format("{:<{}}", variant + ":", variant_width + 1);
    const std::size_t indent = line.size();
    bool first = true;
    for (std::size_t i = 0; i < done.size(); ++i)
      if (i != base) {
        const double ratio = done[i]->times.kernel_ms.median / done[base]->times.kernel_ms.median;
        const std::string item = fmt::format("  {}/{} {:.{}f}", labels[i], labels[base], ratio, ratio < 100 ? 2 : 0);
        if (!first && 2 + line.size() + item.size() > kLineWidth) {
          lines.push_back(std::move(line));
          line = std::string(indent, ' ');
        }
        line += item;
        first = false;
      }
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace cc::report_tables
