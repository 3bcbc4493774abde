// fields.h: every report field named once, with how to get it from its record and set it back: the one source of the CSV columns, the JSON writer and the JSON reader.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "common/report/report.h"

namespace cc {

// Ordered names and values (the environment, a device's properties): a JSON object of strings.
using TextPairs = std::vector<std::pair<std::string, std::string>>;

// What a field holds; the same order as FieldValue's alternatives after std::monostate. Numbers: a
// JSON array of numbers (raw samples), Texts: of strings (the command line).
enum class FieldKind { Text, Number, Integer, Flag, Status, Pairs, Numbers, Texts };

// A field's value; std::monostate is nothing to write (JSON null, an empty CSV cell).
using FieldValue = std::variant<std::monostate, std::string, double, int, bool, Status, TextPairs, std::vector<double>,
                                std::vector<std::string>>;

template <typename Value>
constexpr FieldKind field_kind() {
  if constexpr (std::is_same_v<Value, std::string>) return FieldKind::Text;
  else if constexpr (std::is_same_v<Value, double>) return FieldKind::Number;
  else if constexpr (std::is_same_v<Value, int>) return FieldKind::Integer;
  else if constexpr (std::is_same_v<Value, bool>) return FieldKind::Flag;
  else if constexpr (std::is_same_v<Value, Status>) return FieldKind::Status;
  else if constexpr (std::is_same_v<Value, std::vector<double>>) return FieldKind::Numbers;
  else if constexpr (std::is_same_v<Value, std::vector<std::string>>) return FieldKind::Texts;
  else {
    static_assert(std::is_same_v<Value, TextPairs>, "a report field is text, a number, an integer, a flag, a status, pairs or a list");
    return FieldKind::Pairs;
  }
}

template <typename Record>
struct Field {
  std::string_view name;  // the JSON key
  FieldKind kind;
  FieldValue (*get)(const Record&);
  void (*set)(Record&, FieldValue);  // takes a value of `kind`
  // The JSON object this field is nested in ("kernel_ms"), which flattens to a CSV column prefix
  // ("kernel_ms_median"); empty for a top-level field.
  std::string_view group;
  // The reader refuses a record without it. A field that is not required may be missing (reports of
  // older versions lack the newer fields) and reads as null would (empty text, kNotMeasured), or
  // keeps the record's default where null is no value (an integer, a flag, pairs). A group is
  // required when any of its fields is.
  bool required = false;
  // When this says no, the value is a placeholder: written as nothing and read back as the default.
  bool (*meaningful)(const Record&) = nullptr;
  // Missing from a report (one older than the field), the record's default stands, not null: a report
  // from before "pixel" existed ran f32.
  bool default_when_missing = false;

  std::string column() const { return group.empty() ? std::string(name) : std::string(group) + "_" + std::string(name); }
  FieldValue written(const Record& record) const {
    return meaningful && !meaningful(record) ? FieldValue{} : get(record);
  }
};

struct FieldOptions {
  std::string_view group;
  bool required = false;
  // The default means "none" (no reason given): written as null, not as the default.
  bool null_when_default = false;
  bool default_when_missing = false;  // Field::default_when_missing
};
inline constexpr FieldOptions kRequired{.group = {}, .required = true};
inline constexpr FieldOptions kNullWhenDefault{.group = {}, .required = false, .null_when_default = true};
inline constexpr FieldOptions kDefaultWhenMissing{.group = {}, .required = false, .null_when_default = false, .default_when_missing = true};

namespace field_detail {

template <typename Member>
struct ClassOf;
template <typename Class, typename Value>
struct ClassOf<Value Class::*> {
  using type = Class;
};

// The member at the end of the chain `path` (pointers to members, outermost first), const or not as `object`.
template <auto... path, typename Object>
constexpr auto& reach(Object& object) {
  return (object .* ... .* path);
}

template <typename Record, auto... path>
bool differs_from_default(const Record& record) {
  static const Record none{};
  return reach<path...>(record) != reach<path...>(none);
}

}  // namespace field_detail

// A field stored at the end of a chain of members, its kind from the member's type:
//   field<&RunRecord::backend>("backend", kRequired)
//   field<&RunRecord::times, &PhaseTimes::h2d_ms>("h2d_ms")
//   field<&RunRecord::times, &PhaseTimes::untimed>("untimed", kNullWhenDefault)
template <auto first, auto... rest>
auto field(std::string_view name, FieldOptions options = {}) {
  using Record = typename field_detail::ClassOf<decltype(first)>::type;
  using Value = std::remove_cvref_t<decltype(field_detail::reach<first, rest...>(std::declval<Record&>()))>;
  return Field<Record>{
      .name = name,
      .kind = field_kind<Value>(),
      .get = [](const Record& record) { return FieldValue(std::in_place_type<Value>, field_detail::reach<first, rest...>(record)); },
      .set = [](Record& record, FieldValue value) { field_detail::reach<first, rest...>(record) = std::get<Value>(std::move(value)); },
      .group = options.group,
      .required = options.required,
      .meaningful = options.null_when_default ? &field_detail::differs_from_default<Record, first, rest...> : nullptr,
      .default_when_missing = options.default_when_missing,
  };
}

// The tables, each in the order the fields are written (JSON keys, CSV columns).
const std::vector<Field<RunRecord>>& run_fields();        // a "runs" object, a CSV line
const std::vector<Field<StreamRecord>>& stream_fields();  // a "streams" object (JSON only)
const std::vector<Field<DeviceInfo>>& device_fields();    // a "devices" object (JSON only)
// The report's header, before its "devices", "runs" and "streams" arrays.
const std::vector<Field<Report>>& report_fields();

}  // namespace cc
