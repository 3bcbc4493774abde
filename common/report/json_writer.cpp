// json_writer.cpp: the report as JSON (write_json, docs/json-schema.md): every record's fields in table order (fields.h).
#include <cmath>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/domain/safe_text.h"
#include "common/report/fields.h"
#include "common/report/report.h"

namespace cc {

namespace {

nlohmann::ordered_json json_value(const FieldValue& value) {
  struct Convert {
    nlohmann::ordered_json operator()(std::monostate) const { return nullptr; }
    // Outside text as every format writes it (safe_text): valid UTF-8, control characters left to JSON's escapes.
    nlohmann::ordered_json operator()(const std::string& s) const { return safe_text(s, ControlCharacters::Keep); }
    // JSON has no NaN or Inf: a measurement that does not exist is null.
    nlohmann::ordered_json operator()(double v) const { return std::isfinite(v) ? nlohmann::ordered_json(v) : nullptr; }
    nlohmann::ordered_json operator()(int v) const { return v; }
    nlohmann::ordered_json operator()(bool v) const { return v; }
    nlohmann::ordered_json operator()(Status status) const { return to_string(status); }
    nlohmann::ordered_json operator()(const TextPairs& pairs) const {
      nlohmann::ordered_json object = nlohmann::ordered_json::object();
      for (const auto& [key, value] : pairs) object[safe_text(key, ControlCharacters::Keep)] = (*this)(value);
      return object;
    }
    nlohmann::ordered_json operator()(const std::vector<double>& numbers) const {
      nlohmann::ordered_json array = nlohmann::ordered_json::array();
      for (const double v : numbers) array.push_back((*this)(v));
      return array;
    }
    nlohmann::ordered_json operator()(const std::vector<std::string>& texts) const {
      nlohmann::ordered_json array = nlohmann::ordered_json::array();
      for (const std::string& text : texts) array.push_back((*this)(text));
      return array;
    }
  };
  return std::visit(Convert{}, value);
}

// One record as a JSON object: its fields in table order, a group's fields nested under the group's name.
template <typename Record>
nlohmann::ordered_json json_object(const Record& record, const std::vector<Field<Record>>& fields) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (const Field<Record>& field : fields) {
    nlohmann::ordered_json& parent = field.group.empty() ? object : object[std::string(field.group)];
    parent[std::string(field.name)] = json_value(field.written(record));
  }
  return object;
}

template <typename Record>
nlohmann::ordered_json json_array(const std::vector<Record>& records, const std::vector<Field<Record>>& fields) {
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const Record& record : records) array.push_back(json_object(record, fields));
  return array;
}

}  // namespace

void write_json(const Report& report, std::ostream& out) {
  // schema_version first, outside the field table: the reader checks it before reading anything by the
  // table, and it is this writer's version, whatever version a merged report was read from.
  nlohmann::ordered_json root = {{"schema_version", kSchemaVersion}};
  root.update(json_object(report, report_fields()));
  root["devices"] = json_array(report.devices, device_fields());
  root["runs"] = json_array(report.runs, run_fields());
  root["streams"] = json_array(report.streams, stream_fields());
  // Every text went through safe_text above; replace stays as a guard, a report is never lost to a throw.
  out << root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace cc
