// atomic_write.cpp: write_file_atomically: a temporary file beside the destination and a rename, keeping a replaced file's mode and owner; symlinks and devices written through.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "common/domain/temporary_files.h"

namespace cc {

void write_file_atomically(const std::string& path, const std::string& bytes) {
  auto failure = [&path](int error) {
    return InputError(fmt::format("cannot write '{}': {}", path, std::strerror(error)));
  };
  // Writes everything, closes, and returns 0 or the first errno.
  auto write_and_close = [&bytes](int fd) {
    int error = 0;
    for (std::size_t written = 0; written < bytes.size() && error == 0;) {
      const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
      if (n > 0)
        written += static_cast<std::size_t>(n);
      else if (n == 0)
        error = EIO;  // no progress and no errno: give up rather than spin
      else if (errno != EINTR)
        error = errno;
    }
    if (::close(fd) != 0 && error == 0) error = errno;
    return error;
  };

  // A rename would replace a symlink or a device such as /dev/stdout (itself a symlink) with a plain
  // file: write through those instead; only regular files and new names get the atomic rename.
  std::error_code ignored;
  const std::filesystem::file_status status = std::filesystem::symlink_status(path, ignored);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    // O_NONBLOCK: opening a FIFO that no process reads fails (ENXIO) instead of waiting forever.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0666);
    if (fd < 0 && errno == ENXIO)
      throw InputError(fmt::format("cannot write '{}': it is a FIFO and no process is reading it", path));
    if (fd < 0) throw failure(errno);
    if (const int flags = ::fcntl(fd, F_GETFL); flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (const int error = write_and_close(fd); error != 0) throw failure(error);
    return;
  }

  // A file being replaced keeps its mode (a private 0600 report stays private) and, where the system
  // lets us, its owner; until then the temporary is 0600, so its bytes are never more readable than
  // the old file's. A new name gets the usual umask permissions. Hard links to the old file keep the
  // old contents: the rename gives the name a new file (docs/correctness.md, "Output files").
  struct stat replaced {};
  const bool replacing = ::stat(path.c_str(), &replaced) == 0 && S_ISREG(replaced.st_mode);
  // O_EXCL on a name unique to this process and call, rather than mkstemp, so a new file gets the
  // usual umask permissions instead of mkstemp's 0600.
  static std::atomic<unsigned> counter{0};
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temp = fmt::format("{}.tmp-{}-{}", path, ::getpid(), counter++);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, replacing ? 0600 : 0666);
    if (fd < 0 && (errno != EEXIST || attempt == 100)) throw failure(errno);
  }
  const TemporaryFile removed_on_signals(temp);  // Ctrl-C while writing leaves no *.tmp-* behind
  int error = 0;
  if (replacing) {
    // The owner first: a change of owner clears set-id bits, which the mode then restores.
    if (replaced.st_uid != ::geteuid() || replaced.st_gid != ::getegid())
      if (::fchown(fd, replaced.st_uid, replaced.st_gid) != 0) {
        // Only root may give a file away: the new file is then ours, with the old mode.
      }
    if (::fchmod(fd, replaced.st_mode & 07777) != 0) error = errno;
  }
  if (error == 0) {
    error = write_and_close(fd);
  } else {
    ::close(fd);
  }
  std::error_code renamed;
  if (error == 0) {
    std::filesystem::rename(temp, path, renamed);
    error = renamed.value();
  }
  if (error != 0) {
    std::filesystem::remove(temp, ignored);
    throw failure(error);
  }
}

}  // namespace cc
