// plot.h: --plot FILE: MPix/s against radius (or image size) per API and variant, and the phases as bars.
#pragma once

#include <string>

#include "common/report/report.h"

namespace cc {

// Throws InputError unless `path` ends in .png or .svg (any case) and its directory exists; the
// driver calls it before running anything, so a typo costs no benchmark time.
void check_plot_path(const std::string& path);

// One picture, PNG or SVG by the extension, written atomically; a report without validated runs
// gives a picture that says so. Top panel: MPix/s (log) per (backend, device, variant); bottom panel:
// setup, H2D, kernel and D2H stacked per (backend, device, memory) for "global" (else the first ok
// variant) at the largest image and smallest radius.
// Rule: ok runs of the (filter minus r=, border) with most radii, then sizes, then runs; x = radius at largest size.
void write_plot(const Report& report, const std::string& path);

}  // namespace cc
