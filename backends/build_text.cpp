// build_text.cpp: a run-time build's source text and its compiler's log, for every GPU API.
#include "backends/build_text.h"

#include <filesystem>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/domain/error.h"
#include "common/domain/input_file.h"

namespace cc {

namespace {

// Through the one input opener (common/domain/input_file.h): a FIFO or /dev/zero named in --kernel-dir
// is refused, not read forever. nullopt only when the file does not exist.
std::optional<std::string> read_text_file(const std::filesystem::path& path) {
  if (!input_exists(path.string(), "kernel source")) return std::nullopt;
  return read_input_file(path.string(), "kernel source", 16u << 20, "far more than any kernel source needs");
}

// A #line naming `path` as a string literal: a quote or backslash in the path escaped.
std::string line_directive(const std::filesystem::path& path) {
  std::string quoted;
  for (const char c : path.string()) quoted += (c == '"' || c == '\\') ? std::string{'\\', c} : std::string(1, c);
  return fmt::format("#line 1 \"{}\"\n", quoted);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> named_kernel_headers(const std::vector<EmbeddedSource>& sources) {
  std::vector<std::pair<std::string, std::string>> headers;
  for (std::string_view header : kKernelHeaders)
    headers.emplace_back("common/geometry/" + std::string(header), embedded_source(sources, header));
  return headers;
}

std::string program_source(const std::vector<EmbeddedSource>& sources, std::string_view file,
                           const std::string& kernel_dir) {
  std::string source;
  if (kernel_dir.empty()) {
    for (std::string_view header : kKernelHeaders) source += embedded_source(sources, header) + "\n";
    return source + embedded_source(sources, file);
  }
  const std::filesystem::path dir(kernel_dir);
  const std::optional<std::string> kernel = read_text_file(dir / file);
  if (!kernel) throw InputError(fmt::format("--kernel-dir {}: cannot read {}", kernel_dir, file));
  for (std::string_view header : kKernelHeaders) {
    const std::optional<std::string> own = read_text_file(dir / header);
    source += own ? line_directive(dir / header) + *own
                  : "#line 1 \"" + std::string(header) + "\"\n" + embedded_source(sources, header);
    source += "\n";
  }
  return source + line_directive(dir / file) + *kernel;
}

std::vector<std::string> error_lines(const std::string& log, std::size_t most) {
  std::istringstream lines(log);
  std::vector<std::string> errors;
  std::string line;
  while (errors.size() < most && std::getline(lines, line))
    if (line.find("error") != std::string::npos) errors.push_back(line);
  return errors;
}

std::optional<std::string> first_compiler_error(const std::string& log) {
  static const std::regex diagnostic(R"(^(?:error: )?(.*:[0-9]+:[0-9]+: )(?:error: )?(.*)$)");
  std::istringstream lines(log);
  std::string line;
  std::smatch parts;
  while (std::getline(lines, line))
    if (line.find("error") != std::string::npos && std::regex_match(line, parts, diagnostic))
      return parts[1].str() + parts[2].str();
  return std::nullopt;
}

std::string summarize_build_log(const std::string& log) {
  const std::vector<std::string> errors = error_lines(log, 3);
  if (!errors.empty()) return fmt::format("{}", fmt::join(errors, " | "));
  const std::string first = first_log_line(log);
  return first.empty() ? "empty build log" : first;
}

std::string first_log_line(const std::string& log) {
  std::istringstream lines(log);
  std::string line;
  while (line.empty() && std::getline(lines, line)) {}
  return line;
}

}  // namespace cc
