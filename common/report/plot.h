// plot.h: --plot FILE: MPix/s against radius (or image size) per API and variant, and the phases as bars.
#pragma once

#include <string>
#include <vector>

#include "common/report/report.h"

namespace cc {

// Throws InputError unless `path` ends in .png, .svg or .pdf (any case), its directory exists and this
// binary has cairo; the driver calls it before running anything, so a typo costs no benchmark time.
void check_plot_path(const std::string& path);

// One page per (filter minus r=, border) group of validated runs, in report order: pages of a PDF, or
// one below the other in a PNG or SVG (the extension chooses), written atomically; a report without
// validated runs gives one page that says so. Each page's top panel: MPix/s (log) per (backend,
// device, variant) against radius (at the largest size) when the radius varies, else against size,
// with a strip naming the fastest at each x; over radius also the DRAM and FMA floors from the
// devices' measured peaks (plot_data.h, Floors; docs/memory-spaces-evidence.md, "Every variant against the radius");
// bottom panel: setup, H2D, kernel and D2H stacked per (backend, device, memory) for "global" (else
// the first ok variant) at the largest image and smallest radius.
// `drawn_text`, when given, receives every string drawn, in order (Canvas::texts).
void write_plot(const Report& report, const std::string& path, std::vector<std::string>* drawn_text = nullptr);

}  // namespace cc
