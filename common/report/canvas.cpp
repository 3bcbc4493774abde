// canvas.cpp: the drawing layer over cairo (Debian's libcairo2-dev): one code for PNG, SVG and PDF, text in a real font through fontconfig, antialiased.
#include "common/report/canvas.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "common/domain/safe_text.h"

#ifdef CONVCOMPARE_WITH_CAIRO
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#endif

namespace cc {

bool canvas_available() {
#ifdef CONVCOMPARE_WITH_CAIRO
  return true;
#else
  return false;
#endif
}

CanvasFormat canvas_format(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".png") return CanvasFormat::Png;
  if (extension == ".svg") return CanvasFormat::Svg;
  if (extension == ".pdf") return CanvasFormat::Pdf;
  throw InputError(fmt::format("bad --plot '{}': the file name must end in .png, .svg or .pdf", path));
}

#ifndef CONVCOMPARE_WITH_CAIRO

double text_width(std::string_view text, double size) { return 0.6 * size * static_cast<double>(text.size()); }

struct Canvas::State {};

Canvas::Canvas(CanvasFormat format, int width, std::vector<int> page_heights, Rgb background)
    : format_(format), width_(width), page_heights_(std::move(page_heights)), background_(background) {
  throw InputError("drawing needs cairo, and this convcompare was built without it (install libcairo2-dev, reconfigure)");
}
Canvas::~Canvas() = default;
void Canvas::begin_page(std::size_t) {}
void Canvas::polyline(std::span<const Point>, Rgb, double, Dash) {}
void Canvas::fill_rect(double, double, double, double, Rgb) {}
void Canvas::marker(Point, double, MarkerShape, Rgb) {}
void Canvas::text(Point, std::string_view, double, Rgb, Align, bool) {}
void Canvas::draw_pixels(int, int, int, int, std::span<const std::uint8_t>) {}
void Canvas::line(Point, Point, Rgb, double, Dash) {}
void Canvas::stroke_rect(double, double, double, double, Rgb, double) {}
void Canvas::save(const std::string&) {}

#else

namespace {

constexpr const char* kFontFamily = "sans-serif";  // fontconfig's choice: DejaVu Sans on Debian

// On/off lengths in pixels for a line 2 px wide; wider lines stretch them.
std::vector<double> dash_pattern(Dash dash, double line_width) {
  const double stretch = std::max(1.0, line_width / 2);
  std::vector<double> pattern;
  switch (dash) {
    case Dash::Solid: break;
    case Dash::Dashed: pattern = {9, 5}; break;
    case Dash::Dotted: pattern = {2.5, 3.5}; break;
    case Dash::DashDot: pattern = {9, 4, 2.5, 4}; break;
  }
  for (double& length : pattern) length *= stretch;
  return pattern;
}

// The corners of the polygon markers; empty for the circle.
std::vector<Point> marker_polygon(MarkerShape shape, Point c, double r) {
  switch (shape) {
    case MarkerShape::Circle: return {};
    case MarkerShape::Square: {
      const double h = r * 0.88;  // the same area impression as the circle
      return {{c.x - h, c.y - h}, {c.x + h, c.y - h}, {c.x + h, c.y + h}, {c.x - h, c.y + h}};
    }
    case MarkerShape::Triangle:
      return {{c.x, c.y - r * 1.25}, {c.x + r * 1.15, c.y + r * 0.75}, {c.x - r * 1.15, c.y + r * 0.75}};
    case MarkerShape::Diamond:
      return {{c.x, c.y - r * 1.25}, {c.x + r * 1.25, c.y}, {c.x, c.y + r * 1.25}, {c.x - r * 1.25, c.y}};
  }
  return {};
}

void set_colour(cairo_t* cr, Rgb c) { cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0); }

void set_font(cairo_t* cr, double size) {
  cairo_select_font_face(cr, kFontFamily, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

// cairo takes UTF-8 and stops at a bad sequence, and a label may carry a file name's bytes: through the
// sanitizer every report uses (safe_text), so a label reads as the console's and the CSV's do.
std::string printable_label(std::string_view text) { return safe_text(text); }

// cairo's stream writers append to a string; the file is written once, atomically, by save().
cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

void check(cairo_status_t status, std::string_view what) {
  if (status != CAIRO_STATUS_SUCCESS) throw InputError(fmt::format("cannot draw {}: {}", what, cairo_status_to_string(status)));
}

// A surface and its context, destroyed together.
struct Cairo {
  cairo_surface_t* surface = nullptr;
  cairo_t* cr = nullptr;
  Cairo() = default;
  Cairo(const Cairo&) = delete;
  Cairo& operator=(const Cairo&) = delete;
  ~Cairo() {
    if (cr) cairo_destroy(cr);
    if (surface) cairo_surface_destroy(surface);
  }
};

}  // namespace

struct Canvas::State : Cairo {
  std::string bytes;  // the file, as cairo writes it
};

double text_width(std::string_view text, double size) {
  // One small surface to measure on, per thread: the layout code asks often.
  thread_local Cairo measure;
  if (!measure.cr) {
    measure.surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    measure.cr = cairo_create(measure.surface);
  }
  set_font(measure.cr, size);
  cairo_text_extents_t extents;
  cairo_text_extents(measure.cr, printable_label(text).c_str(), &extents);
  return extents.x_advance;
}

Canvas::Canvas(CanvasFormat format, int width, std::vector<int> page_heights, Rgb background)
    : state_(std::make_unique<State>()),
      format_(format),
      width_(width),
      page_heights_(std::move(page_heights)),
      background_(background) {
  if (page_heights_.empty()) page_heights_.push_back(1);
  // A PNG or SVG is one picture of every page stacked; a PDF starts at its first page's size.
  const int total = std::accumulate(page_heights_.begin(), page_heights_.end(), 0);
  switch (format_) {
    case CanvasFormat::Png: state_->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width_, total); break;
    case CanvasFormat::Svg: state_->surface = cairo_svg_surface_create_for_stream(append, &state_->bytes, width_, total); break;
    case CanvasFormat::Pdf:
      state_->surface = cairo_pdf_surface_create_for_stream(append, &state_->bytes, width_, page_heights_[0]);
      break;
  }
  check(cairo_surface_status(state_->surface), "a picture");
  state_->cr = cairo_create(state_->surface);
  cairo_set_line_join(state_->cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap(state_->cr, CAIRO_LINE_CAP_BUTT);
  set_colour(state_->cr, background_);
  cairo_paint(state_->cr);
}

Canvas::~Canvas() = default;

void Canvas::begin_page(std::size_t index) {
  if (index >= page_heights_.size() || index < page_) throw std::logic_error("Canvas::begin_page: pages go in order");
  cairo_t* cr = state_->cr;
  for (; page_ < index; ++page_) {
    if (format_ == CanvasFormat::Pdf) {
      cairo_show_page(cr);
      cairo_pdf_surface_set_size(state_->surface, width_, page_heights_[page_ + 1]);
      set_colour(cr, background_);
      cairo_paint(cr);
    } else {
      cairo_translate(cr, 0, page_heights_[page_]);  // the next picture below the last
    }
  }
}

void Canvas::polyline(std::span<const Point> points, Rgb colour, double line_width, Dash dash) {
  if (points.size() < 2) return;
  cairo_t* cr = state_->cr;
  cairo_new_path(cr);
  cairo_move_to(cr, points[0].x, points[0].y);
  for (const Point& p : points.subspan(1)) cairo_line_to(cr, p.x, p.y);
  const std::vector<double> pattern = dash_pattern(dash, line_width);
  cairo_set_dash(cr, pattern.data(), static_cast<int>(pattern.size()), 0);
  cairo_set_line_width(cr, line_width);
  set_colour(cr, colour);
  cairo_stroke(cr);
  cairo_set_dash(cr, nullptr, 0, 0);
}

void Canvas::fill_rect(double x, double y, double w, double h, Rgb colour) {
  cairo_t* cr = state_->cr;
  cairo_new_path(cr);
  cairo_rectangle(cr, x, y, w, h);
  set_colour(cr, colour);
  cairo_fill(cr);
}

void Canvas::marker(Point centre, double radius, MarkerShape shape, Rgb colour) {
  cairo_t* cr = state_->cr;
  cairo_new_path(cr);
  const std::vector<Point> corners = marker_polygon(shape, centre, radius);
  if (corners.empty()) {
    cairo_arc(cr, centre.x, centre.y, radius, 0, 2 * M_PI);
  } else {
    cairo_move_to(cr, corners[0].x, corners[0].y);
    for (const Point& p : corners) cairo_line_to(cr, p.x, p.y);
    cairo_close_path(cr);
  }
  set_colour(cr, colour);
  cairo_fill(cr);
}

void Canvas::text(Point at, std::string_view text, double size, Rgb colour, Align align, bool vertical) {
  cairo_t* cr = state_->cr;
  const std::string safe = printable_label(text);
  texts_.push_back(safe);
  set_font(cr, size);
  cairo_font_extents_t font;
  cairo_font_extents(cr, &font);
  cairo_text_extents_t extents;
  cairo_text_extents(cr, safe.c_str(), &extents);
  const double along = align == Align::Left ? 0 : align == Align::Centre ? -extents.x_advance / 2 : -extents.x_advance;
  const double baseline = (font.ascent - font.descent) / 2;  // from the middle of the line
  cairo_save(cr);
  cairo_translate(cr, at.x, at.y);
  if (vertical) cairo_rotate(cr, -M_PI / 2);
  cairo_move_to(cr, along, baseline);
  set_colour(cr, colour);
  cairo_show_text(cr, safe.c_str());
  cairo_restore(cr);
}

void Canvas::draw_pixels(int x, int y, int w, int h, std::span<const std::uint8_t> rgb) {
  if (w <= 0 || h <= 0 || rgb.size() < static_cast<std::size_t>(w) * h * 3) return;
  Cairo image;
  image.surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  check(cairo_surface_status(image.surface), "an image");
  cairo_surface_flush(image.surface);
  unsigned char* data = cairo_image_surface_get_data(image.surface);
  const int stride = cairo_image_surface_get_stride(image.surface);
  for (int row = 0; row < h; ++row) {
    auto* out = reinterpret_cast<std::uint32_t*>(data + static_cast<std::ptrdiff_t>(row) * stride);
    for (int column = 0; column < w; ++column) {
      const std::uint8_t* in = &rgb[(static_cast<std::size_t>(row) * w + column) * 3];
      out[column] = (std::uint32_t{in[0]} << 16) | (std::uint32_t{in[1]} << 8) | in[2];
    }
  }
  cairo_surface_mark_dirty(image.surface);
  cairo_t* cr = state_->cr;
  cairo_save(cr);
  cairo_set_source_surface(cr, image.surface, x, y);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);  // pixels 1:1, not smoothed
  cairo_rectangle(cr, x, y, w, h);
  cairo_fill(cr);
  cairo_restore(cr);
}

void Canvas::line(Point from, Point to, Rgb colour, double line_width, Dash dash) {
  const Point points[] = {from, to};
  polyline(points, colour, line_width, dash);
}

void Canvas::stroke_rect(double x, double y, double w, double h, Rgb colour, double line_width) {
  const Point corners[] = {{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}, {x, y}};
  polyline(corners, colour, line_width);
}

void Canvas::save(const std::string& path) {
  check(cairo_status(state_->cr), "the picture");
  if (format_ == CanvasFormat::Png) {
    cairo_surface_flush(state_->surface);
    check(cairo_surface_write_to_png_stream(state_->surface, append, &state_->bytes), "the PNG");
  } else {
    cairo_surface_finish(state_->surface);  // writes the SVG or PDF through append()
    check(cairo_surface_status(state_->surface), "the picture");
  }
  write_file_atomically(path, state_->bytes);
  state_->bytes.clear();
}

#endif

}  // namespace cc
