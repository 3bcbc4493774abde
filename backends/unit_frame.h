// unit_frame.h: the one device frame of every GPU API: each unit's input and output in the plan's --memory mode, over the API's translation of memory.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <vector>

#include "backends/backend.h"
#include "backends/device_api.h"
#include "backends/launch_plan.h"

namespace cc {

// What an API translates for the frame (cuda_frame.h's CudaMemory, cl_frame.h's ClMemory), and nothing else:
//   Memory::Queue   its DeviceQueue;  Memory::Image  a unit read through the texture path
//   Image make_image() const;  copy_in(Image&, host, row, rows, queue) const   the texture's rows from the host
//   Memory::Side    one side of a frame, its input or its output, every unit, in the plan's mode (device
//                   buffers; mapped host memory; managed memory or SVM), made by Side(memory, layout, mode, output):
//     copy_in(unit, host, offset, bytes, queue), copy_out(unit, host, offset, bytes, queue) const   copies
//     hand_over(unit, queue)        mapped and managed: the unit given to the device at upload (unmap, prefetch)
//     hand_back(unit, queue) const  and to the host at download (map, prefetch)
//     release(unit, queue)          the host's access ended before a device command uses it (an unmap), or nothing
//     fill(unit, byte, queue), host(unit) const   every byte of the unit; where the host reaches it (mapped, managed)
// The mode's rules are the frame's below; what each call is in the API, and what a mode asks of it, the Side's.
template <typename Memory>
class UnitFrame : public DeviceFrame {
 public:
  using Queue = typename Memory::Queue;
  using Side = typename Memory::Side;

  // A texture variant reads its input through images (one per unit), every other one from a buffer side.
  UnitFrame(const Memory& memory, const FrameLayout& layout, const LaunchPlan& plan, int height)
      : memory(memory), layout(layout), height(static_cast<std::size_t>(height)), mode(plan.memory) {
    if (plan.variant->input_as_image) {
      for (int unit = 0; unit < layout.units; ++unit) images.push_back(memory.make_image());
    } else {
      input.emplace(memory, layout, mode, false);
    }
    output.emplace(memory, layout, mode, true);
  }

  // Copies: the whole unit. Mapped and managed: nothing crosses by copy; both sides go to the device.
  void write(int unit, const std::byte* host, Queue& queue) {
    if (copies_frames(mode)) return write_rows(unit, host, 0, static_cast<int>(height), queue);
    input->hand_over(unit, queue);
    output->hand_over(unit, queue);
  }
  // The host's turn: the result to read, and the input for the next frame to arrive in.
  void read(int unit, std::byte* host, Queue& queue) const {
    if (copies_frames(mode)) return read_rows(unit, host, 0, static_cast<int>(height), queue);
    output->hand_back(unit, queue);
    if (input) input->hand_back(unit, queue);
  }
  // --split's rows of a unit: copies only (GpuBackend::split refuses mapped and managed frames).
  void write_rows(int unit, const std::byte* host, int row, int rows, Queue& queue) {
    refuse_rows();
    if (images.empty())
      input->copy_in(unit, host, row_bytes() * static_cast<std::size_t>(row), row_bytes() * static_cast<std::size_t>(rows), queue);
    else
      memory.copy_in(images[static_cast<std::size_t>(unit)], host, row, rows, queue);
  }
  void read_rows(int unit, std::byte* host, int row, int rows, Queue& queue) const {
    refuse_rows();
    output->copy_out(unit, host, row_bytes() * static_cast<std::size_t>(row), row_bytes() * static_cast<std::size_t>(rows), queue);
  }
  void fill(unsigned char byte, Queue& queue) {
    for (int unit = 0; unit < layout.units; ++unit) {
      if (!copies_frames(mode)) release(unit, queue);
      output->fill(unit, byte, queue);
    }
  }
  std::vector<std::byte*> host_units(bool want_output) const {
    std::vector<std::byte*> units;
    for (int unit = 0; unit < layout.units; ++unit) units.push_back((want_output ? *output : *input).host(unit));
    return units;
  }
  // Mapped and managed: the unit's memory out of the host's hands before a command of the device uses it.
  void release(int unit, Queue& queue) {
    if (copies_frames(mode)) return;
    if (input) input->release(unit, queue);
    output->release(unit, queue);
  }
  std::size_t row_bytes() const { return layout.unit_bytes / height; }  // one row of a unit

  Memory memory;
  FrameLayout layout;
  std::size_t height;
  HostMemory mode;
  std::vector<typename Memory::Image> images;  // texture: the input, one per unit
  std::optional<Side> input;                   // every other variant's input
  std::optional<Side> output;

 private:
  void refuse_rows() const {
    if (!copies_frames(mode)) throw std::logic_error("rows are copied only between pinned or pageable frames");
  }
};

}  // namespace cc
