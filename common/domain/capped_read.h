// capped_read.h: reading a whole user-named file, up to a size limit, for the parsers of small files.
#pragma once

#include <cstdint>
#include <string>

namespace cc {

// What went wrong, for the caller to word in its own error message.
enum class CappedReadProblem {
  None,
  CannotStat,  // the path does not resolve (no such file, no permission on a directory...)
  Directory,
  TooLarge,    // over the limit: by its size (size > 0), or while reading (a pipe or device: size 0)
  CannotOpen,
  CannotRead,
};

struct CappedRead {
  std::string text;
  CappedReadProblem problem = CappedReadProblem::None;
  std::string system_message;  // the OS's words for CannotStat / CannotOpen / CannotRead
  std::uintmax_t size = 0;     // the file's size when known (TooLarge by size)
};

// Reads up to `limit` bytes, not to the end: a device or a pipe (/dev/stdin) has no size to check first,
// and /dev/zero would never end. Never throws for a bad path; the caller turns `problem` into InputError.
CappedRead read_capped(const std::string& path, std::uintmax_t limit);

}  // namespace cc
