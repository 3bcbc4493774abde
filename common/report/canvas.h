// canvas.h: the one drawing layer behind --plot and the contact sheet: cairo, to PNG, SVG or PDF, with real fonts and antialiasing.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cc {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

struct Point {
  double x = 0, y = 0;
};

enum class Dash { Solid, Dashed, Dotted, DashDot };
enum class MarkerShape { Circle, Square, Triangle, Diamond };
enum class Align { Left, Centre, Right };
enum class CanvasFormat { Png, Svg, Pdf };

// Whether this binary was built with cairo (CONVCOMPARE_WITH_CAIRO); without it there is no Canvas:
// --plot is refused before any work and the contact sheet has no labels.
bool canvas_available();

// The format a file name asks for (.png, .svg, .pdf, any case); throws InputError for any other.
CanvasFormat canvas_format(const std::string& path);

// Width in pixels of `text` at `size` (the font's em in pixels), in the font every canvas draws with.
double text_width(std::string_view text, double size);

// Coordinates are pixels (PDF: points) from the top-left corner of the current page, y down. A canvas
// holds pages of one width: separate pages in a PDF, stacked top to bottom in one PNG or SVG picture.
class Canvas {
 public:
  Canvas(CanvasFormat format, int width, std::vector<int> page_heights, Rgb background = {255, 255, 255});
  ~Canvas();
  Canvas(const Canvas&) = delete;
  Canvas& operator=(const Canvas&) = delete;

  int width() const { return width_; }
  int height() const { return page_heights_[page_]; }  // of the current page
  std::size_t pages() const { return page_heights_.size(); }
  // Draws from now on into page `index` (in order: pages cannot be revisited).
  void begin_page(std::size_t index);

  void polyline(std::span<const Point> points, Rgb colour, double line_width, Dash dash = Dash::Solid);
  void fill_rect(double x, double y, double w, double h, Rgb colour);
  void marker(Point centre, double radius, MarkerShape shape, Rgb colour);
  // `at` is the vertical middle of the text line; `align` says which end of the text (or its middle)
  // sits at at.x. Vertical text reads bottom to top and is aligned along y the same way.
  void text(Point at, std::string_view text, double size, Rgb colour, Align align = Align::Left, bool vertical = false);
  // Interleaved 8-bit RGB pixels, w x h, with their top-left corner at (x, y).
  void draw_pixels(int x, int y, int w, int h, std::span<const std::uint8_t> rgb);
  void line(Point from, Point to, Rgb colour, double line_width, Dash dash = Dash::Solid);
  void stroke_rect(double x, double y, double w, double h, Rgb colour, double line_width);

  // Finishes the drawing and writes it to `path` atomically; the canvas takes no more drawing.
  void save(const std::string& path);

  // Every string text() drew, in order: what the picture says, for the tests (cairo draws glyphs,
  // so an SVG or PDF holds no searchable text).
  const std::vector<std::string>& texts() const { return texts_; }

 private:
  struct State;  // cairo's surface and context (canvas.cpp): no cairo header outside it
  std::unique_ptr<State> state_;
  CanvasFormat format_;
  int width_;
  std::vector<int> page_heights_;
  std::size_t page_ = 0;
  Rgb background_;
  std::vector<std::string> texts_;
};

}  // namespace cc
