// device_main.cpp: whether a device suite can run, and the status it ends with when it cannot.
#include "tests/support/device_main.h"

#include <iostream>

#include "tests/support/backend_matrix.h"

namespace cc::testing {

std::optional<int> status_without_device(std::string_view name, bool required) {
  const auto backend = find_backend(name);
  if (backend && !backend->devices().empty()) return std::nullopt;
  const std::string reason = backend ? backend->unavailable_reason() : std::string(name) + " backend not built";
  std::cout << (required ? "FAILED: no device where one is required: " : "SKIPPED: ") << reason << '\n';
  return required ? 1 : 77;
}

}  // namespace cc::testing
