// build_text.h: the text of a run-time build for every GPU API: the headers each kernel reads, a program's source from the embedded copies or --kernel-dir, and what its compiler's log says.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/embedded_sources.h"

namespace cc {

// The headers every kernel reads, in order (common/geometry/): embedded beside each API's kernels.
inline constexpr std::string_view kKernelHeaders[] = {"conv_args.h", "pixel.h"};

// The headers as a compiler that takes them by include name is handed them (NVRTC reads no files):
// ("common/geometry/conv_args.h", its text), ... from `sources`.
std::vector<std::pair<std::string, std::string>> named_kernel_headers(const std::vector<EmbeddedSource>& sources);

// The kernel headers followed by `file`, as one text for a compiler that takes a program whole (the
// kernels do not #include them, so it needs no include path): from `sources`, or from `kernel_dir` where
// it is not empty, where a header found in the directory replaces the embedded one and each part opens
// with a #line naming its file, so the compiler's diagnostic points into the user's file. InputError
// where `kernel_dir` has no readable `file` (or a FIFO or device by that name).
std::string program_source(const std::vector<EmbeddedSource>& sources, std::string_view file,
                           const std::string& kernel_dir);

// The first `most` lines of a compiler's log that say "error", in order.
std::vector<std::string> error_lines(const std::string& log, std::size_t most);

// A compiler diagnostic's line ("error: FILE:LINE:COL: message" from PoCL, "FILE:LINE:COL: error: message"
// from clang-based drivers), its "error: " taken out; nullopt when the log holds none.
std::optional<std::string> first_compiler_error(const std::string& log);

// The log's error lines (at most 3, joined by " | "), else its first line, else "empty build log": for an
// error's one line, the whole log travelling beside it.
std::string summarize_build_log(const std::string& log);

// The log's first non-empty line, or "".
std::string first_log_line(const std::string& log);

}  // namespace cc
