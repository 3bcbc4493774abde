// canvas.h: the drawing layer behind --plot and the contact sheet: one interface, SVG and PNG back ends.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/domain/image.h"

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

// Width in pixels of `text` at `size` (the font's em in pixels). Both back ends lay text out with
// these metrics (stb_easy_font's), so a layout computed once fits either output.
double text_width(std::string_view text, double size);

// Coordinates are pixels from the top-left corner, y down; fractional values are fine.
class Canvas {
 public:
  Canvas(int width, int height);
  virtual ~Canvas() = default;
  int width() const { return width_; }
  int height() const { return height_; }

  virtual void polyline(std::span<const Point> points, Rgb colour, double line_width, Dash dash = Dash::Solid) = 0;
  virtual void fill_rect(double x, double y, double w, double h, Rgb colour) = 0;
  virtual void marker(Point centre, double radius, MarkerShape shape, Rgb colour) = 0;
  // `at` is the vertical middle of the text line; `align` says which end of the text (or its middle)
  // sits at at.x. Vertical text reads bottom to top and is aligned along y the same way.
  virtual void text(Point at, std::string_view text, double size, Rgb colour, Align align = Align::Left,
                    bool vertical = false) = 0;
  // Writes the picture to `path` atomically.
  virtual void save(const std::string& path) const = 0;

  void line(Point from, Point to, Rgb colour, double line_width, Dash dash = Dash::Solid);
  void stroke_rect(double x, double y, double w, double h, Rgb colour, double line_width);

 private:
  int width_, height_;
};

// SVG text: vector output that scales in a browser; text is real text (searchable, selectable).
class SvgCanvas final : public Canvas {
 public:
  SvgCanvas(int width, int height, Rgb background = {255, 255, 255});
  void polyline(std::span<const Point> points, Rgb colour, double line_width, Dash dash = Dash::Solid) override;
  void fill_rect(double x, double y, double w, double h, Rgb colour) override;
  void marker(Point centre, double radius, MarkerShape shape, Rgb colour) override;
  void text(Point at, std::string_view text, double size, Rgb colour, Align align = Align::Left,
            bool vertical = false) override;
  void save(const std::string& path) const override;
  std::string document() const;

 private:
  std::string body_;
};

// RGB pixels saved as PNG. Everything is drawn at `supersample` times the size and box-averaged down
// when finished, which anti-aliases lines, markers and text without any per-primitive coverage maths.
class RasterCanvas final : public Canvas {
 public:
  RasterCanvas(int width, int height, Rgb background = {255, 255, 255}, int supersample = 3);
  void polyline(std::span<const Point> points, Rgb colour, double line_width, Dash dash = Dash::Solid) override;
  void fill_rect(double x, double y, double w, double h, Rgb colour) override;
  void marker(Point centre, double radius, MarkerShape shape, Rgb colour) override;
  void text(Point at, std::string_view text, double size, Rgb colour, Align align = Align::Left,
            bool vertical = false) override;
  void save(const std::string& path) const override;

  // Copies interleaved 8-bit RGB pixels (w x h) with their top-left corner at output pixel (x, y),
  // unfiltered, so they come out unchanged in the saved picture.
  void draw_pixels(int x, int y, int w, int h, std::span<const std::uint8_t> rgb);
  // The finished picture: 3 channels on the 0..255 scale, eight_bit = true.
  Image to_image() const;

 private:
  template <typename Inside>
  void fill_where(double x0, double y0, double x1, double y1, Rgb colour, Inside inside);
  int scale_;
  int fine_width_, fine_height_;
  std::vector<std::uint8_t> fine_;  // interleaved RGB at scale_ times the size
};

}  // namespace cc
