// test_filter.cpp: the built-in filter bank, spec and file parsing (good and bad), flipping, separability.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "common/domain/error.h"
#include "common/domain/filter.h"

namespace {

const std::string kFilter5x3 = std::string(CONVCOMPARE_TEST_DATA) + "/filter_5x3.txt";

double weight_sum(const cc::Filter& filter) {
  return std::accumulate(filter.weights.begin(), filter.weights.end(), 0.0);
}

std::string spec_error(const std::string& spec) {
  try {
    cc::parse_filter_spec(spec);
  } catch (const cc::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string text_error(const std::string& text) {
  try {
    cc::parse_filter_text(text, "f.txt");
  } catch (const cc::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("fixed 3x3 built-ins have their documented weights") {
  const std::vector<std::pair<std::string, std::vector<float>>> expected = {
      {"sobel-x", {-1, 0, 1, -2, 0, 2, -1, 0, 1}},
      {"sobel-y", {-1, -2, -1, 0, 0, 0, 1, 2, 1}},
      {"laplacian", {0, 1, 0, 1, -4, 1, 0, 1, 0}},
      {"emboss", {-2, -1, 0, -1, 1, 1, 0, 1, 2}},
      {"highpass", {-1, -1, -1, -1, 8, -1, -1, -1, -1}},
      {"lowpass", {0.0625f, 0.125f, 0.0625f, 0.125f, 0.25f, 0.125f, 0.0625f, 0.125f, 0.0625f}},
  };
  for (const auto& [spec, weights] : expected) {
    CAPTURE(spec);
    const cc::Filter filter = cc::parse_filter_spec(spec);
    CHECK(filter.spec == spec);
    CHECK(filter.width == 3);
    CHECK(filter.height == 3);
    CHECK(filter.weights == weights);
  }
  const cc::Filter sobel = cc::parse_filter_spec("sobel-x");
  CHECK(sobel.abs_sum() == 8.0);
  CHECK(sobel.integer_weights());
  CHECK(sobel.at(1, 2) == 2.0f);
  CHECK(sobel.radius_x() == 1);
  CHECK(sobel.taps() == 9);
  CHECK_FALSE(cc::parse_filter_spec("lowpass").integer_weights());
}

TEST_CASE("box, identity and sharpen") {
  const cc::Filter box = cc::parse_filter_spec("box:r=3");
  CHECK(box.width == 7);
  CHECK(box.height == 7);
  CHECK(box.weights == std::vector<float>(49, 1.0f / 49));
  CHECK(cc::parse_filter_spec("box").weights == std::vector<float>(9, 1.0f / 9));
  CHECK(cc::parse_filter_spec("box:r=0").weights == std::vector<float>{1.0f});
  CHECK(cc::parse_filter_spec("box:r=512").width == cc::kMaxFilterSide);

  CHECK(cc::parse_filter_spec("identity").weights == std::vector<float>{1.0f});
  const cc::Filter delta = cc::parse_filter_spec("identity:r=2");
  CHECK(delta.width == 5);
  CHECK(delta.at(2, 2) == 1.0f);
  CHECK(delta.abs_sum() == 1.0);

  const cc::Filter sharpen = cc::parse_filter_spec("sharpen:strength=1");
  CHECK(sharpen.at(1, 1) == doctest::Approx(1 + 8.0 / 9));
  CHECK(sharpen.at(0, 0) == doctest::Approx(-1.0 / 9));
  CHECK(weight_sum(sharpen) == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(cc::parse_filter_spec("sharpen").weights == sharpen.weights);
  const cc::Filter mild = cc::parse_filter_spec("sharpen:strength=0.45");
  CHECK(mild.at(0, 1) == doctest::Approx(-0.05));
  CHECK(mild.at(1, 1) == doctest::Approx(1.4));
}

TEST_CASE("gaussian: radius ceil(4 sigma) unless r is given, normalized, exact values") {
  const cc::Filter wide = cc::parse_filter_spec("gaussian:sigma=3.2");
  CHECK(wide.radius_x() == 13);
  CHECK(wide.radius_y() == 13);
  CHECK(weight_sum(wide) == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(wide.at(13, 13) == *std::max_element(wide.weights.begin(), wide.weights.end()));
  CHECK(wide.at(0, 5) == wide.at(26, 21));  // symmetric under a half turn
  CHECK(cc::parse_filter_spec("gaussian:sigma=2").width == 17);

  const cc::Filter small = cc::parse_filter_spec("gaussian:sigma=1,r=2");
  CHECK(small.width == 5);
  const double norm = 1 + 2 * std::exp(-0.5) + 2 * std::exp(-2.0);
  CHECK(small.at(2, 2) == doctest::Approx(1 / (norm * norm)).epsilon(1e-7));
  CHECK(small.at(0, 1) == doctest::Approx(std::exp(-2.0) * std::exp(-0.5) / (norm * norm)).epsilon(1e-7));
  CHECK(weight_sum(small) == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(cc::parse_filter_spec("gaussian:r=1,sigma=0.5").width == 3);  // parameter order is free
}

TEST_CASE("log: scale-normalized Laplacian of Gaussian, zero-sum, negative centre, symmetric") {
  const cc::Filter log = cc::parse_filter_spec("log:sigma=2");
  CHECK(log.radius_x() == 8);  // ceil(4 sigma), as gaussian
  CHECK(log.radius_y() == 8);
  // sigma^2 * Laplacian of the unit Gaussian at 0: -2 / (2 pi sigma^2) = -1 / (pi sigma^2) = -0.0795775;
  // the grid's sum-1 Gaussian and the zero-sum correction move it by well under 1%.
  CHECK(log.at(8, 8) == doctest::Approx(-1 / (M_PI * 4)).epsilon(0.01));
  CHECK(log.at(8, 8) == *std::min_element(log.weights.begin(), log.weights.end()));
  CHECK(std::fabs(weight_sum(log)) < 1e-7);
  CHECK(log.abs_sum() > 0.5);  // not vacuously zero-sum
  for (int r = 0; r < log.height; ++r)
    for (int c = 0; c < log.width; ++c) {
      CAPTURE(r);
      CAPTURE(c);
      CHECK(log.at(r, c) == log.at(c, r));                                  // the transpose
      CHECK(log.at(r, c) == log.at(log.height - 1 - r, c));                 // mirrored rows
      CHECK(log.at(r, c) == log.at(r, log.width - 1 - c));                  // mirrored columns
    }
  // The ring where x^2 + y^2 = 2 sigma^2 (radius 2.83) is the zero crossing: (8, 10) inside, (8, 11) outside.
  CHECK(log.at(8, 10) < 0);
  CHECK(log.at(8, 11) > 0);

  // Exact values on a small grid: g = (e^-2, e^-1/2, 1, ...) / n, a = ((x/sigma)^2 - 1) g minus (sum a) g,
  // weight(y, x) = a(y) g(x) + g(y) a(x).
  const cc::Filter small = cc::parse_filter_spec("log:sigma=1,r=2");
  CHECK(small.width == 5);
  const double n = 1 + 2 * std::exp(-0.5) + 2 * std::exp(-2.0);
  const double g[3] = {1 / n, std::exp(-0.5) / n, std::exp(-2.0) / n};  // at |x| = 0, 1, 2
  const double a_sum = -g[0] + 2 * 0 * g[1] + 2 * 3 * g[2];
  const double a[3] = {-g[0] - a_sum * g[0], 0 - a_sum * g[1], 3 * g[2] - a_sum * g[2]};
  CHECK(small.at(2, 2) == doctest::Approx(2 * a[0] * g[0]).epsilon(1e-6));
  CHECK(small.at(0, 1) == doctest::Approx(a[2] * g[1] + g[2] * a[1]).epsilon(1e-6));
  CHECK(cc::parse_filter_spec("log:r=3,sigma=1").width == 7);  // r= overrides, in any order
}

TEST_CASE("dog: G(sigma1) - G(sigma2), each of sum 1, radius from the larger sigma") {
  const cc::Filter dog = cc::parse_filter_spec("dog:sigma1=1,sigma2=2");
  CHECK(dog.radius_x() == 8);
  // 1/(2 pi) (1/1 - 1/4) = 0.1193662 for continuous Gaussians; the grid's sums are within 1e-4 of them.
  CHECK(dog.at(8, 8) == doctest::Approx(0.75 / (2 * M_PI)).epsilon(1e-3));
  CHECK(dog.at(8, 8) == *std::max_element(dog.weights.begin(), dog.weights.end()));
  CHECK(std::fabs(weight_sum(dog)) < 1e-7);
  CHECK(dog.at(0, 0) < 0);  // the wide Gaussian dominates far out
  for (int r = 0; r < dog.height; ++r)
    for (int c = 0; c < dog.width; ++c) CHECK(dog.at(r, c) == dog.at(dog.height - 1 - r, dog.width - 1 - c));
  // Exact: the gaussians' own values differenced.
  const cc::Filter g1 = cc::parse_filter_spec("gaussian:sigma=1,r=3"), g2 = cc::parse_filter_spec("gaussian:sigma=3,r=3");
  const cc::Filter small = cc::parse_filter_spec("dog:sigma2=3,sigma1=1,r=3");
  REQUIRE(small.width == 7);
  for (int i = 0; i < small.taps(); ++i)
    CHECK(small.weights[i] == doctest::Approx(double(g1.weights[i]) - g2.weights[i]).epsilon(1e-6).scale(1e-6));
  // sigma1 > sigma2 is the same filter negated.
  const cc::Filter negated = cc::parse_filter_spec("dog:sigma1=2,sigma2=1");
  CHECK(negated.at(8, 8) == -dog.at(8, 8));
}

TEST_CASE("log and dog refuse hostile parameters with one line naming the problem") {
  CHECK(spec_error("log") == "bad filter 'log': sigma is required (log:sigma=S[,r=N])");
  CHECK(spec_error("log:sigma=0") == "bad filter 'log:sigma=0': sigma must be > 0");
  CHECK(spec_error("log:sigma=-1").find("sigma must be > 0") != std::string::npos);
  CHECK(spec_error("log:sigma=nan").find("sigma must be a finite number, got 'nan'") != std::string::npos);
  CHECK(spec_error("log:sigma=inf").find("finite") != std::string::npos);
  CHECK(spec_error("log:sigma=1e308").find("give r=N") != std::string::npos);
  CHECK(spec_error("log:sigma=1e300,r=3").find("all zero") != std::string::npos);   // flat: zero-sum leaves 0
  CHECK(spec_error("log:sigma=1e-300").find("all zero") != std::string::npos);      // a lone centre tap
  CHECK(spec_error("log:sigma=1,r=-1").find("r must be >= 0") != std::string::npos);
  CHECK(spec_error("log:sigma=1,r=513").find("over 1025") != std::string::npos);
  CHECK(spec_error("log:sigma=1,sigma1=2").find("unknown parameter 'sigma1'") != std::string::npos);
  CHECK(spec_error("dog:sigma1=1").find("sigma2 is required") != std::string::npos);
  CHECK(spec_error("dog:sigma2=1").find("sigma1 is required") != std::string::npos);
  CHECK(spec_error("dog:sigma1=0,sigma2=1").find("sigma1 must be > 0") != std::string::npos);
  CHECK(spec_error("dog:sigma1=1,sigma2=-2").find("sigma2 must be > 0") != std::string::npos);
  CHECK(spec_error("dog:sigma1=nan,sigma2=1").find("finite") != std::string::npos);
  CHECK(spec_error("dog:sigma1=2,sigma2=2").find("must differ") != std::string::npos);
  CHECK(spec_error("dog:sigma1=1,sigma2=1e300").find("give r=N") != std::string::npos);
  CHECK(spec_error("dog:sigma1=1e300,sigma2=1e301,r=2").find("all zero") != std::string::npos);
  CHECK(spec_error("dog:sigma1=1000,sigma2=1001,r=2").find("all zero but rounding") != std::string::npos);
  CHECK(spec_error("log:sigma=1e5,r=3").find("all zero but rounding") != std::string::npos);
  CHECK(spec_error("log:sigma=30,r=3") == "(no error)");  // small but real: (r/sigma)^2 = 1e-2
  CHECK(spec_error("dog:sigma=1").find("unknown parameter 'sigma'") != std::string::npos);
}

TEST_CASE("bad filter specs name the spec and the problem") {
  CHECK(spec_error("gaussian:sigma=-1") == "bad filter 'gaussian:sigma=-1': sigma must be > 0");
  CHECK(spec_error("blur").find("bad filter 'blur': unknown filter 'blur'") == 0);
  CHECK(spec_error("box:radius=3").find("unknown parameter 'radius'") != std::string::npos);
  CHECK(spec_error("sobel-x:r=1").find("sobel-x takes no parameters") != std::string::npos);
  CHECK(spec_error("gaussian:sigma=0").find("sigma must be > 0") != std::string::npos);
  CHECK(spec_error("gaussian").find("sigma is required") != std::string::npos);
  CHECK(spec_error("gaussian:sigma=abc").find("sigma must be a finite number, got 'abc'") != std::string::npos);
  CHECK(spec_error("gaussian:sigma=nan").find("finite") != std::string::npos);
  CHECK(spec_error("gaussian:sigma=2x").find("finite") != std::string::npos);
  CHECK(spec_error("gaussian:sigma=1000").find("give r=N") != std::string::npos);
  CHECK(spec_error("sharpen:strength=inf").find("finite") != std::string::npos);
  CHECK(spec_error("box:r=1.5").find("r must be an integer") != std::string::npos);
  CHECK(spec_error("box:r=-1").find("r must be >= 0") != std::string::npos);
  CHECK(spec_error("box:r=513").find("over 1025") != std::string::npos);
  CHECK(spec_error("gaussian:sigma=1,r=100000").find("over 1025") != std::string::npos);
  CHECK(spec_error("box:r=99999999999999999999").find("r must be an integer") != std::string::npos);
  CHECK(spec_error("box:r=1,r=2").find("given twice") != std::string::npos);
  CHECK(spec_error("box:").find("expected name=value") != std::string::npos);
  CHECK(spec_error("box:r=").find("expected name=value") != std::string::npos);
  CHECK(spec_error("box:r=1,").find("expected name=value") != std::string::npos);
  CHECK(spec_error("file:").find("needs a path") != std::string::npos);
  CHECK(spec_error("file:/no/such/filter.txt") ==
        "cannot open filter file '/no/such/filter.txt': No such file or directory");
}

TEST_CASE("filter files: a non-square filter with comments") {
  const cc::Filter filter = cc::load_filter_file(kFilter5x3);
  CHECK(filter.width == 5);
  CHECK(filter.height == 3);
  CHECK(filter.weights == std::vector<float>{1, 2, 3, 4, 5, -1, -2, -3, -4, -5, 0.5f, 1e-3f, 0.25f, 0, 6});
  CHECK(filter.radius_x() == 2);
  CHECK(filter.radius_y() == 1);

  const cc::Filter from_spec = cc::parse_filter_spec("file:" + kFilter5x3);
  CHECK(from_spec.spec == "file:" + kFilter5x3);
  CHECK(from_spec.weights == filter.weights);

  CHECK(cc::parse_filter_text("1 1 7", "inline").weights == std::vector<float>{7});
  CHECK(cc::parse_filter_text("3\r\n1\r\n1 -2 1\r\n", "crlf").weights == std::vector<float>{1, -2, 1});
}

TEST_CASE("bad filter files") {
  CHECK(text_error("3 3\n1 2 3\n4 5 6\n7 8\n") == "filter file 'f.txt': expected 3x3 = 9 coefficients, found 8");
  CHECK(text_error("1 3\n1\n2\n3\n4\n") ==
        "filter file 'f.txt': line 5: extra number '4' after the 1x3 = 3 coefficients");
  CHECK(text_error("3 1\n1 two 3\n") == "filter file 'f.txt': line 2: 'two' is not a number");
  CHECK(text_error("2 3\n").find("line 1: width must be a positive odd integer") != std::string::npos);
  CHECK(text_error("3 0\n").find("line 1: height must be a positive odd integer") != std::string::npos);
  CHECK(text_error("3.0 1 1 2 3").find("width must be") != std::string::npos);
  CHECK(text_error("1027 1").find("width must be") != std::string::npos);
  CHECK(text_error("-3 1 1 2 3").find("width must be") != std::string::npos);
  CHECK(text_error("1 1\nnan\n") == "filter file 'f.txt': line 2: 'nan' is not a finite float");
  CHECK(text_error("1 1 inf").find("'inf' is not a finite float") != std::string::npos);
  CHECK(text_error("1 1 -INFINITY").find("not a finite float") != std::string::npos);
  CHECK(text_error("1 1 1e39").find("not a finite float") != std::string::npos);  // overflows float
  CHECK(text_error("1 1 0x10").find("not a number") != std::string::npos);
  CHECK(text_error("# only a comment\n").find("expected the width and height") != std::string::npos);
  CHECK(text_error("").find("expected the width and height") != std::string::npos);

  CHECK_THROWS_WITH_AS(cc::load_filter_file("/no/such/file.txt"),
                       "cannot open filter file '/no/such/file.txt': No such file or directory", cc::InputError);
  CHECK_THROWS_WITH_AS(cc::load_filter_file(CONVCOMPARE_TEST_DATA), doctest::Contains("is a directory"),
                       cc::InputError);
}

TEST_CASE("flipped turns the filter by 180 degrees") {
  const cc::Filter filter = cc::parse_filter_text("3 3  1 2 3  4 5 6  7 8 9", "nine");
  CHECK(cc::flipped(filter).weights == std::vector<float>{9, 8, 7, 6, 5, 4, 3, 2, 1});
  const cc::Filter wide = cc::flipped(cc::load_filter_file(kFilter5x3));
  CHECK(wide.width == 5);
  CHECK(wide.height == 3);
  CHECK(wide.at(0, 0) == 6.0f);  // was bottom-right
  CHECK(wide.at(2, 4) == 1.0f);  // was top-left
  CHECK(cc::flipped(cc::flipped(filter)).weights == filter.weights);
}

TEST_CASE("separate finds rank-1 filters and refuses the others") {
  const cc::Filter gaussian = cc::parse_filter_spec("gaussian:sigma=2");
  const auto factors = cc::separate(gaussian);
  REQUIRE(factors.has_value());
  REQUIRE(factors->row.size() == 17);
  REQUIRE(factors->column.size() == 17);
  const double peak = *std::max_element(gaussian.weights.begin(), gaussian.weights.end());
  double worst = 0;
  for (int r = 0; r < 17; ++r)
    for (int c = 0; c < 17; ++c)
      worst = std::max(worst, std::fabs(gaussian.at(r, c) - double(factors->column[r]) * factors->row[c]));
  CHECK(worst <= 1e-7 * peak);

  const auto sobel = cc::separate(cc::parse_filter_spec("sobel-x"));
  REQUIRE(sobel.has_value());
  CHECK(sobel->row == std::vector<float>{-2, 0, 2});  // the pivot row: largest |w| is -2 at (1, 0)
  CHECK(sobel->column == std::vector<float>{0.5f, 1, 0.5f});

  // Non-square outer product [1 2 1]^T x [1 -1 3 0 2].
  const auto wide = cc::separate(cc::parse_filter_text("5 3  1 -1 3 0 2  2 -2 6 0 4  1 -1 3 0 2", "outer"));
  REQUIRE(wide.has_value());
  CHECK(wide->row == std::vector<float>{2, -2, 6, 0, 4});
  CHECK(wide->column == std::vector<float>{0.5f, 1, 0.5f});

  CHECK(cc::separate(cc::parse_filter_spec("box:r=2")).has_value());
  CHECK_FALSE(cc::separate(cc::parse_filter_spec("laplacian")).has_value());
  CHECK_FALSE(cc::separate(cc::parse_filter_spec("emboss")).has_value());
  CHECK_FALSE(cc::separate(cc::parse_filter_spec("sharpen")).has_value());
  CHECK_FALSE(cc::separate(cc::parse_filter_text("3 1 0 0 0", "zeros")).has_value());
}

TEST_CASE("every built-in name and every default spec parses") {
  const std::vector<std::string> names = cc::builtin_filter_names();
  CHECK(names.size() == 12);
  for (const std::string& name : names) {
    CAPTURE(name);
    const std::string spec = name == "gaussian" || name == "log" ? name + ":sigma=1"
                             : name == "dog"                     ? "dog:sigma1=1,sigma2=2"
                                                                 : name;
    const cc::Filter filter = cc::parse_filter_spec(spec);
    CHECK(filter.width % 2 == 1);
    CHECK(filter.weights.size() == static_cast<std::size_t>(filter.taps()));
  }
  CHECK(cc::default_filter_specs() ==
        std::vector<std::string>{"box:r=1", "gaussian:sigma=2", "sharpen:strength=1", "sobel-x", "emboss"});
  for (const std::string& spec : cc::default_filter_specs()) CHECK_NOTHROW(cc::parse_filter_spec(spec));
}
