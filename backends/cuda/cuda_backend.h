// cuda_backend.h: the CUDA backend: five memory-space variants plus the NPP baseline.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace cc {
std::unique_ptr<Backend> make_cuda_backend();
}
