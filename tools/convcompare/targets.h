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

// "cuda: no CUDA driver installed": each backend among the targets that cannot run, once.
std::vector<std::string> unavailable_backends(const std::vector<Target>& targets);

// --list: platforms, devices and their limits, variants and which backends implement each, filters, borders.
void print_listing(const Job& job, const std::vector<std::unique_ptr<Backend>>& backends, std::ostream& out);

}  // namespace cc
