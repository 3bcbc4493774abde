// device_api.h: the thin shim over CUDA and OpenCL that the one measurement protocol (measure.h) is written against.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/domain/image.h"
#include "common/domain/problem.h"
#include "common/geometry/band_plan.h"

namespace cc {

class ApiError;

// What crosses the host-device boundary for one frame: `units` transfers of `unit_bytes` each, and
// how an Image is packed into them and read back (docs/architecture.md, "Adding a pixel type"): f32 is planar,
// one unit per channel; u8 one interleaved unit of 1 byte per pixel, or 4 (RGBA8: 2 and 3 channels
// padded with zeros, the padding not read back).
struct FrameLayout {
  int units = 0;
  std::size_t unit_bytes = 0;
  bool eight_bit = false;   // DeviceFormat::eight_bit(): one interleaved unit of bytes, else float planes
  int channels = 0;         // the image's
  int device_channels = 0;  // interleaved per pixel on the device (u8: 1 or 4)

  static FrameLayout for_problem(const Problem& problem);
  std::size_t bytes() const { return static_cast<std::size_t>(units) * unit_bytes; }
  // Copies the pixels in or out, on every core for a large frame; outside every timed bracket.
  void pack(const Image& image, std::span<std::byte* const> units) const;
  void unpack(std::span<const std::byte* const> units, Image& image) const;
};

// Device time between two points of one queue: begun before the commands it brackets, ended after
// them; elapsed_ms() once the queue has finished. Made before the bracket, so making it costs no
// device time inside.
class Span {
 public:
  virtual ~Span() = default;
  virtual double elapsed_ms() const = 0;
  // No command inside gave the queue anything to time (PoCL's SVM unmap and map on unified memory):
  // such a span is no figure, rather than a zero (backends/measure.h).
  virtual bool brackets_nothing() const { return false; }
};

// One in-order queue (a CUDA stream, an OpenCL command queue with profiling).
class DeviceQueue {
 public:
  virtual ~DeviceQueue() = default;
  virtual std::unique_ptr<Span> make_span() = 0;
  virtual void begin(Span& span) = 0;
  virtual void end(Span& span) = 0;
  virtual void flush() = 0;   // submit what is queued, without waiting
  virtual void finish() = 0;  // wait until everything queued has completed
  // Waits until the last command queued so far has completed (a frame slot's previous frame).
  virtual void wait_for_last() = 0;
  // Makes this queue's device the one the API's next calls act on, where an API has such a state
  // (CUDA's current device: cudaSetDevice); for one thread driving several devices (--split, a
  // --stream dealt over devices: docs/multi-device.md). OpenCL names the queue in every call: nothing.
  virtual void make_current() {}
};

// A frame's host side of the transfers: page-locked memory (cudaMallocHost, a mapped
// CL_MEM_ALLOC_HOST_PTR buffer) or ordinary pageable memory, one block per FrameLayout unit.
class HostFrame {
 public:
  virtual ~HostFrame() = default;
  virtual std::span<std::byte* const> units() const = 0;
  std::span<const std::byte* const> const_units() const {
    const auto all = units();
    return {const_cast<const std::byte* const*>(all.data()), all.size()};
  }
};

// Ordinary memory, for the pageable figures: shared by every backend.
class PageableHostFrame final : public HostFrame {
 public:
  explicit PageableHostFrame(const FrameLayout& layout);
  std::span<std::byte* const> units() const override { return pointers_; }

 private:
  std::vector<std::byte> bytes_;
  std::vector<std::byte*> pointers_;
};

// Page-locked memory, for the pinned figures: one block per unit, each the API's (cuda_api.cpp's
// cudaMallocHost block, cl_api.cpp's mapped CL_MEM_ALLOC_HOST_PTR buffer), `make(bytes)` a unique_ptr to one.
template <typename Block>
class PinnedHostFrame final : public HostFrame {
 public:
  template <typename Make>
  PinnedHostFrame(const FrameLayout& layout, Make&& make) {
    for (int unit = 0; unit < layout.units; ++unit) {
      blocks_.push_back(make(layout.unit_bytes));
      pointers_.push_back(blocks_.back()->get());
    }
  }
  std::span<std::byte* const> units() const override { return pointers_; }

 private:
  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<std::byte*> pointers_;
};

// A mapped or managed frame's own memory as the host reaches it (--memory mapped, managed): the
// units the kernel reads and writes, no copy between. Owned by the device frame, which outlives it.
class HostView final : public HostFrame {
 public:
  explicit HostView(std::vector<std::byte*> units) : units_(std::move(units)) {}
  std::span<std::byte* const> units() const override { return units_; }

 private:
  std::vector<std::byte*> units_;
};

// The device memory of one frame in flight (its input, output and any temporary); each backend's own
// type. Frames in flight at the same time each need their own.
class DeviceFrame {
 public:
  virtual ~DeviceFrame() = default;
};

// A variant set up on a device: the filter uploaded, samplers made, opt-ins done. upload, launch and
// download queue one frame's work on any queue of that device without waiting.
class PreparedVariant {
 public:
  virtual ~PreparedVariant() = default;
  virtual std::unique_ptr<DeviceFrame> make_frame() const = 0;
  virtual void upload(DeviceFrame& frame, const HostFrame& host, DeviceQueue& queue) const = 0;
  virtual void launch(DeviceFrame& frame, DeviceQueue& queue) const = 0;  // every plane once
  virtual void download(const DeviceFrame& frame, const HostFrame& host, DeviceQueue& queue) const = 0;
  // A mapped or managed frame's input (or output) as the host reaches it; upload and download then move
  // nothing by copy: they hand the memory to the device and back (unmap, prefetch; map, prefetch).
  // Whether upload and download queue commands in the plan's --memory mode (copies; a managed prefetch;
  // an OpenCL unmap or map, which a driver may turn into copies), timed as h2d and d2h; false where the
  // kernel reaches the frame itself and the spans would bracket nothing (CUDA mapped memory).
  virtual bool transfers_are_commands() const { return true; }
  // The planning rule refuses those modes for a variant without one (launch_plan.h, memory_refusal).
  virtual std::unique_ptr<HostFrame> host_view(DeviceFrame& /*frame*/, bool /*output*/) const {
    throw std::logic_error("this variant keeps no frame in host memory");
  }
  // --split's copies of some rows only (backends/split_session.h; copies, --memory pinned or pageable):
  // `rows` rows of every unit from row `copy.from` of `host` to row `copy.to` of the frame's input, and
  // from the frame's output back. `host` may be taller than the frame (the whole image, the frame one band).
  virtual void upload_rows(DeviceFrame& frame, const HostFrame& host, const RowCopy& copy, DeviceQueue& queue) const = 0;
  virtual void download_rows(const DeviceFrame& frame, const HostFrame& host, const RowCopy& copy,
                             DeviceQueue& queue) const = 0;
  // Every output byte set to `byte`: all-ones is a NaN in every float, so a pixel the launches never
  // write fails validation (8-bit has no NaN: measure_run poisons twice, backends/measure.h).
  virtual void poison(DeviceFrame& frame, DeviceQueue& queue, unsigned char byte) const = 0;
  // Device memory held with `frame` made: the filter where it lives and the frame's buffers, with any
  // library work area (known only once made).
  virtual std::size_t device_bytes(const DeviceFrame& frame) const = 0;
};

// Device memory that --cold overwrites before every sample, outside the timed bracket, so that nothing a
// launch reads is left in the cache (cudaMemsetAsync; clEnqueueFillBuffer).
class CacheScratch {
 public:
  virtual ~CacheScratch() = default;
  virtual void overwrite(DeviceQueue& queue) = 0;  // queued, not waited for
};

// --cold's scratch as an API fills it, `fill(byte, queue)` over its buffer (a cudaMemsetAsync; a
// clEnqueueFillBuffer): a new byte each time, as a write of the same bytes might be elided.
template <typename Fill>
class FilledCacheScratch final : public CacheScratch {
 public:
  explicit FilledCacheScratch(Fill fill) : fill_(std::move(fill)) {}
  void overwrite(DeviceQueue& queue) override { fill_(++value_, queue); }

 private:
  Fill fill_;
  unsigned char value_ = 0;
};

// One device of one API, as the protocol sees it.
class DeviceSession {
 public:
  virtual ~DeviceSession() = default;
  virtual std::unique_ptr<DeviceQueue> make_queue() = 0;
  virtual std::unique_ptr<HostFrame> make_pinned_frame(const FrameLayout& layout, DeviceQueue& queue) = 0;
  // Whether an API failure means the device ran out of memory (drivers allocate lazily, so an
  // OpenCL device may say so at first use): such a run is skipped with the figures, not failed.
  virtual bool out_of_memory(const ApiError& error) const = 0;
  // The device's last-level cache as the API reports it (cudaDevAttrL2CacheSize;
  // CL_DEVICE_GLOBAL_MEM_CACHE_SIZE), 0 when it does not say.
  virtual std::size_t cache_bytes() const = 0;
  virtual std::unique_ptr<CacheScratch> make_cache_scratch(std::size_t bytes) = 0;

  std::unique_ptr<HostFrame> make_host_frame(const FrameLayout& layout, bool pinned, DeviceQueue& queue) {
    if (pinned) return make_pinned_frame(layout, queue);
    return std::make_unique<PageableHostFrame>(layout);
  }
};

}  // namespace cc
