// record.cpp: the rates derived from a run's median kernel time.
#include "common/report/record.h"

#include <algorithm>

#include "common/domain/problem.h"
#include "common/domain/variants.h"

namespace cc {

namespace {

// What a run must move and compute at the least: every input pixel read once and every output written
// once, in the bytes its pixel type takes on the device; and the channel values it computes (u8 RGBA
// computes the padding channel of a 3-channel image too).
struct Footprint {
  double pixels, bytes, computed;
};

Footprint footprint_of(const RunRecord& record) {
  // The record's pixel type as the report writes it (to_string(PixelType)); anything else reads as f32.
  const DeviceFormat format =
      device_format(record.pixel == to_string(PixelType::U8) ? PixelType::U8 : PixelType::F32, record.channels);
  const double pixels = static_cast<double>(record.width) * record.height;
  return {pixels, 2 * pixels * format.bytes_per_pixel(), pixels * format.device_channels};
}

}  // namespace

std::string filter_family(const std::string& spec) {
  const std::size_t colon = spec.find(':');
  if (colon == std::string::npos) return spec;
  std::string family = spec.substr(0, colon);
  std::string_view separator = ":";
  std::string_view rest = std::string_view(spec).substr(colon + 1);
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    if (!item.starts_with("r=")) {
      family += separator;
      family += item;
      separator = ",";
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return family;
}

std::string auto_pick(const RunRecord& record) {
  constexpr std::string_view prefix = "auto: ";  // tools/convcompare/execute.cpp writes "auto: <variant> (<why>); ..."
  if (!record.compile_time.starts_with(prefix)) return "";
  const std::string_view rest = std::string_view(record.compile_time).substr(prefix.size());
  const std::string_view picked = rest.substr(0, rest.find(' '));
  return picked == "none" ? "" : std::string(picked);
}

void derive_rates(RunRecord& record) {
  const double ms = record.times.kernel_ms.median;
  // A skipped run has no time; a zero or NaN median would give infinite or meaningless rates.
  if (record.status == Status::Skipped || !(ms > 0)) return;
  const double seconds = ms / 1e3;
  const Footprint footprint = footprint_of(record);
  const double taps = static_cast<double>(2 * record.radius_x + 1) * (2 * record.radius_y + 1);
  record.mpix_per_s = footprint.pixels / 1e6 / seconds;  // pixels, not samples: a 3-channel pixel counts once
  record.gb_per_s = footprint.bytes / 1e9 / seconds;
  // One multiply and one add per tap of the full 2D filter: the work of a direct 2D sum, whatever the
  // variant did, so that it ranks variants as MPix/s does. Separable and fft do less, and theirs can
  // read above the device's FMA peak; derive_bound counts the variant's own taps (docs/json-schema.md).
  record.gflop_per_s = 2 * taps * footprint.computed / 1e9 / seconds;
}

void derive_bound(RunRecord& record, const DevicePeaks& peaks) {
  const double ms = record.times.kernel_ms.median;
  if (record.status == Status::Skipped || !(ms > 0) || !(peaks.copy_gb_per_s > 0) || !(peaks.fma_gflop_per_s > 0))
    return;
  const Footprint footprint = footprint_of(record);
  const double dram_ms = footprint.bytes / (peaks.copy_gb_per_s * 1e9) * 1e3;
  // The least time `taps` per computed value take: the longer of moving the bytes and doing the FMAs.
  const auto ceiling_ms = [&](double taps) {
    return std::max(dram_ms, 2 * taps * footprint.computed / (peaks.fma_gflop_per_s * 1e9) * 1e3);
  };
  const double direct_taps = static_cast<double>(2 * record.radius_x + 1) * (2 * record.radius_y + 1);
  record.direct_bound_percent = 100 * ceiling_ms(direct_taps) / ms;
  // A variant missing from the table (a report from another version) counts as a 2D direct sum; an
  // auto run does the work of the variant it ran.
  const std::string picked = auto_pick(record);
  const VariantTraits* variant = find_variant(picked.empty() ? record.variant : picked);
  const double taps = variant ? taps_per_pixel(*variant, record.radius_x, record.radius_y, record.terms) : direct_taps;
  if (taps == 0) return;  // fft: its work does not grow with the taps, so no ceiling of its own applies
  const double fp32_ms = 2 * taps * footprint.computed / (peaks.fma_gflop_per_s * 1e9) * 1e3;
  record.bound = dram_ms >= fp32_ms ? "dram" : "fp32";
  record.bound_percent = 100 * ceiling_ms(taps) / ms;
}

}  // namespace cc
