// test_build_cache.cpp: the one cache of run-time builds (backends/build_cache.h): each key built once and timed once, a failed build not kept.
#include <doctest/doctest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "backends/build_cache.h"

TEST_CASE("build cache: a key is built once, and its cached uses report the first build's time") {
  cc::BuildCache<std::string> cache;
  int builds = 0;
  const auto slow_build = [&] {
    ++builds;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return std::string("program");
  };
  const cc::BuildKey key{0, {0}, "tiled.cl", {"-cl-std=CL1.2"}};
  const auto& first = cache.get(key, slow_build);
  CHECK(first.built == "program");
  CHECK(first.build_ms >= 20);
  const auto& again = cache.get(key, slow_build);
  CHECK(builds == 1);
  CHECK(&again == &first);
  CHECK(again.build_ms == first.build_ms);
  // Another context's devices or other options are another build.
  cache.get({0, {0, 1}, "tiled.cl", {"-cl-std=CL1.2"}}, slow_build);
  cache.get({0, {0}, "tiled.cl", {"-cl-std=CL1.2", "-DRADIUS=3"}}, slow_build);
  CHECK(builds == 3);
}

TEST_CASE("build cache: a build that throws leaves nothing cached, so the next ask builds again") {
  cc::BuildCache<int> cache;
  const cc::BuildKey key{1, {1}, "fast.cu", {}};
  CHECK_THROWS_AS(cache.get(key, []() -> int { throw std::runtime_error("compile error"); }), std::runtime_error);
  CHECK(cache.get(key, [] { return 7; }).built == 7);
}
