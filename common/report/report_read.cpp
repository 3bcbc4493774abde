// report_read.cpp: a saved JSON report back into a Report, every problem one InputError line naming the file.
#include "common/report/report_read.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/domain/error.h"
#include "common/domain/input_file.h"
#include "common/domain/json_nesting.h"
#include "common/domain/memory.h"
#include "common/report/fields.h"

namespace cc {

namespace {

using nlohmann::ordered_json;  // ordered, so environment and properties keep the writer's order

// One JSON object and where it sits ("run 3: kernel_ms"), so that every type or presence check
// can name the file, the place and the key in its one line.
class JsonObject {
 public:
  JsonObject(const ordered_json& object, std::string_view source, std::string where)
      : object_(object), source_(source), where_(std::move(where)) {
    if (!object_.is_object()) fail(fmt::format("not an object but {}", object_.type_name()));
  }

  [[noreturn]] void fail(std::string_view problem) const {
    throw InputError(fmt::format("{}: {}{}{}", source_, where_, where_.empty() ? "" : ": ", problem));
  }

  // nullptr when the key is absent and not required.
  const ordered_json* find(std::string_view key, bool required = false) const {
    const auto it = object_.find(std::string(key));
    if (it != object_.end()) return &*it;
    if (required) fail(fmt::format("missing \"{}\"", key));
    return nullptr;
  }

  // The value under `key` as `kind`. Null is the writer's nothing: empty text, kNotMeasured; a key
  // that is absent (and not required) reads as null, or as nullopt for the kinds that cannot be
  // null (an integer, a flag, pairs), which keep the record's default.
  std::optional<FieldValue> value(std::string_view key, FieldKind kind, bool required,
                                  bool default_when_missing = false) const {
    static const ordered_json missing_as_null;
    const ordered_json* value = find(key, required);
    if (!value && (default_when_missing || (kind != FieldKind::Text && kind != FieldKind::Number))) return std::nullopt;
    if (value && value->is_null() && (kind == FieldKind::Numbers || kind == FieldKind::Texts)) return std::nullopt;
    if (!value) value = &missing_as_null;
    switch (kind) {
      case FieldKind::Text: return text(key, *value);
      case FieldKind::Number:
        if (value->is_null()) return kNotMeasured;
        if (!value->is_number()) wrong_type(key, "a number", *value);
        return value->get<double>();
      case FieldKind::Integer: {
        if (value->is_null()) return std::nullopt;  // an integer whose default means none (kNullWhenDefault)
        const bool fits = value->is_number_unsigned()  ? value->get<unsigned long long>() <= INT_MAX
                          : value->is_number_integer() ? value->get<long long>() >= INT_MIN && value->get<long long>() <= INT_MAX
                                                       : false;
        if (!fits) wrong_type(key, "an integer", *value);
        return static_cast<int>(value->get<long long>());
      }
      case FieldKind::Flag:
        if (!value->is_boolean()) wrong_type(key, "true or false", *value);
        return value->get<bool>();
      case FieldKind::Status: {
        const std::string name = text(key, *value);
        for (Status status : {Status::Ok, Status::Failed, Status::Skipped})
          if (name == to_string(status)) return status;
        fail(fmt::format("\"{}\" is \"{}\", not ok, failed or skipped", key, name));
      }
      case FieldKind::Pairs: return JsonObject(*value, source_, place_of(key)).string_pairs();
      case FieldKind::Numbers: {
        if (!value->is_array()) wrong_type(key, "an array of numbers", *value);
        std::vector<double> numbers;
        for (const ordered_json& item : *value) {
          if (!item.is_number()) wrong_type(key, "an array of numbers", item);
          numbers.push_back(item.get<double>());
        }
        return numbers;
      }
      case FieldKind::Texts: {
        if (!value->is_array()) wrong_type(key, "an array of strings", *value);
        std::vector<std::string> texts;
        for (const ordered_json& item : *value) texts.push_back(text(key, item));
        return texts;
      }
    }
    throw std::logic_error("a report field of no known kind");
  }

  // The object under `key`, or nullopt when it is absent and not required.
  std::optional<JsonObject> object(std::string_view key, bool required = false) const {
    const ordered_json* value = find(key, required);
    if (!value) return std::nullopt;
    return JsonObject(*value, source_, place_of(key));
  }

  // Each member's value as a string, in order (environment, device properties).
  TextPairs string_pairs() const {
    TextPairs pairs;
    for (const auto& [key, value] : object_.items()) pairs.emplace_back(key, text(key, value));
    return pairs;
  }

 private:
  std::string text(std::string_view key, const ordered_json& value) const {
    if (value.is_null()) return {};
    if (!value.is_string()) wrong_type(key, "a string", value);
    return value.get<std::string>();
  }

  std::string place_of(std::string_view key) const {
    return where_.empty() ? std::string(key) : fmt::format("{}: {}", where_, key);
  }

  [[noreturn]] void wrong_type(std::string_view key, std::string_view expected, const ordered_json& value) const {
    fail(fmt::format("\"{}\" must be {}, not {}", key, expected, value.is_number() ? value.dump() : value.type_name()));
  }

  const ordered_json& object_;
  std::string_view source_;
  std::string where_;
};

// The array under `key` as one JsonObject per element, named "run 1", "run 2"... (1-based, as people count).
std::vector<JsonObject> elements(const ordered_json& array, std::string_view source, std::string_view singular) {
  std::vector<JsonObject> result;
  for (std::size_t i = 0; i < array.size(); ++i)
    result.emplace_back(array[i], source, fmt::format("{} {}", singular, i + 1));
  return result;
}

// A field that holds a measured amount in a unit (milliseconds: its key holds _ms or it sits in the
// kernel_ms group; seconds and rates per second, _s; megabytes, _mb; percent): a negative one is no
// measurement but a corrupt or forged report, which --compare would test and every format print as it stands.
template <typename Record>
bool is_amount(const Field<Record>& field) {
  const std::string_view key = field.name;
  return key.find("_ms") != std::string_view::npos || field.group == "kernel_ms" || key.ends_with("_s") ||
         key.ends_with("_mb") || key.ends_with("_percent");
}

void refuse_negative(const JsonObject& object, std::string_view key, const FieldValue& value, bool in_kernel_ms) {
  const bool time = key.find("_ms") != std::string_view::npos || (in_kernel_ms && key != "noise_percent");
  const auto refuse = [&](double number) {
    if (number < 0)
      object.fail(fmt::format("\"{}\" is {:g}: {} cannot be negative", key, number, time ? "a time" : "a measured amount"));
  };
  if (const double* number = std::get_if<double>(&value)) refuse(*number);
  if (const auto* numbers = std::get_if<std::vector<double>>(&value)) std::ranges::for_each(*numbers, refuse);
}

// One record from its object by its table: every field the object has, checked against its kind;
// a missing required field (or group) is an error, a missing optional one keeps the default.
template <typename Record>
Record read_record(const JsonObject& object, const std::vector<Field<Record>>& fields) {
  auto group_required = [&](std::string_view group) {
    return std::ranges::any_of(fields, [&](const Field<Record>& f) { return f.group == group && f.required; });
  };
  Record record;
  for (const Field<Record>& field : fields) {
    const std::optional<JsonObject> holder =
        field.group.empty() ? std::optional(object) : object.object(field.group, group_required(field.group));
    if (!holder) continue;  // an optional group, absent
    if (auto value = holder->value(field.name, field.kind, field.required, field.default_when_missing)) {
      if (is_amount(field)) refuse_negative(*holder, field.name, *value, field.group == "kernel_ms");
      field.set(record, std::move(*value));
    }
  }
  for (const Field<Record>& field : fields)
    if (field.meaningful && !field.meaningful(record)) field.set(record, field.get(Record{}));
  return record;
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
    root = parse_json_nested<ordered_json>(text);
  } catch (const JsonTooDeep& error) {
    throw InputError(fmt::format("{}: {}", source_name, error.what()));
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

  // Version 1 (no schema_version) is read as it is: its newer fields keep their defaults. A newer
  // version may mean something else by the same keys: refused in one line rather than misread.
  int version = 1;
  if (const auto found = root.find("schema_version"); found != root.end()) {
    if (!found->is_number_integer() || found->get<long long>() < 1)
      throw InputError(fmt::format("{}: \"schema_version\" must be a positive integer, not {}", source_name,
                                   found->is_number() ? found->dump() : found->type_name()));
    if (found->get<long long>() > kSchemaVersion)
      throw InputError(fmt::format("{}: written with report schema_version {}, newer than this convcompare reads "
                                   "(1 to {}): use a newer convcompare",
                                   source_name, found->dump(), kSchemaVersion));
    version = static_cast<int>(found->get<long long>());
  }
  const JsonObject top(root, source_name, "");
  Report report = read_record(top, report_fields());
  report.schema_version = version;
  for (const char* key : {"devices", "streams"})
    if (const ordered_json* array = top.find(key); array && !array->is_array())
      top.fail(fmt::format("\"{}\" must be an array, not {}", key, array->type_name()));
  if (root.contains("devices"))
    for (const JsonObject& device : elements(root["devices"], source_name, "device"))
      report.devices.push_back(read_record(device, device_fields()));
  for (const JsonObject& run : elements(root["runs"], source_name, "run")) report.runs.push_back(read_record(run, run_fields()));
  if (root.contains("streams"))
    for (const JsonObject& stream : elements(root["streams"], source_name, "stream"))
      report.streams.push_back(read_record(stream, stream_fields()));
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
