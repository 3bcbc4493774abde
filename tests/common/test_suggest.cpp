// test_suggest.cpp: the edit distance and the closest-name rule behind every "did you mean".
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "common/domain/filter.h"
#include "common/domain/error.h"
#include "common/domain/problem.h"
#include "common/domain/suggest.h"

TEST_CASE("edit_distance: insertions, deletions, substitutions, a swap of neighbours, case folded") {
  CHECK(cc::edit_distance("", "") == 0);
  CHECK(cc::edit_distance("tiled", "tiled") == 0);
  CHECK(cc::edit_distance("", "zero") == 4);
  CHECK(cc::edit_distance("tiledd", "tiled") == 1);   // one inserted
  CHECK(cc::edit_distance("mirro", "mirror") == 1);   // one deleted
  CHECK(cc::edit_distance("pined", "pinned") == 1);
  CHECK(cc::edit_distance("globel", "global") == 1);  // one substituted
  CHECK(cc::edit_distance("tlied", "tiled") == 1);    // two neighbours swapped
  CHECK(cc::edit_distance("Tiled", "tiled") == 0);
  CHECK(cc::edit_distance("kitten", "sitting") == 3);
  CHECK(cc::edit_distance("sitting", "kitten") == 3);
}

TEST_CASE("closest_name: the near name, a start of three letters or more, nothing for a far or exact name") {
  const std::vector<std::string> variants = {"naive", "global", "constant", "tiled", "texture", "separable", "fast"};
  CHECK(cc::closest_name("tiledd", variants) == "tiled");
  CHECK(cc::closest_name("Tiled", variants) == "tiled");
  CHECK(cc::closest_name("sep", variants) == "separable");  // a start
  CHECK(cc::closest_name("separabel", variants) == "separable");
  CHECK_FALSE(cc::closest_name("tiled", variants));          // exact: nothing to suggest
  CHECK_FALSE(cc::closest_name("vulkan", variants));         // nothing near
  CHECK_FALSE(cc::closest_name("", variants));
  CHECK_FALSE(cc::closest_name("x", variants));
  CHECK_FALSE(cc::closest_name("ab", std::vector<std::string>{"cd"}));  // 2 edits on a 2-letter word: too far
  // Ties go to the first listed.
  CHECK(cc::closest_name("bat", std::vector<std::string>{"cat", "hat"}) == "cat");
  // A closer name wins over an earlier one.
  CHECK(cc::closest_name("--sizes", std::vector<std::string>{"--sweep", "--size"}) == "--size");
}

TEST_CASE("did_you_mean: the one wording every message ends with") {
  CHECK(cc::did_you_mean("mirro", std::vector<std::string>{"zero", "clamp", "mirror", "wrap"}) ==
        "; did you mean 'mirror'?");
  CHECK(cc::did_you_mean("vulkan", std::vector<std::string>{"cpu", "cuda", "opencl"}).empty());
}

TEST_CASE("borders, filters and their parameters say the closest name") {
  CHECK_THROWS_WITH_AS(cc::parse_border("mirro"), "unknown border 'mirro' (zero, clamp, mirror, wrap); did you mean 'mirror'?",
                       cc::InputError);
  // Other libraries' names for the same borders.
  CHECK_THROWS_WITH_AS(cc::parse_border("replicate"),
                       "unknown border 'replicate' (zero, clamp, mirror, wrap); did you mean 'clamp'?", cc::InputError);
  CHECK_THROWS_WITH_AS(cc::parse_border("periodic"),
                       "unknown border 'periodic' (zero, clamp, mirror, wrap); did you mean 'wrap'?", cc::InputError);
  const auto spec_error = [](const std::string& spec) -> std::string {
    try {
      (void)cc::parse_filter_spec(spec);
    } catch (const cc::InputError& error) {
      return error.what();
    }
    return "";
  };
  CHECK(spec_error("gauss:sigma=2").ends_with("; did you mean 'gaussian'?"));
  CHECK(spec_error("gaussian:sigm=2").ends_with("(accepted: sigma, r); did you mean 'sigma'?"));
  CHECK(spec_error("blur").find("did you mean") == std::string::npos);
}
