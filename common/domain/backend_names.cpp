// backend_names.cpp: lookups and help-text forms of the one backend name list (backend_names.h).
#include "common/domain/backend_names.h"

#include <algorithm>
#include <iterator>

namespace cc {

const BackendName* find_backend_name(std::string_view name) {
  const auto* found = std::ranges::find(kBackendNames, name, &BackendName::name);
  return found == std::ranges::end(kBackendNames) ? nullptr : found;
}

namespace {

template <typename Form>
std::string join_backends(std::string_view separator, std::string_view last, Form form) {
  std::string text;
  const std::size_t count = std::size(kBackendNames);
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) text += i + 1 == count ? last : separator;
    text += form(kBackendNames[i]);
  }
  return text;
}

}  // namespace

std::string backend_name_list(std::string_view separator, std::string_view last) {
  return join_backends(separator, last, [](const BackendName& b) { return std::string(b.name); });
}

std::string device_id_forms(std::string_view separator, std::string_view last) {
  return join_backends(separator, last, [](const BackendName& b) {
    return b.id_numbers == 0 ? std::string(b.name) : std::string(b.name) + ":" + std::string(b.id_numbers_placeholder);
  });
}

std::string first_device_id(const BackendName& backend) {
  std::string id(backend.name);
  for (std::size_t i = 0; i < backend.id_numbers; ++i) id += ":0";
  return id;
}

}  // namespace cc
