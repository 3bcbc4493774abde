// cache_files.cpp: the tuning cache's file access: a checked directory opened once, files in it read, replaced and locked relative to it, never through a symlink.
#include "tools/convcompare/cache_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/domain/input_file.h"
#include "common/domain/temporary_files.h"

namespace cc {

namespace fs = std::filesystem;

namespace {

// "it is not a regular file": the words the warnings use for a FIFO, device or symlink in a cache file's place.
constexpr std::string_view kNotRegular = "it is not a regular file, so it is neither read nor written";
constexpr std::string_view kSymlink = "it is a symbolic link, which the tuning cache never follows";
// The lock is held only while one process reads, changes and writes the file (milliseconds): waiting
// longer means a stuck or hostile holder, said in a warning instead of hanging the run.
constexpr std::chrono::seconds kLockWait{5};

}  // namespace

Descriptor open_cache_directory(const fs::path& directory, bool create) {
  if (create) {
    std::error_code error;
    if (!directory.parent_path().empty()) fs::create_directories(directory.parent_path(), error);
    if (error) throw InputError(fmt::format("cannot create '{}': {}", directory.parent_path().string(), error.message()));
    if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST)
      throw InputError(fmt::format("cannot create '{}': {}", directory.string(), std::strerror(errno)));
  }
  Descriptor dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir) {
    const int error = errno;
    if (error == ENOENT && !create) return dir;
    struct stat link {};
    if (::lstat(directory.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
      throw CacheDirectoryRefused(fmt::format("the cache directory '{}': {}", directory.string(), kSymlink));
    throw InputError(fmt::format("cannot open the cache directory '{}': {}", directory.string(), std::strerror(error)));
  }
  struct stat status {};
  if (::fstat(dir.get(), &status) != 0)
    throw InputError(fmt::format("cannot read the cache directory '{}': {}", directory.string(), std::strerror(errno)));
  if (status.st_uid != ::geteuid())
    throw CacheDirectoryRefused(fmt::format("the cache directory '{}' belongs to another user (uid {}), so it is not used",
                                 directory.string(), status.st_uid));
  if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    throw CacheDirectoryRefused(fmt::format("others can write to the cache directory '{}' (mode {:04o}), so it is not used",
                                 directory.string(), status.st_mode & 07777));
  return dir;
}

std::optional<std::string> read_cache_file(int dir, const std::string& name, std::uint64_t limit) {
  Descriptor file(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!file) {
    if (errno == ENOENT) return std::nullopt;
    throw InputError(errno == ELOOP ? std::string(kSymlink) : std::strerror(errno));
  }
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) throw InputError(std::strerror(errno));
  if (!S_ISREG(status.st_mode)) throw InputError(std::string(kNotRegular));
  if (static_cast<std::uint64_t>(status.st_size) > limit)
    throw InputError(fmt::format("it holds {}, more than the {} any set of tuned shapes needs",
                                 describe_bytes(status.st_size), describe_bytes(limit)));
  std::string bytes(static_cast<std::size_t>(status.st_size), '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(file.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(std::strerror(errno));
    if (n == 0) break;  // shrunk meanwhile: the parse says what is wrong
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

void replace_cache_file(int dir, const fs::path& directory, const std::string& name, const std::string& bytes) {
  const std::string path = (directory / name).string();
  if (struct stat existing {}; ::fstatat(dir, name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0 &&
                               !S_ISREG(existing.st_mode))
    throw InputError(fmt::format("'{}': {}", path, S_ISLNK(existing.st_mode) ? kSymlink : kNotRegular));
  static std::atomic<unsigned> counter{0};
  std::string temp;
  Descriptor file;
  for (int attempt = 0; !file; ++attempt) {
    temp = fmt::format("{}.tmp-{}-{}", name, ::getpid(), counter++);
    file = Descriptor(::openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!file && (errno != EEXIST || attempt == 100))
      throw InputError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  }
  const TemporaryFile removed_on_signals((directory / temp).string());  // Ctrl-C leaves no *.tmp-* behind
  int error = 0;
  for (std::size_t written = 0; written < bytes.size() && error == 0;) {
    const ssize_t n = ::write(file.get(), bytes.data() + written, bytes.size() - written);
    if (n > 0)
      written += static_cast<std::size_t>(n);
    else if (n == 0)
      error = EIO;
    else if (errno != EINTR)
      error = errno;
  }
  if (const int closed = file.close(); error == 0) error = closed;
  if (error == 0 && ::renameat(dir, temp.c_str(), dir, name.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlinkat(dir, temp.c_str(), 0);
    throw InputError(fmt::format("cannot write '{}': {}", path, std::strerror(error)));
  }
}

CacheLock::CacheLock(int dir, const fs::path& directory, const std::string& name) {
  const std::string path = (directory / name).string();
  lock_ = Descriptor(::openat(dir, name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
  if (!lock_)
    throw InputError(fmt::format("cannot open the lock file '{}': {}", path,
                                 errno == ELOOP ? std::string(kSymlink) : std::strerror(errno)));
  if (struct stat status {}; ::fstat(lock_.get(), &status) != 0 || !S_ISREG(status.st_mode))
    throw InputError(fmt::format("the lock file '{}': {}", path, kNotRegular));
  const auto deadline = std::chrono::steady_clock::now() + kLockWait;
  while (::flock(lock_.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK)
      throw InputError(fmt::format("cannot lock '{}': {}", path, std::strerror(errno)));
    if (std::chrono::steady_clock::now() >= deadline)
      throw InputError(fmt::format("another process has held the lock '{}' for over {} s", path, kLockWait.count()));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace cc
