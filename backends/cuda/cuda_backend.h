// cuda_backend.h: the CUDA backend: every variant the table gives CUDA (common/domain/variants.h), cuFFT and NPP among them.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace cc {
std::unique_ptr<Backend> make_cuda_backend();
}
