// input_file.h: the one way convcompare opens a file a user names: never blocking, every type checked, every read capped.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "common/domain/error.h"

namespace cc {

// How long opening a FIFO waits for a process to start writing to it before refusing it.
inline constexpr std::chrono::milliseconds kFifoWriterWait{5000};

// A file opened for reading: a regular file (its size known), or a pipe, FIFO or character device
// (/dev/stdin, /dev/zero), read as a stream. Directories, sockets, block devices and terminals are
// refused. Opening never blocks: a FIFO is opened without waiting for a writer, then given
// kFifoWriterWait to get one. Every failure (no such file, a name too long, a symlink loop, no
// permission, a read error) is one InputError line: "cannot open image 'x': Permission denied".
// The first bytes can be peeked without consuming them, so a format is recognised on a pipe too.
class InputFile {
 public:
  // `what` names the file in messages: "image", "filter file", "report".
  InputFile(std::string path, std::string what);
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&&) = delete;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  // "image 'photo.png'", for messages.
  std::string name() const;
  bool regular() const { return size_.has_value(); }
  // Bytes not read yet, where the size is known (a regular file); nullopt for a stream.
  std::optional<std::uint64_t> bytes_left() const;
  std::uint64_t bytes_read() const { return consumed_; }

  // Up to `count` bytes from the current position, left unread (fewer only at the end of the input).
  std::string_view peek(std::size_t count);
  // Reads up to `count` bytes; returns how many (0 only at the end of the input).
  std::size_t read_some(void* out, std::size_t count);
  // Reads exactly `count` bytes; false when the input ends first (what arrived is in `out`).
  bool read_exact(void* out, std::size_t count);
  bool at_end() { return peek(1).empty(); }
  // Up to `count` bytes, fewer at the end of the input; the buffer grows with what arrives, never ahead.
  std::string read_up_to(std::uint64_t count);
  // Everything left, refused with an InputError naming the limit and `why` when it holds more than
  // `limit` bytes (a regular file by its size, before reading; a stream once it passes the limit).
  std::string read_rest(std::uint64_t limit, std::string_view why);

  // An InputError "<name>: problem" to throw.
  InputError error(std::string_view problem) const;
  [[noreturn]] void fail(std::string_view problem) const { throw error(problem); }

 private:
  std::size_t fill(std::size_t wanted);  // reads into the look-ahead buffer until it holds `wanted` bytes

  std::string path_, what_;
  int fd_ = -1;
  std::optional<std::uint64_t> size_;  // a regular file's size at open
  std::uint64_t consumed_ = 0;         // bytes handed to the caller
  std::string lookahead_;              // read from the file, not yet handed out
  bool end_ = false;                   // the file has no more bytes
};

// The whole file, at most `limit` bytes (`why` says what the limit protects, for the message).
std::string read_input_file(const std::string& path, std::string_view what, std::uint64_t limit, std::string_view why);

// Whether `path` names an existing file (following symlinks); false for a broken link or no entry.
// An InputError for the errors that make the question unanswerable (a symlink loop, a name too long,
// no permission to search a directory), so they are reported instead of read as "absent".
bool input_exists(const std::string& path, std::string_view what);

// Where a write to `path` lands, absolute and normal: existing symlinks resolved, and dangling ones
// followed to the name the write would create.
std::filesystem::path write_destination(const std::string& path);

// One key per file a path reaches, so two paths collide exactly when their keys are equal: an existing
// regular file by its device and inode (hard links, symlinks and "./" spellings agree), a name no file
// has yet by write_destination. "" for pipes and devices (/dev/stdout, /dev/null), which may be shared:
// each write goes through.
std::string file_identity(const std::string& path);

// Whether two paths name one regular file, or one name no file has yet (so a write to one would
// replace the other): their file_identity is equal and not "".
bool same_file(const std::string& a, const std::string& b);

// "2.5 GB", "180 MB", "12 KB", "300 bytes": sizes as the messages give them.
std::string describe_bytes(std::uint64_t bytes);

}  // namespace cc
