// frame_variant.h: the one frame loop of a GPU variant (units, upload, launch, download, poison, device bytes) over an API's frame type.
#pragma once

#include <concepts>
#include <cstddef>
#include <memory>
#include <vector>

#include "backends/device_api.h"
#include "backends/launch_plan.h"

namespace cc {

// What an API's frame (cuda_frame.h's CudaFrame, cl_frame.h's ClFrame: each a UnitFrame) gives the frame
// loop: how one unit of the FrameLayout (a float plane, or the 8-bit image) crosses, on `Queue`, that
// API's DeviceQueue. The loop over the units (docs/architecture.md, "The GPU backend") is FrameVariant's.
template <typename Frame, typename Queue>
concept DeviceFrameOf =
    std::derived_from<Frame, DeviceFrame> && std::derived_from<Queue, DeviceQueue> &&
    requires(Frame& frame, const Frame& made, int unit, int row, int rows, std::byte* host, const std::byte* from,
             unsigned char byte, bool output, Queue& queue) {
      frame.write(unit, from, queue);                  // host -> the unit's input
      made.read(unit, host, queue);                    // the unit's output -> host
      frame.fill(byte, queue);                         // every output byte
      { made.host_units(output) } -> std::same_as<std::vector<std::byte*>>;  // mapped / managed: the host's view
      frame.write_rows(unit, from, row, rows, queue);  // --split: rows of the unit only
      made.read_rows(unit, host, row, rows, queue);
    };

// A PreparedVariant whose frame is `Frame`, queued on `Queue`: the frame loop written once. A variant
// says how it sets its filter up (its constructor) and launches one unit.
template <typename Frame, typename Queue>
  requires DeviceFrameOf<Frame, Queue>
class FrameVariant : public PreparedVariant {
 public:
  using frame_type = Frame;
  using queue_type = Queue;

  FrameVariant(const LaunchPlan& plan, const Problem& problem)
      : plan_(plan), problem_(problem), layout_(FrameLayout::for_problem(problem)) {}

  std::unique_ptr<DeviceFrame> make_frame() const final {
    std::unique_ptr<Frame> frame = new_frame();
    add_to_frame(*frame);
    return frame;
  }

  void upload(DeviceFrame& frame, const HostFrame& host, DeviceQueue& queue) const final {
    for (int unit = 0; unit < layout_.units; ++unit) of(frame).write(unit, host.units()[unit], of(queue));
  }

  void launch(DeviceFrame& frame, DeviceQueue& queue) const final {
    for (int unit = 0; unit < layout_.units; ++unit) launch_unit(of(frame), unit, of(queue));
  }

  void download(const DeviceFrame& frame, const HostFrame& host, DeviceQueue& queue) const final {
    for (int unit = 0; unit < layout_.units; ++unit)
      static_cast<const Frame&>(frame).read(unit, host.units()[unit], of(queue));
  }

  void upload_rows(DeviceFrame& frame, const HostFrame& host, const RowCopy& copy, DeviceQueue& queue) const final {
    for (int unit = 0; unit < layout_.units; ++unit)
      of(frame).write_rows(unit, host.units()[unit] + row_bytes() * copy.from, copy.to, copy.rows, of(queue));
  }

  void download_rows(const DeviceFrame& frame, const HostFrame& host, const RowCopy& copy,
                     DeviceQueue& queue) const final {
    for (int unit = 0; unit < layout_.units; ++unit)
      static_cast<const Frame&>(frame).read_rows(unit, host.units()[unit] + row_bytes() * copy.to, copy.from,
                                                 copy.rows, of(queue));
  }

  std::unique_ptr<HostFrame> host_view(DeviceFrame& frame, bool output) const final {
    return std::make_unique<HostView>(of(frame).host_units(output));
  }

  bool transfers_are_commands() const override { return handover_is_command(); }

  void poison(DeviceFrame& frame, DeviceQueue& queue, unsigned char byte) const final {
    of(frame).fill(byte, of(queue));
  }

  std::size_t device_bytes(const DeviceFrame& frame) const final {
    return plan_.filter_bytes + plan_.frame_bytes + library_bytes(static_cast<const Frame&>(frame));
  }

 protected:
  // A frame's inputs and outputs, allocated by the API for this plan and layout.
  virtual std::unique_ptr<Frame> new_frame() const = 0;
  // One unit of the frame (a float plane, or the 8-bit image) through the variant's kernel or library.
  virtual void launch_unit(Frame& frame, int unit, Queue& queue) const = 0;
  // What a library keeps per frame (fft's plans and buffers), and the device memory it holds beyond
  // what the plan counted, known once the frame is made.
  virtual void add_to_frame(Frame&) const {}
  virtual std::size_t library_bytes(const Frame&) const { return 0; }
  // PreparedVariant::transfers_are_commands, as the API does the plan's --memory mode.
  virtual bool handover_is_command() const { return true; }

  const std::vector<float>& weights() const { return problem_.correlation_filter.weights; }

  const LaunchPlan& plan_;
  const Problem& problem_;
  FrameLayout layout_;

 private:
  // One row of one unit: the host frame's rows and the device frame's are the same width.
  std::size_t row_bytes() const { return layout_.unit_bytes / static_cast<std::size_t>(problem_.height); }
  static Frame& of(DeviceFrame& frame) { return static_cast<Frame&>(frame); }
  static Queue& of(DeviceQueue& queue) { return static_cast<Queue&>(queue); }
};

}  // namespace cc
