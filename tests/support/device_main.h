// device_main.h: for the mains of suites that need a device: with none they report skipped (77), never passed.
#pragma once

#include <optional>
#include <string_view>

namespace cc::testing {

// nullopt when backend `name` has a device (run the suite). Without one: prints the backend's reason
// and gives 77, which ctest reports as skipped (SKIP_RETURN_CODE), or 1 when `required` (CI installs
// PoCL, so an OpenCL suite there without a device is a failure, not a skip).
std::optional<int> status_without_device(std::string_view name, bool required);

}  // namespace cc::testing
