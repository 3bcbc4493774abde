// temporary_files.h: temporary files removed when SIGINT, SIGTERM or SIGHUP ends the process before they are renamed.
#pragma once

#include <string>

namespace cc {

// Installs (once) handlers for SIGINT, SIGTERM and SIGHUP that remove every registered temporary file,
// then end the process by the same signal as before. main() calls it first thing.
void remove_temporaries_on_signals();

// Registers `path` while it lives; it neither creates nor removes the file (the caller renames or
// removes it). Up to 64 at once (more are simply not registered), paths under 4096 bytes.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& path);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace cc
