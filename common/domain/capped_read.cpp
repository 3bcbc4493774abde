// capped_read.cpp: the size-capped whole-file read shared by the filter-file and report readers.
#include "common/domain/capped_read.h"

#include <array>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace cc {

CappedRead read_capped(const std::string& path, std::uintmax_t limit) {
  CappedRead result;
  const auto fail = [&](CappedReadProblem problem, std::string message = "") {
    result.problem = problem;
    result.system_message = std::move(message);
    result.text.clear();
    return result;
  };
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error) return fail(CappedReadProblem::CannotStat, error.message());
  if (std::filesystem::is_directory(status)) return fail(CappedReadProblem::Directory);
  if (const std::uintmax_t bytes = std::filesystem::file_size(path, error); !error && bytes > limit) {
    result.size = bytes;
    return fail(CappedReadProblem::TooLarge);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) return fail(CappedReadProblem::CannotOpen, std::generic_category().message(errno));
  for (std::array<char, 1 << 16> chunk; in && result.text.size() <= limit;)
    result.text.append(chunk.data(), static_cast<std::size_t>(in.read(chunk.data(), chunk.size()).gcount()));
  if (in.bad()) return fail(CappedReadProblem::CannotRead, std::generic_category().message(errno));
  if (result.text.size() > limit) return fail(CappedReadProblem::TooLarge);
  return result;
}

}  // namespace cc
