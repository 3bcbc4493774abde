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
#include "backends/opencl/cl_check.h"
#include "backends/opencl/cl_svm.h"
#include "backends/opencl/opencl_fft.h"
#include "backends/unit_frame.h"
#include "common/domain/error.h"

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

  Image make_image() const {
    return CC_CL_OUT(cl::Image2D(context, CL_MEM_READ_ONLY, image_format, width, height, 0, nullptr, err));
  }
  // The image's rows from the host, after `after` where given; the write's event, kept on `queue`.
  cl::Event copy_in(const Image& image, const std::byte* host, int row, int rows, ClQueue& queue,
                    const std::vector<cl::Event>* after = nullptr) const {
    const auto first = static_cast<std::size_t>(row), count = static_cast<std::size_t>(rows);
    const cl::Event written = enqueued([&](cl::Event* event) {
      return queue.get().enqueueWriteImage(image, CL_FALSE, {0, first, 0}, {width, count, 1}, row_bytes, 0, host,
                                           after, event);
    }, "enqueueWriteImage", __FILE__, __LINE__);
    queue.keep(written);
    return written;
  }
};

// One side of an OpenCL frame, its input or its output: per unit a buffer, or an SVM block. --memory
// mapped: CL_MEM_ALLOC_HOST_PTR buffers, mapped for the host and unmapped before the device uses them (the
// host reaches a buffer only while it is mapped); managed: coarse-grained SVM, mapped and unmapped the
// same way, passed by pointer (README.md, --memory); managed-faults: fine-grained SVM, never mapped, which
// the host reaches between commands. Mapped units start on the host's side, where the protocol packs the
// input: mapped at once on the setup queue, which the frame finishes.
class ClSide {
 public:
  ClSide(const ClMemory& memory, const FrameLayout& layout, HostMemory mode, bool output)
      : setup_queue_(memory.setup_queue), unit_bytes_(layout.unit_bytes), mode_(mode), output_(output) {
    const cl_mem_flags flags = (output ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY) |
                               (mode == HostMemory::Mapped ? CL_MEM_ALLOC_HOST_PTR : 0);
    units_.reserve(static_cast<std::size_t>(layout.units));
    for (int unit = 0; unit < layout.units; ++unit) {
      Unit& made = units_.emplace_back();
      if (is_managed(mode))
        made.svm.emplace(memory.context, unit_bytes_, mode == HostMemory::Managed ? SvmGrain::Coarse : SvmGrain::Fine);
      else
        made.buffer = CC_CL_OUT(cl::Buffer(memory.context, flags, unit_bytes_, nullptr, err));
      if (copies_frames(mode)) continue;
      made.mapped = mode != HostMemory::ManagedFaults;  // fine-grained: always the host's to reach
      made.host = made.mapped ? map_now(made) : made.svm->get();
    }
  }
  ~ClSide() {
    // A buffer or SVM block is freed unmapped; every queue using it has finished (backends/measure.cpp).
    if (copies_frames(mode_)) return;
    try {
      for (const Unit& unit : units_)
        if (unit.mapped) CC_CL(unmap_call(setup_queue_, unit, nullptr));
      CC_CL(setup_queue_.finish());
    } catch (...) {  // already failing, or the device is lost: nothing more to hand back
    }
  }
  ClSide(const ClSide&) = delete;
  ClSide& operator=(const ClSide&) = delete;

  // Host to the unit's bytes from `offset`, after `after` where given; the write's event, kept on `queue`.
  cl::Event copy_in(int unit, const std::byte* host, std::size_t offset, std::size_t bytes, ClQueue& queue,
                    const std::vector<cl::Event>* after = nullptr) {
    const cl::Event written = enqueued([&](cl::Event* event) {
      return queue.get().enqueueWriteBuffer(buffer(unit), CL_FALSE, offset, bytes, host, after, event);
    }, "enqueueWriteBuffer", __FILE__, __LINE__);
    queue.keep(written);
    return written;
  }
  void copy_out(int unit, std::byte* host, std::size_t offset, std::size_t bytes, ClQueue& queue) const {
    CC_CL_ENQUEUE(queue, enqueueReadBuffer(buffer(unit), CL_FALSE, offset, bytes, host, nullptr, event));
  }
  void hand_over(int unit, ClQueue& queue) { release(unit, queue); }
  // The host's turn (fine-grained SVM: always the host's): the output to read, the input for the next
  // frame to arrive in (the protocol takes it to arrive there, as into a pinned buffer: backends/measure.cpp),
  // so that the next upload's unmap carries that frame to the device as a pinned upload would.
  void hand_back(int index, ClQueue& queue) const {
    Unit& unit = units_[static_cast<std::size_t>(index)];
    if (mode_ == HostMemory::ManagedFaults || unit.mapped) return;
    cl::Event event;
    if (mode_ == HostMemory::Managed) {
      check(enqueue_svm_map(queue.get(), unit.host, unit_bytes_, host_access(), &event), "clEnqueueSVMMap", __FILE__,
            __LINE__);
    } else {
      cl_int status = CL_SUCCESS;
      void* mapped = queue.get().enqueueMapBuffer(unit.buffer, CL_FALSE, host_access(), 0, unit_bytes_, nullptr,
                                                  &event, &status);
      check(status, "enqueueMapBuffer", __FILE__, __LINE__);
      // The host view (backends/device_api.h, HostView) holds the first address: a driver that maps
      // elsewhere the second time would leave it pointing at nothing.
      if (mapped != unit.host)
        throw ApiError("OpenCL", CL_MAP_FAILURE, "CL_MAP_FAILURE", "enqueueMapBuffer", __FILE__, __LINE__,
                       "the driver mapped a CL_MEM_ALLOC_HOST_PTR buffer at a new address");
    }
    if (carries(false)) queue.keep(event);
    unit.mapped = true;
  }
  void release(int index, ClQueue& queue) {
    Unit& unit = units_[static_cast<std::size_t>(index)];
    if (!unit.mapped) return;
    const cl::Event event = enqueued([&](cl::Event* made) { return unmap_call(queue.get(), unit, made); },
                                     "unmap (clEnqueueUnmapMemObject / clEnqueueSVMUnmap)", __FILE__, __LINE__);
    if (carries(true)) queue.keep(event);
    unit.mapped = false;
  }
  void fill(int unit, unsigned char byte, ClQueue& queue) {
    if (is_managed(mode_)) {
      queue.keep(enqueued([&](cl::Event* event) {
        return enqueue_svm_fill(queue.get(), units_[static_cast<std::size_t>(unit)].svm->get(), byte, unit_bytes_,
                                event);
      }, "clEnqueueSVMMemFill", __FILE__, __LINE__));
      return;
    }
    const cl_uchar pattern = byte;
    CC_CL_ENQUEUE(queue, enqueueFillBuffer(buffer(unit), pattern, 0, unit_bytes_, nullptr, event));
  }
  std::byte* host(int unit) const { return static_cast<std::byte*>(units_[static_cast<std::size_t>(unit)].host); }
  const cl::Buffer& buffer(int unit) const { return units_[static_cast<std::size_t>(unit)].buffer; }
  // The unit as the kernel's argument `index`: a buffer, or an SVM pointer.
  void set_arg(cl::Kernel& kernel, cl_uint index, int unit) const {
    if (is_managed(mode_))
      CC_CL(set_svm_arg(kernel, index, units_[static_cast<std::size_t>(unit)].svm->get()));
    else
      CC_CL(kernel.setArg(index, buffer(unit)));
  }

 private:
  struct Unit {
    cl::Buffer buffer;
    std::optional<SvmBuffer> svm;
    void* host = nullptr;  // the address the host reaches the unit at (stable: checked at each map)
    bool mapped = false;
  };
  // Whether a map (to the host) or an unmap (to the device) moves the unit's contents (host_access): the
  // input's unmap and the output's map do; the others are bookkeeping, in the queue's order but in no
  // span, since a command with nothing to do may carry timestamps that are not its place in the queue
  // (NVIDIA's OpenCL: a span from such an unmap to the kernel after it ended before it began).
  bool carries(bool to_device) const { return output_ != to_device; }
  // What the host does with a mapped unit, so that the driver moves only what it must: it writes every
  // byte of the input (a frame arriving) and never reads it, and reads the output (the poison it packs
  // there is the device's fill's too). A unit mapped for writing is copied to the device at its unmap, one
  // mapped for reading is not: NVIDIA's OpenCL spends a copy's time on each (0.31-0.35 ms a 16.8 MB buffer,
  // tools/probes/cl_svm_probe.cpp; docs/memory-spaces-evidence.md, "One pointer, pages migrated").
  cl_map_flags host_access() const { return output_ ? CL_MAP_READ : CL_MAP_WRITE_INVALIDATE_REGION; }
  void* map_now(Unit& unit) {
    if (mode_ == HostMemory::Managed) {
      CC_CL(enqueue_svm_map(setup_queue_, unit.svm->get(), unit_bytes_, host_access(), nullptr));
      return unit.svm->get();
    }
    return CC_CL_OUT(setup_queue_.enqueueMapBuffer(unit.buffer, CL_FALSE, host_access(), 0, unit_bytes_, nullptr,
                                                   nullptr, err));
  }
  cl_int unmap_call(const cl::CommandQueue& queue, const Unit& unit, cl::Event* event) const {
    if (mode_ == HostMemory::Managed) return enqueue_svm_unmap(queue, unit.host, event);
    return queue.enqueueUnmapMemObject(unit.buffer, unit.host, nullptr, event);
  }

  cl::CommandQueue setup_queue_;
  std::size_t unit_bytes_;
  HostMemory mode_;
  bool output_;
  mutable std::vector<Unit> units_;
};

// One frame's device memory: the one frame's input and output, fft's buffers (a frame's own, so that
// frames in flight on different queues share none of them), and --split's halo rows staged between
// devices of one context (cl_frame.cpp).
struct ClFrame final : UnitFrame<ClMemory> {
  ClFrame(const ClMemory& memory, const FrameLayout& layout, const LaunchPlan& plan, const Problem& problem,
          bool shared_context);
  ClFrame(const ClFrame&) = delete;
  ClFrame& operator=(const ClFrame&) = delete;
  ~ClFrame() override;

  // --split's halo rows of every unit, from another device's frame of the same context.
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
