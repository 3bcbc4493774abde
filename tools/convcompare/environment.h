// environment.h: the report's header: the tool, the host, the compiler and build, the input and the devices.
#pragma once

#include <memory>
#include <vector>

#include "backends/backend.h"
#include "common/domain/image.h"
#include "common/report/report.h"
#include "tools/convcompare/job.h"

namespace cc {

// A report with its header filled and no runs yet: the environment block (host, compiler, build, math
// flags, the input, the measurement settings, the API versions the devices report) and the devices of
// the job's backends.
Report report_header(const Job& job, const Image& image, const std::vector<std::unique_ptr<Backend>>& backends);

}  // namespace cc
