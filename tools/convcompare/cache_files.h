// cache_files.h: the tuning cache's file access: a checked directory opened once, files in it read, replaced and locked relative to it, never through a symlink.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/domain/error.h"

namespace cc {

// A cache directory refused for what it is (a symlink, another user's, writable by others), as against
// one that cannot be opened or made: the first is never used, the second is tried again on each store.
class CacheDirectoryRefused : public InputError {
 public:
  using InputError::InputError;
};

// A file descriptor, closed with the object.
class Descriptor {
 public:
  explicit Descriptor(int fd = -1) : fd_(fd) {}
  ~Descriptor() { close(); }
  Descriptor(Descriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Descriptor& operator=(Descriptor&& other) noexcept {
    close();
    fd_ = std::exchange(other.fd_, -1);
    return *this;
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  // 0 or the errno of close (a write error on some file systems is reported only there).
  int close() {
    const int error = fd_ >= 0 && ::close(fd_) != 0 ? errno : 0;
    fd_ = -1;
    return error;
  }

 private:
  int fd_;
};

// The cache directory, opened so that every file in it is reached by openat relative to this descriptor
// with O_NOFOLLOW: nothing another user plants (in a shared temp directory) is ever followed. Refused
// with an InputError when it is a symlink or not a directory, belongs to another user, or others can
// write to it (they could then swap its files); an empty descriptor when it does not exist and `create`
// is false. Made 0700 when missing (its parents with the usual permissions).
Descriptor open_cache_directory(const std::filesystem::path& directory, bool create);

// The whole file `name` in `dir`, at most `limit` bytes; nullopt when there is none. O_NOFOLLOW and
// O_NONBLOCK: a symlink, FIFO or device in its place is refused, never followed or waited on.
std::optional<std::string> read_cache_file(int dir, const std::string& name, std::uint64_t limit);

// Replaces `name` in `dir` by a new 0600 file holding `bytes`: written to a temporary beside it
// (O_EXCL | O_NOFOLLOW) and renamed over it within the directory. Whatever is not a regular file in its
// place (a FIFO, a symlink) is left alone and refused.
void replace_cache_file(int dir, const std::filesystem::path& directory, const std::string& name, const std::string& bytes);

// An exclusive flock on "<name>" in `dir` (created 0600 if missing, never through a symlink), held while
// the object lives: the lock file sits beside the cache, since the cache itself is replaced by a rename
// and a lock on it would not last. Waits a few seconds at most for another holder
// (kLockWait, cache_files.cpp), then throws instead of hanging the run.
class CacheLock {
 public:
  CacheLock(int dir, const std::filesystem::path& directory, const std::string& name);

 private:
  Descriptor lock_;  // closing it releases the lock
};

}  // namespace cc
