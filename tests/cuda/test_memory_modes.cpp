// test_memory_modes.cpp: --memory mapped (cudaHostAllocMapped), managed (cudaMallocManaged, prefetched) and managed-faults (never prefetched to the device) on cuda:0, one run and --stream.
#include <cmath>
#include <memory>
#include <string>

#include <doctest/doctest.h>

#include "backends/backend.h"
#include "common/domain/image.h"
#include "common/domain/problem.h"
#include "common/domain/reference.h"
#include "common/domain/validate.h"
#include "tests/support/backend_matrix.h"
#include "tests/support/fixtures.h"
#include "tests/cuda/cuda_suite.h"

using cc::testing::box_filter;
using cc::testing::cuda;
using cc::testing::quick_options;
using cc::testing::ramp_image;

namespace {

constexpr cc::HostMemory kZeroCopy[] = {cc::HostMemory::Mapped, cc::HostMemory::Managed, cc::HostMemory::ManagedFaults};

}  // namespace

TEST_CASE("cuda: mapped, managed and managed-faults runs and streams validate for global, tiled and fast, f32 and u8") {
  for (const cc::HostMemory memory : kZeroCopy)
    for (const cc::PixelType pixel : {cc::PixelType::F32, cc::PixelType::U8}) {
      cc::Image input = ramp_image(67, 45, 3);
      if (pixel == cc::PixelType::U8) input = cc::quantized_8bit(input);
      const cc::Problem problem = cc::make_problem(input, box_filter(2), cc::Border::Mirror, false, pixel);
      const cc::Image reference = cc::reference_convolve(input, problem);
      for (const char* variant : {"global", "tiled", "fast"}) {
        CAPTURE(cc::to_string(memory));
        CAPTURE(cc::to_string(pixel));
        CAPTURE(variant);
        const cc::BackendRun run = cuda().run(problem, input, variant, 0, quick_options(memory));
        REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
        CHECK(run.memory == cc::to_string(memory));
        CHECK(run.memory_note.starts_with(std::string(cc::to_string(memory)) + ": "));
        CHECK(cc::validate(run.output, reference, cc::testing::tolerance_of(variant, problem, input)).passed);
        CHECK(run.times.kernel_ms.samples == 3);
        // Mapped: no upload or download exists to time; managed: the prefetches where the device allows.
        // Managed-faults: nothing prefetched to the device; the kernel's span holds the faults, and the
        // note says so rather than let it pass for a device-resident kernel time.
        if (memory != cc::HostMemory::Managed) CHECK((std::isnan(run.times.h2d_ms) && std::isnan(run.times.d2h_ms)));
        if (memory == cc::HostMemory::ManagedFaults) {
          CHECK((run.memory_note.find("fault") != std::string::npos ||
                 run.memory_note.find("concurrentManagedAccess is 0") != std::string::npos));
          CHECK(run.times.kernel_ms.median > 0);
          CHECK(run.times.host_to_host_ms > 0);
        }
        const cc::StreamRun stream = cuda().stream(problem, input, variant, 0, 5, quick_options(memory));
        REQUIRE_MESSAGE(stream.status == cc::Status::Ok, stream.reason);
        CHECK(stream.memory_note == run.memory_note);
        CHECK(cc::validate(stream.last_output, reference, cc::testing::tolerance_of(variant, problem, input)).passed);
      }
    }
}

TEST_CASE("cuda: texture, fft and NPP keep copies in mapped, managed and managed-faults modes, and say so") {
  const cc::Image input = ramp_image(67, 45, 1);
  const cc::Problem problem = cc::make_problem(input, box_filter(1), cc::Border::Clamp, false);
  for (const cc::HostMemory memory : kZeroCopy)
    for (const char* variant : {"texture", "fft", "npp"}) {
      CAPTURE(variant);
      const cc::BackendRun run = cuda().run(problem, input, variant, 0, quick_options(memory));
      CHECK(run.status == cc::Status::Skipped);
      CHECK(run.reason.starts_with("--memory " + std::string(cc::to_string(memory))));
    }
}
