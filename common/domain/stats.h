// stats.h: summary statistics of timing samples.
#pragma once

#include <vector>

namespace cc {

struct Stats {
  double median = 0, min = 0, max = 0, mean = 0, stddev = 0;  // stddev: sample (n-1) form; 0 for n < 2
  int samples = 0;
};

Stats summarize(std::vector<double> samples);  // empty input -> all zero, samples = 0

}  // namespace cc
