// cpu_backend.h: the CPU backend: `naive` (one thread, the seeds' loop) and `fast` (all cores).
#pragma once

#include <memory>

#include "backends/backend.h"

namespace cc {
std::unique_ptr<Backend> make_cpu_backend();
}
