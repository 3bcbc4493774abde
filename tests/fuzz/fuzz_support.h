// fuzz_support.h: what the fuzz targets share: the input as a file, and the checks a loaded result must pass.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <functional>
#include <optional>
#include <thread>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/domain/error.h"
#include "common/domain/filter.h"
#include "common/domain/image.h"

namespace fuzz {

// A broken invariant is a finding like a crash: abort, so libFuzzer saves the input that caused it.
inline void require(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

// The loaders take a path, so each input is written to one file per fuzzer process, removed at exit.
// Going through a real file also fuzzes what the command line does: open, read, rewind, stdio.
class InputFile {
 public:
  InputFile()
      : path_(std::filesystem::temp_directory_path() / ("convcompare-fuzz-" + std::to_string(::getpid()))) {}
  ~InputFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& write(const std::uint8_t* data, std::size_t size) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    require(static_cast<bool>(out.flush()), "the fuzz input could not be written to the temporary file");
    return path_;
  }

 private:
  std::string path_;  // one name per process, so fuzzers running side by side (-fork, -jobs) never share it
};

// What every loader promises for an image it returns.
inline void check_image(const cc::Image& image) {
  require(image.channels >= 1 && image.channels <= 4, "channel count outside 1..4");
  require(image.width >= 1 && image.width <= cc::kMaxImageDimension, "width outside the cap");
  require(image.height >= 1 && image.height <= cc::kMaxImageDimension, "height outside the cap");
  require(image.plane_size() <= cc::kMaxImagePixels, "pixel count over the cap");
  require(image.data.size() == image.plane_size() * image.channels, "pixel buffer of the wrong size");
  if (image.eight_bit)
    for (float value : image.data)
      require(value >= 0 && value <= 255 && value == std::trunc(value), "8-bit value not an integer in 0..255");
}

// What the spec parser and the filter-file parser promise for a filter they return.
inline void check_filter(const cc::Filter& filter) {
  auto odd_side = [](int side) { return side >= 1 && side <= cc::kMaxFilterSide && side % 2 == 1; };
  require(odd_side(filter.width), "filter width not odd in 1..kMaxFilterSide");
  require(odd_side(filter.height), "filter height not odd in 1..kMaxFilterSide");
  require(filter.weights.size() == static_cast<std::size_t>(filter.taps()), "weight count differs from width x height");
  for (float weight : filter.weights) require(std::isfinite(weight), "non-finite filter weight");
}

// How a load ended: an image, or an InputError (any other exception escapes as a finding). Two
// outcomes are equal when both refused, or both loaded the same bits.
struct Outcome {
  std::optional<cc::Image> image;
  bool operator==(const Outcome& other) const {
    if (image.has_value() != other.image.has_value()) return false;
    if (!image) return true;
    const cc::Image &a = *image, &b = *other.image;
    if (a.width != b.width || a.height != b.height || a.channels != b.channels || a.eight_bit != b.eight_bit ||
        a.data.size() != b.data.size())
      return false;
    for (std::size_t i = 0; i < a.data.size(); ++i)
      if (std::bit_cast<std::uint32_t>(a.data[i]) != std::bit_cast<std::uint32_t>(b.data[i])) return false;
    return true;
  }
};

inline Outcome outcome(const std::function<cc::Image()>& load) {
  try {
    return {load()};
  } catch (const cc::InputError&) {
    return {};
  }
}

// `load` given "/dev/fd/N", the read end of a pipe a thread writes `data` into: the stream paths of
// the input opener and the readers (no size known, no seeking). The writer stops when the reader is
// done, read or not (EPIPE, SIGPIPE ignored).
inline Outcome outcome_from_pipe(const std::uint8_t* data, std::size_t size,
                                 const std::function<cc::Image(const std::string&)>& load) {
  static const bool ignore_sigpipe = (::signal(SIGPIPE, SIG_IGN), true);
  (void)ignore_sigpipe;
  int ends[2];
  require(::pipe(ends) == 0, "pipe() failed");
  std::thread writer([&, write_end = ends[1]] {
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::write(write_end, data + done, size - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::close(write_end);
  });
  Outcome result = outcome([&] { return load("/dev/fd/" + std::to_string(ends[0])); });
  ::close(ends[0]);  // the loader's own descriptor is closed; this one too, so a blocked writer wakes
  writer.join();
  return result;
}

}  // namespace fuzz
