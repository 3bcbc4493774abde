// multi_device.cpp: the multi-device suite's devices (multi_device.h).
#include "tests/multi_device/multi_device.h"

#include <memory>

#include "tests/support/backend_matrix.h"

namespace cc::testing {

Backend& opencl_backend() {
  static const std::unique_ptr<Backend> backend = find_backend("opencl");
  return *backend;
}

std::vector<int> pocl_devices() {
  std::vector<int> found;
  const std::vector<DeviceInfo>& devices = opencl_backend().devices();
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (devices[i].name.find("Portable Computing Language") != std::string::npos) found.push_back(static_cast<int>(i));
  return found;
}

}  // namespace cc::testing
