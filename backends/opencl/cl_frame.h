// cl_frame.h: OpenCL's translation of a frame's memory for the one frame (backends/unit_frame.h): buffers, SVM and images, copies, maps; and --split's staged halo rows.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <CL/opencl.hpp>

#include "backends/opencl/cl_api.h"
#include "backends/opencl/cl_svm.h"
#include "backends/opencl/opencl_fft.h"
#include "backends/unit_frame.h"

namespace cc::opencl {

class ClSide;

// What an OpenCL frame is made with: its context, the queue it is set up on (the first maps and the last
// unmaps), and a texture's shape and image format.
struct ClMemory {
  using Queue = ClQueue;
  using Side = ClSide;
  using Image = cl::Image2D;

  cl::Context context;
  cl::CommandQueue setup_queue;
  cl::ImageFormat image_format;
  std::size_t width = 0, height = 0, row_bytes = 0;

  Image make_image() const;
  // The image's rows from the host, after `after` where given; the write's event, kept on `queue`.
  cl::Event copy_in(const Image& image, const std::byte* host, int row, int rows, ClQueue& queue,
                    const std::vector<cl::Event>* after = nullptr) const;
};

// One side of an OpenCL frame, its input or its output: per unit a buffer, or an SVM block. --memory
// mapped: CL_MEM_ALLOC_HOST_PTR buffers, mapped for the host and unmapped before the device uses them (the
// host reaches a buffer only while it is mapped); managed: coarse-grained SVM, mapped and unmapped the
// same way, passed by pointer (README.md, --memory); managed-faults: fine-grained SVM, never mapped, which
// the host reaches between commands. Mapped units start on the host's side, where the protocol packs the
// input: mapped now on the setup queue, which the frame finishes.
class ClSide {
 public:
  ClSide(const ClMemory& memory, const FrameLayout& layout, HostMemory mode, bool output);
  ~ClSide();
  ClSide(const ClSide&) = delete;
  ClSide& operator=(const ClSide&) = delete;

  // Host to the unit's bytes from `offset`, after `after` where given; the write's event, kept on `queue`.
  cl::Event copy_in(int unit, const std::byte* host, std::size_t offset, std::size_t bytes, ClQueue& queue,
                    const std::vector<cl::Event>* after = nullptr);
  void copy_out(int unit, std::byte* host, std::size_t offset, std::size_t bytes, ClQueue& queue) const;
  void hand_over(int unit, ClQueue& queue) { release(unit, queue); }
  void hand_back(int unit, ClQueue& queue) const;
  void release(int unit, ClQueue& queue);
  void fill(int unit, unsigned char byte, ClQueue& queue);
  std::byte* host(int unit) const { return static_cast<std::byte*>(units_[static_cast<std::size_t>(unit)].host); }
  const cl::Buffer& buffer(int unit) const { return units_[static_cast<std::size_t>(unit)].buffer; }
  // The unit as the kernel's argument `index`: a buffer, or an SVM pointer.
  void set_arg(cl::Kernel& kernel, cl_uint index, int unit) const;

 private:
  struct Unit {
    cl::Buffer buffer;
    std::optional<SvmBuffer> svm;
    void* host = nullptr;  // the address the host reaches the unit at (stable: checked at each map)
    bool mapped = false;
  };
  void* map_now(Unit& unit);
  cl_int unmap_call(const cl::CommandQueue& queue, const Unit& unit, cl::Event* event) const;
  // Whether a map (to the host) or an unmap (to the device) moves the unit's contents (host_access): the
  // input's unmap and the output's map do; the others are bookkeeping, in the queue's order but in no
  // span, since a command with nothing to do may carry timestamps that are not its place in the queue
  // (NVIDIA's OpenCL: a span from such an unmap to the kernel after it ended before it began).
  bool carries(bool to_device) const { return output_ != to_device; }
  cl_map_flags host_access() const;

  cl::CommandQueue setup_queue_;
  std::size_t unit_bytes_;
  HostMemory mode_;
  bool output_;
  mutable std::vector<Unit> units_;
};

// One frame's device memory: the one frame's input and output, fft's buffers (a frame's own, so that
// frames in flight on different queues share none of them), and --split's halo rows staged between
// devices of one context.
struct ClFrame final : UnitFrame<ClMemory> {
  ClFrame(const ClMemory& memory, const FrameLayout& layout, const LaunchPlan& plan, const Problem& problem,
          bool shared_context);
  ClFrame(const ClFrame&) = delete;
  ClFrame& operator=(const ClFrame&) = delete;
  ~ClFrame() override;

  // --split's halo rows of every unit, from another device's frame of the same context (opencl_variants.cpp).
  void copy_rows_from(const ClFrame& source, const RowCopy& copy, ClQueue& source_queue, ClQueue& queue);

  std::unique_ptr<FftConvolver> fft;

 private:
  // --split's halo rows on their way between devices (copy_rows_from): page-locked, in the split's context,
  // mapped for the frame's life. Per unit, its halo rows above (at most the filter's radius, the first rows
  // of the band's sub-image) then below (the last rows), or every row of a band shorter than both.
  cl::Buffer staging_;
  std::byte* staging_host_ = nullptr;
  std::size_t staging_rows_per_unit_ = 0;
  std::size_t radius_rows_ = 0;
  std::map<std::pair<int, int>, cl::Event> staged_writes_;  // per (unit, destination row): the last write from it

  void make_staging(int radius_y);
  std::byte* staging_rows(int unit, const RowCopy& copy) const;
};

}  // namespace cc::opencl
