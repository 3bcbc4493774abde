// test_memory_modes.cpp: --memory mapped (CL_MEM_ALLOC_HOST_PTR, mapped and unmapped), managed (coarse-grained SVM) and managed-faults (fine-grained SVM) on the device under test, one run and --stream.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "backends/backend.h"
#include "backends/launch_plan.h"
#include "backends/opencl/cl_devices.h"
#include "common/domain/error.h"
#include "common/domain/image.h"
#include "common/domain/problem.h"
#include "common/domain/reference.h"
#include "common/domain/validate.h"
#include "common/domain/variants.h"
#include "tests/support/backend_matrix.h"
#include "tests/support/fixtures.h"
#include "tests/opencl/opencl_suite.h"

using cc::testing::box_filter;
using cc::testing::device_limits;
using cc::testing::device_under_test;
using cc::testing::name_device;
using cc::testing::opencl;
using cc::testing::ramp_image;
using cc::testing::skipped_as_known_fault;

namespace {

cc::RunOptions options_for(cc::HostMemory memory) {
  cc::RunOptions options;
  options.repetitions = 2;
  options.warmup = 1;
  options.memory = memory;
  return options;
}

// The device's own word on the mode, where it refuses it (Rusticl on llvmpipe has no SVM; PoCL offers
// both grains).
std::string refusal(cc::HostMemory memory) {
  if (memory == cc::HostMemory::Mapped) return device_limits().no_mapped;
  return memory == cc::HostMemory::Managed ? device_limits().no_managed : device_limits().no_managed_faults;
}

// A refusal is one line in the API's words: the mode, then the capability it lacks.
void check_refusal_text(cc::HostMemory memory, const std::string& reason) {
  CHECK(reason.starts_with("--memory " + std::string(cc::to_string(memory)) + ": "));
  CHECK(reason.find('\n') == std::string::npos);
  if (cc::is_managed(memory)) CHECK(reason.find("CL_DEVICE_SVM_CAPABILITIES") != std::string::npos);
}

// A problem of `pixel` over a 3-channel ramp (8-bit values for u8: RGBA8 on the device).
struct Case {
  cc::Image input;
  cc::Problem problem;
  cc::Image reference;
};
Case make_case(cc::PixelType pixel, cc::Border border) {
  Case made;
  made.input = ramp_image(67, 45, 3);
  if (pixel == cc::PixelType::U8) made.input = cc::quantized_8bit(made.input);
  made.problem = cc::make_problem(made.input, box_filter(2), border, false, pixel);
  made.reference = cc::reference_convolve(made.input, made.problem);
  return made;
}

constexpr cc::HostMemory kZeroCopy[] = {cc::HostMemory::Mapped, cc::HostMemory::Managed, cc::HostMemory::ManagedFaults};

}  // namespace

TEST_CASE("memory modes: mapped, managed and managed-faults runs validate for global, tiled and fast, f32 and u8") {
  name_device();
  for (const cc::HostMemory memory : kZeroCopy)
    for (const cc::PixelType pixel : {cc::PixelType::F32, cc::PixelType::U8}) {
      const Case c = make_case(pixel, cc::Border::Mirror);
      for (const char* variant : {"global", "tiled", "fast"}) {
        CAPTURE(cc::to_string(memory));
        CAPTURE(cc::to_string(pixel));
        CAPTURE(variant);
        const cc::BackendRun run =
            opencl().run(c.problem, c.input, variant, device_under_test(), options_for(memory));
        if (const std::string refused = refusal(memory); !refused.empty()) {
          CHECK(run.status == cc::Status::Skipped);
          CHECK(run.reason == refused);
          check_refusal_text(memory, run.reason);
          CHECK(run.output.data.empty());  // no image at all, rather than a wrong one
          continue;
        }
        if (skipped_as_known_fault(run)) {
          MESSAGE("skipped: " << run.reason);
          continue;
        }
        REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
        CHECK(run.memory == cc::to_string(memory));
        // The report says what the figures hold: no copy, the kernel's time holds its traffic.
        CHECK(run.memory_note.starts_with(std::string(cc::to_string(memory)) + ": "));
        CHECK(run.memory_note.find("CL_DEVICE_HOST_UNIFIED_MEMORY") != std::string::npos);
        CHECK(run.times.host_to_host_ms > 0);
        // Fine-grained SVM is never mapped or unmapped: no command crosses, so none is timed as a transfer.
        if (memory == cc::HostMemory::ManagedFaults) {
          CHECK(run.memory_note.find("CL_MEM_SVM_FINE_GRAIN_BUFFER") != std::string::npos);
          CHECK((std::isnan(run.times.h2d_ms) && std::isnan(run.times.d2h_ms)));
          CHECK(run.times.kernel_ms.samples >= 1);
        }
        const cc::Validation validation =
            cc::validate(run.output, c.reference, cc::testing::tolerance_of(variant, c.problem, c.input));
        CHECK_MESSAGE(validation.passed, validation.message());
      }
    }
}

TEST_CASE("memory modes: mapped, managed and managed-faults --stream runs validate their last frame") {
  name_device();
  for (const cc::HostMemory memory : kZeroCopy)
    for (const cc::PixelType pixel : {cc::PixelType::F32, cc::PixelType::U8}) {
      const Case c = make_case(pixel, cc::Border::Clamp);
      for (const char* variant : {"global", "fast"}) {
        CAPTURE(cc::to_string(memory));
        CAPTURE(cc::to_string(pixel));
        CAPTURE(variant);
        const cc::StreamRun run =
            opencl().stream(c.problem, c.input, variant, device_under_test(), 5, options_for(memory));
        if (const std::string refused = refusal(memory); !refused.empty()) {
          CHECK(run.status == cc::Status::Skipped);
          CHECK(run.reason == refused);
          check_refusal_text(memory, run.reason);
          continue;
        }
        if (skipped_as_known_fault(run)) {
          MESSAGE("skipped: " << run.reason);
          continue;
        }
        REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
        CHECK(run.queues == 3);
        CHECK(!run.memory_note.empty());
        const cc::Validation validation =
            cc::validate(run.last_output, c.reference, cc::testing::tolerance_of(variant, c.problem, c.input));
        CHECK_MESSAGE(validation.passed, validation.message());
      }
    }
}

TEST_CASE("memory modes: an image or library variant keeps copies, and says so") {
  name_device();
  const Case c = make_case(cc::PixelType::F32, cc::Border::Zero);
  for (const cc::HostMemory memory : kZeroCopy) {
    CAPTURE(cc::to_string(memory));
    const cc::BackendRun texture = opencl().run(c.problem, c.input, "texture", device_under_test(), options_for(memory));
    CHECK(texture.status == cc::Status::Skipped);
    CHECK(texture.reason.find("texture / image2d") != std::string::npos);
    const cc::BackendRun fft = opencl().run(c.problem, c.input, "fft", device_under_test(), options_for(memory));
    CHECK(fft.status == cc::Status::Skipped);
    CHECK((fft.reason.find("library") != std::string::npos || fft.reason.find("VkFFT") != std::string::npos));
  }
}

TEST_CASE("memory modes: a device that refuses the mode skips every plain-buffer variant with its reason") {
  // A planted limit, as a device without canMapHostMemory or SVM reports it.
  cc::DeviceLimits refusing = device_limits();
  refusing.no_mapped = "--memory mapped: the device cannot map host memory (canMapHostMemory is 0)";
  refusing.no_managed = "--memory managed: the device offers no coarse-grained SVM buffers (CL_DEVICE_SVM_CAPABILITIES)";
  refusing.no_managed_faults = "--memory managed-faults: the device offers coarse-grained SVM only "
                               "(CL_DEVICE_SVM_CAPABILITIES = 1): no fine-grained buffers the host reaches without map";
  for (const char* name : {"global", "tiled", "fast", "separable"}) {
    const cc::VariantTraits& variant = *cc::find_variant(name);
    CHECK(cc::memory_refusal(variant, refusing, cc::HostMemory::Mapped) == refusing.no_mapped);
    CHECK(cc::memory_refusal(variant, refusing, cc::HostMemory::Managed) == refusing.no_managed);
    CHECK(cc::memory_refusal(variant, refusing, cc::HostMemory::ManagedFaults) == refusing.no_managed_faults);
    CHECK(cc::memory_refusal(variant, refusing, cc::HostMemory::Pinned).empty());
    CHECK(cc::memory_refusal(variant, refusing, cc::HostMemory::Pageable).empty());
  }
  // The texture's own reason comes first: it would refuse on any device.
  CHECK(cc::memory_refusal(*cc::find_variant("texture"), refusing, cc::HostMemory::Mapped).find("texture") !=
        std::string::npos);
}

TEST_CASE("memory modes: managed-faults is named, parsed and ruled as managed memory that is never copied") {
  CHECK(cc::parse_host_memory("managed-faults") == cc::HostMemory::ManagedFaults);
  CHECK(cc::to_string(cc::HostMemory::ManagedFaults) == "managed-faults");
  CHECK_THROWS_WITH_AS(cc::parse_host_memory("faults"), doctest::Contains("managed-faults"), cc::InputError);
  CHECK(cc::is_managed(cc::HostMemory::ManagedFaults));
  CHECK(cc::is_managed(cc::HostMemory::Managed));
  CHECK(!cc::is_managed(cc::HostMemory::Mapped));
  CHECK(!cc::copies_frames(cc::HostMemory::ManagedFaults));
  // Only the mode without prefetch hands the frame back to the host before each sample (measure.cpp).
  CHECK(cc::samples_start_on_host(cc::HostMemory::ManagedFaults));
  for (const cc::HostMemory other : {cc::HostMemory::Pinned, cc::HostMemory::Pageable, cc::HostMemory::Mapped,
                                     cc::HostMemory::Managed})
    CHECK(!cc::samples_start_on_host(other));
  // The device's note says what the figures hold, where the device offers the mode.
  if (device_limits().no_managed_faults.empty())
    CHECK(cc::memory_note(device_limits(), cc::HostMemory::ManagedFaults).starts_with("managed-faults: "));
}
