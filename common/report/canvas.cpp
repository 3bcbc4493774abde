// canvas.cpp: the SVG and raster back ends of the drawing layer; raster text is stb_easy_font's quads.
#include "common/report/canvas.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <stb_easy_font.h>

#include "common/domain/image_io.h"

namespace cc {

namespace {

// stb_easy_font draws a 10-unit em: capitals 7 units tall from the top of the line, strokes 1 unit.
constexpr double kFontUnitsPerEm = 10;
constexpr double kCapHeightUnits = 7;

// stb_easy_font indexes its glyph table with (char - 32): anything outside printable ASCII would read
// outside it, so such characters are drawn as '?'.
std::string printable_ascii(std::string_view text) {
  std::string safe(text);
  for (char& c : safe)
    if (c < 32 || c > 126) c = '?';
  return safe;
}

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

// Whether the pattern is "on" at distance `along` from the start of the line.
bool dash_on(const std::vector<double>& pattern, double along) {
  if (pattern.empty()) return true;
  double period = 0;
  for (double length : pattern) period += length;
  double position = std::fmod(along, period);
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (position < pattern[i]) return i % 2 == 0;
    position -= pattern[i];
  }
  return false;
}

// The corners of the polygon markers (clockwise on screen); empty for the circle.
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

std::string svg_colour(Rgb c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

std::string xml_escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Where the text starts along its reading direction, from the anchor and the alignment.
double start_offset(Align align, double width) {
  return align == Align::Left ? 0 : align == Align::Centre ? -width / 2 : -width;
}

}  // namespace

double text_width(std::string_view text, double size) {
  std::string safe = printable_ascii(text);
  return stb_easy_font_width(safe.data()) * size / kFontUnitsPerEm;
}

// ---- Canvas ----------------------------------------------------------------------------------------

Canvas::Canvas(int width, int height) : width_(width), height_(height) {}

void Canvas::line(Point from, Point to, Rgb colour, double line_width, Dash dash) {
  const Point points[] = {from, to};
  polyline(points, colour, line_width, dash);
}

void Canvas::stroke_rect(double x, double y, double w, double h, Rgb colour, double line_width) {
  const Point corners[] = {{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}, {x, y}};
  polyline(corners, colour, line_width);
}

// ---- SVG ---------------------------------------------------------------------------------------------

SvgCanvas::SvgCanvas(int width, int height, Rgb background) : Canvas(width, height) {
  fill_rect(0, 0, width, height, background);
}

void SvgCanvas::polyline(std::span<const Point> points, Rgb colour, double line_width, Dash dash) {
  if (points.size() < 2) return;
  std::string coordinates;
  for (const Point& p : points) coordinates += fmt::format("{:.1f},{:.1f} ", p.x, p.y);
  coordinates.pop_back();
  std::string dasharray;
  if (const std::vector<double> pattern = dash_pattern(dash, line_width); !pattern.empty()) {
    dasharray = " stroke-dasharray=\"";
    for (double length : pattern) dasharray += fmt::format("{:g} ", length);
    dasharray.back() = '"';
  }
  body_ += fmt::format(
      "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{:g}\" stroke-linejoin=\"round\"{}/>\n",
      coordinates, svg_colour(colour), line_width, dasharray);
}

void SvgCanvas::fill_rect(double x, double y, double w, double h, Rgb colour) {
  body_ += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>\n", x, y,
                       w, h, svg_colour(colour));
}

void SvgCanvas::marker(Point centre, double radius, MarkerShape shape, Rgb colour) {
  const std::vector<Point> corners = marker_polygon(shape, centre, radius);
  if (corners.empty()) {
    body_ += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:g}\" fill=\"{}\"/>\n", centre.x, centre.y,
                         radius, svg_colour(colour));
    return;
  }
  std::string coordinates;
  for (const Point& p : corners) coordinates += fmt::format("{:.1f},{:.1f} ", p.x, p.y);
  coordinates.pop_back();
  body_ += fmt::format("<polygon points=\"{}\" fill=\"{}\"/>\n", coordinates, svg_colour(colour));
}

void SvgCanvas::text(Point at, std::string_view text, double size, Rgb colour, Align align, bool vertical) {
  const char* anchor = align == Align::Left ? "start" : align == Align::Centre ? "middle" : "end";
  const std::string rotation = vertical ? fmt::format(" transform=\"rotate(-90 {:.1f} {:.1f})\"", at.x, at.y) : "";
  body_ += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{:g}\" fill=\"{}\" text-anchor=\"{}\" "
      "dy=\"0.35em\"{}>{}</text>\n",
      at.x, at.y, size, svg_colour(colour), anchor, rotation, xml_escaped(text));
}

std::string SvgCanvas::document() const {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\">\n{2}</svg>\n",
      width(), height(), body_);
}

void SvgCanvas::save(const std::string& path) const { write_file_atomically(path, document()); }

// ---- raster ------------------------------------------------------------------------------------------

RasterCanvas::RasterCanvas(int width, int height, Rgb background, int supersample)
    : Canvas(width, height),
      scale_(std::max(1, supersample)),
      fine_width_(width * scale_),
      fine_height_(height * scale_),
      fine_(static_cast<std::size_t>(fine_width_) * fine_height_ * 3) {
  check_image_size(width, height, 3, "canvas");
  fill_rect(0, 0, width, height, background);
}

// Paints `colour` on every fine pixel of the box [x0, x1) x [y0, y1) (fine units, clipped to the
// canvas) whose centre satisfies inside(cx, cy).
template <typename Inside>
void RasterCanvas::fill_where(double x0, double y0, double x1, double y1, Rgb colour, Inside inside) {
  const int first_x = std::max(0, static_cast<int>(std::floor(x0)));
  const int first_y = std::max(0, static_cast<int>(std::floor(y0)));
  const int end_x = std::min(fine_width_, static_cast<int>(std::ceil(x1)));
  const int end_y = std::min(fine_height_, static_cast<int>(std::ceil(y1)));
  for (int y = first_y; y < end_y; ++y)
    for (int x = first_x; x < end_x; ++x)
      if (inside(x + 0.5, y + 0.5)) {
        std::uint8_t* pixel = &fine_[(static_cast<std::size_t>(y) * fine_width_ + x) * 3];
        pixel[0] = colour.r, pixel[1] = colour.g, pixel[2] = colour.b;
      }
}

void RasterCanvas::polyline(std::span<const Point> points, Rgb colour, double line_width, Dash dash) {
  const double s = scale_;
  const std::vector<double> pattern = dash_pattern(dash, line_width);
  const double half = std::max(0.5, line_width / 2) * s;  // never thinner than one output pixel
  double along = 0;  // output pixels from the start of the line to the current segment
  for (std::size_t i = 1; i < points.size(); ++i) {
    const Point a{points[i - 1].x * s, points[i - 1].y * s}, b{points[i].x * s, points[i].y * s};
    const double dx = b.x - a.x, dy = b.y - a.y, length_squared = dx * dx + dy * dy;
    // Each fine pixel near the segment: its distance to the segment decides the stroke, the position
    // of its projection along the line decides the dash.
    auto inside = [&](double px, double py) {
      const double t =
          length_squared > 0 ? std::clamp(((px - a.x) * dx + (py - a.y) * dy) / length_squared, 0.0, 1.0) : 0.0;
      const double ex = px - (a.x + t * dx), ey = py - (a.y + t * dy);
      return ex * ex + ey * ey <= half * half && dash_on(pattern, along + t * std::sqrt(length_squared) / s);
    };
    fill_where(std::min(a.x, b.x) - half, std::min(a.y, b.y) - half, std::max(a.x, b.x) + half,
               std::max(a.y, b.y) + half, colour, inside);
    along += std::sqrt(length_squared) / s;
  }
}

void RasterCanvas::fill_rect(double x, double y, double w, double h, Rgb colour) {
  const double s = scale_;
  fill_where(x * s, y * s, (x + w) * s, (y + h) * s, colour, [](double, double) { return true; });
}

void RasterCanvas::marker(Point centre, double radius, MarkerShape shape, Rgb colour) {
  const double s = scale_;
  const Point c{centre.x * s, centre.y * s};
  const double r = radius * s;
  std::vector<Point> corners = marker_polygon(shape, c, r);
  const double reach = r * 1.3;
  if (corners.empty()) {
    fill_where(c.x - r, c.y - r, c.x + r, c.y + r, colour,
               [&](double px, double py) { return (px - c.x) * (px - c.x) + (py - c.y) * (py - c.y) <= r * r; });
    return;
  }
  // Convex and clockwise on screen: inside when right of (or on) every edge.
  fill_where(c.x - reach, c.y - reach, c.x + reach, c.y + reach, colour, [&](double px, double py) {
    for (std::size_t i = 0; i < corners.size(); ++i) {
      const Point& p = corners[i];
      const Point& q = corners[(i + 1) % corners.size()];
      if ((q.x - p.x) * (py - p.y) - (q.y - p.y) * (px - p.x) < 0) return false;
    }
    return true;
  });
}

void RasterCanvas::text(Point at, std::string_view text, double size, Rgb colour, Align align, bool vertical) {
  std::string safe = printable_ascii(text);
  if (safe.empty()) return;
  // Each stroke of each glyph comes back as one axis-aligned quad (four vertices of 16 bytes: x, y, z
  // as floats, then RGBA); 1 KB per character is more than the densest glyph needs.
  std::vector<char> vertices(safe.size() * 1024);
  const int quads =
      stb_easy_font_print(0, 0, safe.data(), nullptr, vertices.data(), static_cast<int>(vertices.size()));
  const double unit = size / kFontUnitsPerEm;
  const double start = start_offset(align, text_width(safe, size));
  for (int q = 0; q < quads; ++q) {
    float corner[2][2];  // vertices 0 and 2 are opposite corners
    std::memcpy(corner[0], &vertices[q * 64], sizeof corner[0]);
    std::memcpy(corner[1], &vertices[q * 64 + 32], sizeof corner[1]);
    // (u, v): font units along the text and down from its top; the line's middle is half a capital down.
    const double u0 = corner[0][0], v0 = corner[0][1] - kCapHeightUnits / 2;
    const double u1 = corner[1][0], v1 = corner[1][1] - kCapHeightUnits / 2;
    if (vertical)
      fill_rect(at.x + v0 * unit, at.y - start - u1 * unit, (v1 - v0) * unit, (u1 - u0) * unit, colour);
    else
      fill_rect(at.x + start + u0 * unit, at.y + v0 * unit, (u1 - u0) * unit, (v1 - v0) * unit, colour);
  }
}

void RasterCanvas::draw_pixels(int x, int y, int w, int h, std::span<const std::uint8_t> rgb) {
  for (int fy = std::max(0, y * scale_); fy < std::min(fine_height_, (y + h) * scale_); ++fy)
    for (int fx = std::max(0, x * scale_); fx < std::min(fine_width_, (x + w) * scale_); ++fx) {
      const std::size_t source = (static_cast<std::size_t>(fy / scale_ - y) * w + (fx / scale_ - x)) * 3;
      std::memcpy(&fine_[(static_cast<std::size_t>(fy) * fine_width_ + fx) * 3], &rgb[source], 3);
    }
}

Image RasterCanvas::to_image() const {
  Image image(width(), height(), 3, true);
  const int samples = scale_ * scale_;
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < height(); ++y)
      for (int x = 0; x < width(); ++x) {
        int sum = 0;
        for (int fy = y * scale_; fy < (y + 1) * scale_; ++fy)
          for (int fx = x * scale_; fx < (x + 1) * scale_; ++fx)
            sum += fine_[(static_cast<std::size_t>(fy) * fine_width_ + fx) * 3 + c];
        image.at(c, y, x) = static_cast<float>((sum + samples / 2) / samples);
      }
  return image;
}

void RasterCanvas::save(const std::string& path) const { save_png(to_image(), path); }

}  // namespace cc
