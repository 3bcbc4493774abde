// targets.h: which backend, device and variant each run is, from the Job and the backends this binary has; and --list.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "tools/convcompare/job.h"

namespace cc {

// One backend/device/variant to run for every problem, or to report as skipped.
struct Target {
  std::string backend_name;
  std::string device_id;       // "-" when skipped for want of a device
  Backend* backend = nullptr;  // null: not built into this binary
  int device = -1;             // index into backend->devices(); -1: skipped
  const VariantTraits* variant = nullptr;
  std::string skip_reason;
  bool absent = false;  // the API has no counterpart (VariantTraits::absent_from): a row that says so, on a device

  bool runs() const { return backend && device >= 0; }
  bool has_device_memory() const { return find_backend_name(backend_name)->has_device_memory; }
};

Backend* find_backend(const std::vector<std::unique_ptr<Backend>>& backends, std::string_view name);

// Before any device discovery: some selected backend implements some selected variant (the variant
// lists need no device). Throws InputError naming what each backend has.
void check_variants(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends);

// After discovery, before any run: every --device names a device that exists. Throws InputError.
void check_devices(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends);

// Every target in report order, a backend without a device (or not built) as skipped targets.
std::vector<Target> plan_targets(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends);

// Two or more devices of one backend named by --device, and a variant each of them runs: --split and a
// --stream dealt over them run on all of them together, as one row (docs/multi-device.md).
struct MultiTarget {
  std::string backend_name;
  std::string device_id;  // the devices' ids joined: "opencl:0:0+0:1", "cuda:0+1"
  Backend* backend = nullptr;
  std::vector<int> devices;  // indexes into backend->devices(), in the order found
  const VariantTraits* variant = nullptr;
};

// The targets' groups of one backend and variant over two or more devices, when --device named them
// (naming devices is how a user asks for them together; auto chooses per device, so it is left out).
// With --split and no such group, InputError: the devices named are of different backends or too few.
std::vector<MultiTarget> plan_multi_targets(const Job& job, const std::vector<Target>& targets);

// "opencl:0:0", "opencl:0:1" -> "opencl:0:0+0:1": the backend once, then each device's numbers.
std::string joined_device_id(const std::vector<std::string>& ids);

// "cuda: no CUDA driver installed": each backend among the targets that cannot run, once.
std::vector<std::string> unavailable_backends(const std::vector<Target>& targets);

// --list: platforms, devices and their limits, variants and which backends implement each, filters, borders.
void print_listing(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends, std::ostream& out);
// --list --json: the same as JSON (docs/json-schema.md, "--list --json"): backends with their devices and
// their properties (the limits), OpenCL platforms, variants with their traits, filters and borders.
std::string listing_json(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends);

}  // namespace cc
