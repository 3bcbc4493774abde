// temp_dir.h: a fresh directory under the system temp dir for one test, removed with everything in it.
#pragma once

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace cc::test {

struct TempDir {
  std::filesystem::path path;

  // `purpose` names the directory (convcompare-PURPOSE-XXXXXX), so a leftover says which suite made it.
  explicit TempDir(std::string_view purpose = "test") {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("convcompare-" + std::string(purpose) + "-XXXXXX")).string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (path / name).string(); }
  std::string operator/(const std::string& name) const { return file(name); }
};

}  // namespace cc::test
