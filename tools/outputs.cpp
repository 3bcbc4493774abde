// outputs.cpp: --output-dir's file names, the image writes and the contact sheet.
#include "tools/outputs.h"

#include <fmt/format.h>

#include <cctype>
#include <sstream>

#include "common/domain/image_io.h"
#include "common/report/contact_sheet.h"
#include "common/report/plot.h"
#include "common/report/printer.h"

namespace cc {

namespace {

constexpr std::size_t kMaxSheetTiles = 16;

}  // namespace

void write_reports(const Report& report, const ReportDestinations& destinations) {
  for (const ReportOutput& output : destinations.reports) {
    std::ostringstream text;
    make_printer(output.format)->print(report, text);
    write_file_atomically(output.path, text.str());
  }
  if (!destinations.plot_path.empty()) write_plot(report, destinations.plot_path);
}

std::string slug(std::string_view text) {
  std::string result;
  for (const char c : text) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool keep = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9') || lower == '.' || lower == '-';
    result += keep ? lower : '-';
  }
  return result;
}

OutputWriter::OutputWriter(const Job& job, const Image& input)
    : dir_(job.output_dir),
      format_(output_format(job, input)),
      several_sizes_(job.sizes.size() > 1),
      several_memories_(job.pinned.size() > 1),
      several_pixels_(job.pixels.size() > 1) {}

void OutputWriter::save(const Image& image, const std::filesystem::path& path) const {
  if (format_ == "png")
    save_png(image, path.string());
  else
    save_pfm(image, path.string());
}

void OutputWriter::begin_image(const Image& image) {
  if (!enabled()) return;
  sheet_.clear();
  sheet_.push_back({"original", image});
}

void OutputWriter::begin_problem(const Problem& problem, const Image& reference) {
  if (!enabled()) return;
  stem_ = fmt::format("{}_{}{}", slug(problem.filter.spec), to_string(problem.border), problem.flip ? "_flip" : "");
  if (several_sizes_) stem_ += fmt::format("_{}x{}", problem.width, problem.height);
  if (several_pixels_) stem_ += fmt::format("_{}", to_string(problem.pixel));
  problem_label_ = fmt::format("{} {}{}", problem.filter.spec, to_string(problem.border),
                               several_pixels_ ? fmt::format(" {}", to_string(problem.pixel)) : "");
  save(reference, dir_ / (stem_ + "_reference." + format_));
  reference_ = &reference;
  tile_.reset();
}

std::string OutputWriter::write_result(const Target& target, bool pinned, Image output, bool run_ok) {
  if (!enabled() || output.empty()) return "";
  const std::filesystem::path path =
      dir_ / fmt::format("{}_{}_{}_{}{}.{}", stem_, target.backend_name, slug(target.device_id), target.variant->name,
                         several_memories_ && !pinned ? "_pageable" : "", format_);
  save(output, path);
  if (!tile_ && run_ok && target.has_device_memory())
    tile_ = Tile{fmt::format("{}: {} {}", problem_label_, target.device_id, target.variant->name), std::move(output)};
  return path.string();
}

void OutputWriter::end_problem() {
  if (!enabled() || sheet_.size() >= kMaxSheetTiles) return;
  sheet_.push_back(tile_ ? std::move(*tile_) : Tile{problem_label_ + ": reference", *reference_});
}

void OutputWriter::write_contact_sheet() const {
  if (!enabled()) return;
  std::vector<LabelledImage> tiles;
  for (const Tile& entry : sheet_) tiles.push_back({entry.label, &entry.image});
  cc::write_contact_sheet(tiles, (dir_ / "contact_sheet.png").string());
}

}  // namespace cc
