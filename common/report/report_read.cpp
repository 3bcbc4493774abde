// report_read.cpp: a saved JSON report back into a Report, every problem one InputError line naming the file.
#include "common/report/report_read.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/domain/error.h"
#include "common/domain/input_file.h"
#include "common/domain/memory.h"

namespace cc {

namespace {

using nlohmann::ordered_json;  // ordered, so environment and properties keep the writer's order

constexpr bool kRequired = true;

// One JSON object and where it sits ("run 3: kernel_ms"), so that every type or presence check
// can name the file, the place and the key in its one line.
class Fields {
 public:
  Fields(const ordered_json& object, std::string_view source, std::string where)
      : object_(object), source_(source), where_(std::move(where)) {
    if (!object_.is_object()) fail(fmt::format("not an object but {}", object_.type_name()));
  }

  [[noreturn]] void fail(std::string_view problem) const {
    throw InputError(fmt::format("{}: {}{}{}", source_, where_, where_.empty() ? "" : ": ", problem));
  }

  // nullptr when the key is absent and not required.
  const ordered_json* find(const char* key, bool required = false) const {
    const auto it = object_.find(key);
    if (it != object_.end()) return &*it;
    if (required) fail(fmt::format("missing \"{}\"", key));
    return nullptr;
  }

  std::string text(const char* key, bool required = false) const {
    const ordered_json* value = find(key, required);
    if (!value || value->is_null()) return {};
    if (!value->is_string()) wrong_type(key, "a string", *value);
    return value->get<std::string>();
  }

  double number(const char* key, bool required = false) const {
    const ordered_json* value = find(key, required);
    if (!value || value->is_null()) return kNotMeasured;  // the writer's null for NaN and not measured
    if (!value->is_number()) wrong_type(key, "a number", *value);
    return value->get<double>();
  }

  int integer(const char* key, bool required = false) const {
    const ordered_json* value = find(key, required);
    if (!value) return 0;
    const bool fits = value->is_number_unsigned()  ? value->get<unsigned long long>() <= INT_MAX
                      : value->is_number_integer() ? value->get<long long>() >= INT_MIN && value->get<long long>() <= INT_MAX
                                                   : false;
    if (!fits) wrong_type(key, "an integer", *value);
    return static_cast<int>(value->get<long long>());
  }

  bool flag(const char* key) const {
    const ordered_json* value = find(key);
    if (!value) return false;
    if (!value->is_boolean()) wrong_type(key, "true or false", *value);
    return value->get<bool>();
  }

  Status status(const char* key) const {
    const std::string name = text(key, kRequired);
    for (Status status : {Status::Ok, Status::Failed, Status::Skipped})
      if (name == to_string(status)) return status;
    fail(fmt::format("\"{}\" is \"{}\", not ok, failed or skipped", key, name));
  }

  // The object under `key`, or nullopt when it is absent and not required.
  std::optional<Fields> object(const char* key, bool required = false) const {
    const ordered_json* value = find(key, required);
    if (!value) return std::nullopt;
    return Fields(*value, source_, where_.empty() ? key : fmt::format("{}: {}", where_, key));
  }

  // Each member's value as a string, in order (environment, device properties).
  std::vector<std::pair<std::string, std::string>> string_pairs() const {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const auto& [key, value] : object_.items()) pairs.emplace_back(key, text(key.c_str()));
    return pairs;
  }

 private:
  [[noreturn]] void wrong_type(const char* key, std::string_view expected, const ordered_json& value) const {
    fail(fmt::format("\"{}\" must be {}, not {}", key, expected, value.is_number() ? value.dump() : value.type_name()));
  }

  const ordered_json& object_;
  std::string_view source_;
  std::string where_;
};

// The array under `key` as one Fields per element, named "run 1", "run 2"... (1-based, as people count).
std::vector<Fields> elements(const ordered_json& array, std::string_view source, std::string_view singular) {
  std::vector<Fields> result;
  for (std::size_t i = 0; i < array.size(); ++i)
    result.emplace_back(array[i], source, fmt::format("{} {}", singular, i + 1));
  return result;
}

Stats read_stats(const Fields& k) {
  Stats stats;
  stats.samples = k.integer("samples", kRequired);
  const double median = k.number("median", kRequired);
  // Without samples the writer writes null placeholders; the record holds summarize({})'s zeros.
  if (stats.samples == 0) return stats;
  stats.median = median;
  stats.min = k.number("min");
  stats.max = k.number("max");
  stats.mean = k.number("mean");
  stats.stddev = k.number("stddev");
  return stats;
}

RunRecord read_run(const Fields& f) {
  RunRecord r;
  r.backend = f.text("backend", kRequired);
  r.device = f.text("device", kRequired);
  r.variant = f.text("variant", kRequired);
  r.filter = f.text("filter", kRequired);
  r.width = f.integer("width", kRequired);
  r.height = f.integer("height", kRequired);
  r.channels = f.integer("channels", kRequired);
  r.radius_x = f.integer("radius_x");
  r.radius_y = f.integer("radius_y");
  r.border = f.text("border", kRequired);
  r.flip = f.flag("flip");
  r.status = f.status("status");
  r.reason = f.text("reason");
  r.max_abs_error = f.number("max_abs_error");
  r.rel_l2_error = f.number("rel_l2_error");
  r.tolerance = f.number("tolerance");
  r.exact = f.flag("exact");
  r.times.kernel_ms = read_stats(*f.object("kernel_ms", kRequired));
  r.times.kernel_batch_ms = f.number("kernel_batch_ms");
  r.times.h2d_ms = f.number("h2d_ms");
  r.times.d2h_ms = f.number("d2h_ms");
  r.times.setup_ms = f.number("setup_ms");
  r.times.build_ms = f.number("build_ms");
  r.times.host_to_host_ms = f.number("host_to_host_ms");
  r.times.reuse_ms = f.number("reuse_ms");
  r.mpix_per_s = f.number("mpix_per_s");
  r.gb_per_s = f.number("gb_per_s");
  r.gflop_per_s = f.number("gflop_per_s");
  r.device_mb = f.number("device_mb");
  r.bound = f.text("bound");
  r.bound_percent = f.number("bound_percent");
  r.memory = f.text("memory");
  r.compile_time = f.text("compile_time");
  r.output = f.text("output");
  return r;
}

StreamRecord read_stream(const Fields& f) {
  StreamRecord s;
  s.backend = f.text("backend", kRequired);
  s.device = f.text("device", kRequired);
  s.variant = f.text("variant", kRequired);
  s.filter = f.text("filter", kRequired);
  s.width = f.integer("width", kRequired);
  s.height = f.integer("height", kRequired);
  s.channels = f.integer("channels", kRequired);
  s.frames = f.integer("frames");
  s.memory = f.text("memory");
  s.status = f.status("status");
  s.reason = f.text("reason");
  s.queues = f.integer("queues");
  s.total_ms = f.number("total_ms");
  s.frames_per_s = f.number("frames_per_s");
  s.serial_ms_per_frame = f.number("serial_ms_per_frame");
  s.pcie_floor_ms_per_frame = f.number("pcie_floor_ms_per_frame");
  s.floor_fraction = f.number("floor_fraction");
  s.max_abs_error = f.number("max_abs_error");
  return s;
}

DeviceInfo read_device(const Fields& f) {
  DeviceInfo d;
  d.backend = f.text("backend");
  d.id = f.text("id");
  d.name = f.text("name");
  if (const auto properties = f.object("properties")) d.properties = properties->string_pairs();
  if (const auto peaks = f.object("peaks")) {
    d.peaks.copy_gb_per_s = peaks->number("copy_gb_per_s");
    d.peaks.fma_gflop_per_s = peaks->number("fma_gflop_per_s");
  }
  return d;
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 3, column 5: "
// prefix, since the line is given in front of it already.
std::string parse_problem(const ordered_json::parse_error& error) {
  const std::string what = error.what();
  const std::size_t column = what.find("column ");
  const std::size_t colon = what.find(": ", column == std::string::npos ? 0 : column);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

Report parse_report(std::string_view text, std::string_view source_name) {
  ordered_json root;
  try {
    root = ordered_json::parse(text.begin(), text.end());
  } catch (const ordered_json::parse_error& error) {
    // error.byte is 1-based: the offending byte is text[byte - 1].
    const std::size_t end = std::min<std::size_t>(error.byte > 0 ? error.byte - 1 : 0, text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n');
    throw InputError(fmt::format("{}: line {}: JSON parse error: {}", source_name, line, parse_problem(error)));
  } catch (const ordered_json::exception& error) {
    // The parser's other failures (a number past double's range: out_of_range.406), without the
    // "[json.exception.out_of_range.406] " prefix.
    const std::string what = error.what();
    const std::size_t prefix_end = what.find("] ");
    throw InputError(fmt::format("{}: JSON parse error: {}", source_name,
                                 prefix_end == std::string::npos ? what : what.substr(prefix_end + 2)));
  }
  if (!root.is_object() || !root.contains("runs") || !root["runs"].is_array())
    throw InputError(fmt::format("{}: not a convcompare report (no \"runs\" array)", source_name));

  const Fields top(root, source_name, "");
  Report report;
  if (const auto tool = top.object("tool")) {
    report.tool_name = tool->text("name");
    report.tool_version = tool->text("version");
  }
  if (const auto environment = top.object("environment")) report.environment = environment->string_pairs();
  for (const char* key : {"devices", "streams"})
    if (const ordered_json* array = top.find(key); array && !array->is_array())
      top.fail(fmt::format("\"{}\" must be an array, not {}", key, array->type_name()));
  if (root.contains("devices"))
    for (const Fields& device : elements(root["devices"], source_name, "device"))
      report.devices.push_back(read_device(device));
  for (const Fields& run : elements(root["runs"], source_name, "run")) report.runs.push_back(read_run(run));
  if (root.contains("streams"))
    for (const Fields& stream : elements(root["streams"], source_name, "stream"))
      report.streams.push_back(read_stream(stream));
  return report;
}

}  // namespace

Report parse_json_report(std::string_view text, std::string_view source_name) {
  try {
    return parse_report(text, source_name);
  } catch (const InputError&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw InputError(fmt::format("{}: {} of JSON is too large to parse in the memory available", source_name,
                                 describe_bytes(text.size())));
  } catch (const std::exception& error) {
    // Whatever else the parser or a conversion throws is still a problem with this file.
    throw InputError(fmt::format("{}: cannot read the report: {}", source_name, error.what()));
  }
}

Report read_json_report(const std::string& path) {
  const std::string text = read_input_file(path, "report", kMaxReportBytes, "reports are parsed whole in memory");
  check_host_memory(text.size() * kReportTreeBytesPerTextByte, fmt::format("parsing report '{}'", path));
  return parse_json_report(text, path);
}

}  // namespace cc
