// input_file.cpp: opening user-named files without blocking (O_NONBLOCK, then a bounded wait for a FIFO's writer) and capped reads.
#include "common/domain/input_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

namespace cc {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadChunk = 1 << 16;

std::string system_message(int error) { return std::strerror(error); }

}  // namespace

std::filesystem::path write_destination(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path current = fs::absolute(path, error);
  if (error) return fs::path(path).lexically_normal();
  // A dangling symlink is written through (the write creates its target): follow it by hand, as far as
  // the kernel would (40 links), since weakly_canonical stops at the first name that does not exist.
  for (int links = 0; links < 40; ++links) {
    const fs::file_status status = fs::symlink_status(current, error);
    if (error || !fs::is_symlink(status) || fs::exists(current, error)) break;
    const fs::path target = fs::read_symlink(current, error);
    if (error) break;
    current = (target.is_absolute() ? target : current.parent_path() / target).lexically_normal();
  }
  const fs::path canonical = fs::weakly_canonical(current, error);
  return error ? current.lexically_normal() : canonical;
}

std::string file_identity(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (!S_ISREG(info.st_mode)) return "";
    return fmt::format("inode {}:{}", static_cast<unsigned long long>(info.st_dev),
                       static_cast<unsigned long long>(info.st_ino));
  }
  return "path " + write_destination(path).string();
}

bool same_file(const std::string& a, const std::string& b) {
  const std::string first = file_identity(a);
  return !first.empty() && first == file_identity(b);
}

std::string describe_bytes(std::uint64_t bytes) {
  constexpr std::uint64_t kKb = 1024, kMb = kKb * 1024, kGb = kMb * 1024;
  if (bytes >= kGb) return fmt::format("{:.1f} GB", static_cast<double>(bytes) / kGb);
  if (bytes >= 10 * kMb) return fmt::format("{} MB", bytes / kMb);
  if (bytes >= kMb) return fmt::format("{:.1f} MB", static_cast<double>(bytes) / kMb);
  if (bytes >= 10 * kKb) return fmt::format("{} KB", bytes / kKb);
  return fmt::format("{} bytes", bytes);
}

InputFile::InputFile(std::string path, std::string what) : path_(std::move(path)), what_(std::move(what)) {
  if (path_.empty()) fail("the name is empty");
  // O_NONBLOCK: opening a FIFO for reading then returns at once even with no writer; O_NOCTTY: a
  // terminal named here never becomes the controlling one.
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd_ < 0) {
    const int error = errno;
    struct stat info {};
    // open() says ENXIO ("No such device or address") for a socket: name what it is instead.
    if (error == ENXIO && ::stat(path_.c_str(), &info) == 0 && S_ISSOCK(info.st_mode))
      throw InputError(fmt::format("cannot open {} '{}': it is a socket", what_, path_));
    throw InputError(fmt::format("cannot open {} '{}': {}", what_, path_, system_message(error)));
  }
  struct stat info {};
  if (::fstat(fd_, &info) != 0) {
    const int error = errno;
    ::close(fd_);
    throw InputError(fmt::format("cannot open {} '{}': {}", what_, path_, system_message(error)));
  }
  const auto refuse = [&](std::string_view reason) {
    ::close(fd_);
    fd_ = -1;
    throw InputError(fmt::format("cannot open {} '{}': {}", what_, path_, reason));
  };
  if (S_ISDIR(info.st_mode)) refuse("it is a directory");
  if (S_ISBLK(info.st_mode)) refuse("it is a block device (a disk), not a file");
  if (S_ISCHR(info.st_mode) && ::isatty(fd_)) refuse("it is a terminal: redirect a file or pipe one in instead");
  if (!S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode) && !S_ISCHR(info.st_mode))
    refuse("it is not a regular file, a pipe or a character device");
  if (S_ISREG(info.st_mode)) size_ = static_cast<std::uint64_t>(info.st_size);

  if (S_ISFIFO(info.st_mode)) {
    // A non-blocking read tells the cases apart: data (a writer is or was there), EAGAIN (a writer
    // is connected and has not written yet), or 0 (no writer at the moment). With no writer, wait
    // for one in short polls: POLLHUP after a writer came and went means an empty input.
    const Clock::time_point deadline = Clock::now() + kFifoWriterWait;
    bool hung_up = false;
    for (;;) {
      char buffer[kReadChunk];
      const ssize_t got = ::read(fd_, buffer, sizeof buffer);
      if (got > 0) {
        lookahead_.assign(buffer, static_cast<std::size_t>(got));
        break;
      }
      if (got < 0 && errno == EINTR) continue;
      if (got < 0 && errno == EAGAIN) break;
      if (got < 0) refuse(system_message(errno));
      if (hung_up) {
        end_ = true;
        break;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0)
        refuse(fmt::format("it is a FIFO and no process opened it for writing within {} s (start the writer "
                           "first, or pipe the data in)",
                           kFifoWriterWait.count() / 1000.0));
      pollfd poll_fd{fd_, POLLIN, 0};
      if (::poll(&poll_fd, 1, static_cast<int>(std::min<long long>(left, 50))) > 0 && (poll_fd.revents & POLLHUP))
        hung_up = true;  // read once more: what the writer left, or the end
    }
  }
  // From here on a read waits for its data, as any reader of a pipe does.
  if (const int flags = ::fcntl(fd_, F_GETFL); flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

InputFile::InputFile(InputFile&& other) noexcept
    : path_(std::move(other.path_)),
      what_(std::move(other.what_)),
      fd_(std::exchange(other.fd_, -1)),
      size_(other.size_),
      consumed_(other.consumed_),
      lookahead_(std::move(other.lookahead_)),
      end_(other.end_) {}

std::string InputFile::name() const { return fmt::format("{} '{}'", what_, path_); }

InputError InputFile::error(std::string_view problem) const {
  return InputError(fmt::format("{}: {}", name(), problem));
}

std::optional<std::uint64_t> InputFile::bytes_left() const {
  if (!size_) return std::nullopt;
  return *size_ > consumed_ ? *size_ - consumed_ : 0;
}

std::size_t InputFile::fill(std::size_t wanted) {
  while (lookahead_.size() < wanted && !end_) {
    char buffer[kReadChunk];
    const ssize_t got = ::read(fd_, buffer, sizeof buffer);
    if (got > 0)
      lookahead_.append(buffer, static_cast<std::size_t>(got));
    else if (got == 0)
      end_ = true;
    else if (errno != EINTR)
      throw InputError(fmt::format("cannot read {}: {}", name(), system_message(errno)));
  }
  return std::min(wanted, lookahead_.size());
}

std::string_view InputFile::peek(std::size_t count) {
  const std::size_t available = fill(count);  // first: it may reallocate the buffer
  return std::string_view(lookahead_).substr(0, available);
}

std::size_t InputFile::read_some(void* out, std::size_t count) {
  if (count == 0) return 0;
  if (lookahead_.empty() && !end_ && count >= kReadChunk) {
    // Large reads go straight into the caller's buffer.
    for (;;) {
      const ssize_t got = ::read(fd_, out, count);
      if (got > 0) {
        consumed_ += static_cast<std::uint64_t>(got);
        return static_cast<std::size_t>(got);
      }
      if (got == 0) {
        end_ = true;
        return 0;
      }
      if (errno != EINTR) throw InputError(fmt::format("cannot read {}: {}", name(), system_message(errno)));
    }
  }
  const std::size_t got = fill(std::min(count, kReadChunk));
  std::memcpy(out, lookahead_.data(), got);
  lookahead_.erase(0, got);
  consumed_ += got;
  return got;
}

bool InputFile::read_exact(void* out, std::size_t count) {
  auto* bytes = static_cast<char*>(out);
  for (std::size_t done = 0; done < count;) {
    const std::size_t got = read_some(bytes + done, count - done);
    if (got == 0) return false;
    done += got;
  }
  return true;
}

std::string InputFile::read_rest(std::uint64_t limit, std::string_view why) {
  // The message speaks of the whole file: what was read before this call counts on both sides.
  const std::uint64_t before = consumed_;
  const auto too_large = [&](std::string size) {
    return error(fmt::format("{} over the {} limit ({})", size, describe_bytes(before + limit), why));
  };
  if (const std::optional<std::uint64_t> left = bytes_left(); left && *left > limit) {
    const std::uint64_t total = before + *left;
    throw too_large(fmt::format("it holds {},", describe_bytes(total) != describe_bytes(before + limit)
                                                    ? describe_bytes(total)
                                                    : fmt::format("{} bytes", total)));
  }
  // One byte past the limit tells "exactly at the limit" from "over it".
  std::string text = read_up_to(limit + 1);
  if (text.size() > limit) throw too_large("it is");
  return text;
}

std::string InputFile::read_up_to(std::uint64_t count) {
  std::string text;
  while (text.size() < count) {
    const std::size_t before = text.size();
    text.resize(before + static_cast<std::size_t>(std::min<std::uint64_t>(count - before, kReadChunk)));
    const std::size_t got = read_some(text.data() + before, text.size() - before);
    text.resize(before + got);
    if (got == 0) break;
  }
  return text;
}

std::string read_input_file(const std::string& path, std::string_view what, std::uint64_t limit,
                            std::string_view why) {
  return InputFile(path, std::string(what)).read_rest(limit, why);
}

bool input_exists(const std::string& path, std::string_view what) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) return true;
  const int error = errno;
  if (error == ENOENT) return false;
  throw InputError(fmt::format("cannot open {} '{}': {}", what, path, system_message(error)));
}

}  // namespace cc
