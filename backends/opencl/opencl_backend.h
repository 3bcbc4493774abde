// opencl_backend.h: the OpenCL backend: every platform and device, every variant the table gives OpenCL (common/domain/variants.h).
#pragma once

#include <memory>

#include "backends/backend.h"

namespace cc {
std::unique_ptr<Backend> make_opencl_backend();
}
