// record.cpp: the rates derived from a run's median kernel time.
#include "common/report/record.h"

#include <algorithm>

#include "common/domain/variants.h"

namespace cc {

void derive_rates(RunRecord& record) {
  const double ms = record.times.kernel_ms.median;
  // A skipped run has no time; a zero or NaN median would give infinite or meaningless rates.
  if (record.status == Status::Skipped || !(ms > 0)) return;
  const double seconds = ms / 1e3;
  const double pixels = static_cast<double>(record.width) * record.height * record.channels;
  const double taps = static_cast<double>(2 * record.radius_x + 1) * (2 * record.radius_y + 1);
  const double bytes = pixels * sizeof(float) * 2;  // every input pixel read once, every output written once
  record.mpix_per_s = pixels / 1e6 / seconds;
  record.gb_per_s = bytes / 1e9 / seconds;
  record.gflop_per_s = 2 * taps * pixels / 1e9 / seconds;  // one multiply and one add per tap
}

void derive_bound(RunRecord& record, const DevicePeaks& peaks) {
  const double ms = record.times.kernel_ms.median;
  if (record.status == Status::Skipped || !(ms > 0) || !(peaks.copy_gb_per_s > 0) || !(peaks.fma_gflop_per_s > 0))
    return;
  // A variant missing from the table (a report from another version) counts as a 2D direct sum.
  const VariantTraits* variant = find_variant(record.variant);
  const double taps = variant ? taps_per_pixel(*variant, record.radius_x, record.radius_y)
                              : static_cast<double>(2 * record.radius_x + 1) * (2 * record.radius_y + 1);
  if (taps == 0) return;  // fft: its work does not grow with the taps, so no ceiling applies
  const double pixels = static_cast<double>(record.width) * record.height * record.channels;
  const double dram_ms = pixels * sizeof(float) * 2 / (peaks.copy_gb_per_s * 1e9) * 1e3;
  const double fp32_ms = 2 * taps * pixels / (peaks.fma_gflop_per_s * 1e9) * 1e3;
  record.bound = dram_ms >= fp32_ms ? "dram" : "fp32";
  record.bound_percent = 100 * std::max(dram_ms, fp32_ms) / ms;
}

}  // namespace cc
