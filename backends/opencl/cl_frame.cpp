// cl_frame.cpp: OpenCL's frame memory: each mode's allocations and maps, the copies, and --split's staged halo rows.
#include "backends/opencl/cl_frame.h"

#include <algorithm>
#include <stdexcept>

#include "backends/opencl/cl_check.h"
#include "common/domain/error.h"

namespace cc::opencl {

ClMemory::Image ClMemory::make_image() const {
  return CC_CL_OUT(cl::Image2D(context, CL_MEM_READ_ONLY, image_format, width, height, 0, nullptr, err));
}

cl::Event ClMemory::copy_in(const Image& image, const std::byte* host, int row, int rows, ClQueue& queue,
                            const std::vector<cl::Event>* after) const {
  const auto first = static_cast<std::size_t>(row), count = static_cast<std::size_t>(rows);
  const cl::Event written = enqueued([&](cl::Event* event) {
    return queue.get().enqueueWriteImage(image, CL_FALSE, {0, first, 0}, {width, count, 1}, row_bytes, 0, host, after,
                                         event);
  }, "enqueueWriteImage", __FILE__, __LINE__);
  queue.keep(written);
  return written;
}

ClSide::ClSide(const ClMemory& memory, const FrameLayout& layout, HostMemory mode, bool output)
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

ClSide::~ClSide() {
  // A buffer or SVM block is freed unmapped; every queue using it has finished (backends/measure.cpp).
  if (copies_frames(mode_)) return;
  try {
    for (const Unit& unit : units_)
      if (unit.mapped) CC_CL(unmap_call(setup_queue_, unit, nullptr));
    CC_CL(setup_queue_.finish());
  } catch (...) {  // already failing, or the device is lost: nothing more to hand back
  }
}

cl::Event ClSide::copy_in(int unit, const std::byte* host, std::size_t offset, std::size_t bytes, ClQueue& queue,
                          const std::vector<cl::Event>* after) {
  const cl::Event written = enqueued([&](cl::Event* event) {
    return queue.get().enqueueWriteBuffer(buffer(unit), CL_FALSE, offset, bytes, host, after, event);
  }, "enqueueWriteBuffer", __FILE__, __LINE__);
  queue.keep(written);
  return written;
}

void ClSide::copy_out(int unit, std::byte* host, std::size_t offset, std::size_t bytes, ClQueue& queue) const {
  CC_CL_ENQUEUE(queue, enqueueReadBuffer(buffer(unit), CL_FALSE, offset, bytes, host, nullptr, event));
}

// The host's turn (fine-grained SVM: always the host's): the output to read, the input for the next frame
// to arrive in (the protocol takes it to arrive there, as into a pinned buffer: backends/measure.cpp), so
// that the next upload's unmap carries that frame to the device as a pinned upload would.
void ClSide::hand_back(int index, ClQueue& queue) const {
  Unit& unit = units_[static_cast<std::size_t>(index)];
  if (mode_ == HostMemory::ManagedFaults || unit.mapped) return;
  cl::Event event;
  if (mode_ == HostMemory::Managed) {
    check(enqueue_svm_map(queue.get(), unit.host, unit_bytes_, host_access(), &event), "clEnqueueSVMMap", __FILE__,
          __LINE__);
  } else {
    cl_int status = CL_SUCCESS;
    void* mapped = queue.get().enqueueMapBuffer(unit.buffer, CL_FALSE, host_access(), 0, unit_bytes_, nullptr, &event,
                                                &status);
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

void ClSide::release(int index, ClQueue& queue) {
  Unit& unit = units_[static_cast<std::size_t>(index)];
  if (!unit.mapped) return;
  const cl::Event event = enqueued([&](cl::Event* made) { return unmap_call(queue.get(), unit, made); },
                                   "unmap (clEnqueueUnmapMemObject / clEnqueueSVMUnmap)", __FILE__, __LINE__);
  if (carries(true)) queue.keep(event);
  unit.mapped = false;
}

void ClSide::fill(int unit, unsigned char byte, ClQueue& queue) {
  if (is_managed(mode_)) {
    queue.keep(enqueued([&](cl::Event* event) {
      return enqueue_svm_fill(queue.get(), units_[static_cast<std::size_t>(unit)].svm->get(), byte, unit_bytes_, event);
    }, "clEnqueueSVMMemFill", __FILE__, __LINE__));
    return;
  }
  const cl_uchar pattern = byte;
  CC_CL_ENQUEUE(queue, enqueueFillBuffer(buffer(unit), pattern, 0, unit_bytes_, nullptr, event));
}

void ClSide::set_arg(cl::Kernel& kernel, cl_uint index, int unit) const {
  if (is_managed(mode_))
    CC_CL(set_svm_arg(kernel, index, units_[static_cast<std::size_t>(unit)].svm->get()));
  else
    CC_CL(kernel.setArg(index, buffer(unit)));
}

// What the host does with a mapped unit, so that the driver moves only what it must: it writes every byte
// of the input (a frame arriving) and never reads it, and reads the output (the poison it packs there is
// the device's fill's too). A unit mapped for writing is copied to the device at its unmap, one mapped for
// reading is not: NVIDIA's OpenCL spends a copy's time on each (0.31-0.35 ms a 16.8 MB buffer,
// tools/probes/cl_svm_probe.cpp; docs/memory-spaces-evidence.md, "One pointer, pages migrated").
cl_map_flags ClSide::host_access() const { return output_ ? CL_MAP_READ : CL_MAP_WRITE_INVALIDATE_REGION; }

void* ClSide::map_now(Unit& unit) {
  if (mode_ == HostMemory::Managed) {
    CC_CL(enqueue_svm_map(setup_queue_, unit.svm->get(), unit_bytes_, host_access(), nullptr));
    return unit.svm->get();
  }
  return CC_CL_OUT(setup_queue_.enqueueMapBuffer(unit.buffer, CL_FALSE, host_access(), 0, unit_bytes_, nullptr,
                                                 nullptr, err));
}

cl_int ClSide::unmap_call(const cl::CommandQueue& queue, const Unit& unit, cl::Event* event) const {
  if (mode_ == HostMemory::Managed) return enqueue_svm_unmap(queue, unit.host, event);
  return queue.enqueueUnmapMemObject(unit.buffer, unit.host, nullptr, event);
}

ClFrame::ClFrame(const ClMemory& memory, const FrameLayout& layout, const LaunchPlan& plan, const Problem& problem,
                 bool shared_context)
    : UnitFrame(memory, layout, plan, problem.height) {
  // A memory object belongs to a context, not to one of its devices: in a split's context over several
  // (docs/multi-device.md) it would be placed on first use, maybe on the wrong device or on each in turn
  // (OpenCL 1.2 specification, 5.4.4 "Migrating Memory Objects"). Placed now on the device whose queue
  // this frame is set up on, its band's, the contents not copied as none are written yet.
  if (shared_context) {
    std::vector<cl::Memory> objects(images.begin(), images.end());
    for (int unit = 0; unit < layout.units; ++unit) {
      if (input) objects.push_back(input->buffer(unit));
      objects.push_back(output->buffer(unit));
    }
    CC_CL(memory.setup_queue.enqueueMigrateMemObjects(objects, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED));
    if (copies_frames(mode)) make_staging(problem.radius_y());
  }
  if (!copies_frames(mode)) CC_CL(this->memory.setup_queue.finish());  // the first maps
}

ClFrame::~ClFrame() {
  try {
    if (staging_host_) {
      CC_CL(memory.setup_queue.enqueueUnmapMemObject(staging_, staging_host_));
      CC_CL(memory.setup_queue.finish());
    }
  } catch (...) {  // already failing, or the device is lost: nothing more to hand back
  }
}

// Read on the source's queue after its upload (in order), into this frame's page-locked staging rows, then
// written on `queue` once that read completes, an event of one context (docs/multi-device.md, "OpenCL: one
// context"). Not clEnqueueCopyBuffer between the two devices' buffers: NVIDIA's OpenCL spends 359 ms an
// upload around it, growing with the bands, against 2.66 staged at 8192^2 (tools/probes/cl_halo_probe.cpp;
// docs/performance.md).
void ClFrame::copy_rows_from(const ClFrame& source, const RowCopy& copy, ClQueue& source_queue, ClQueue& queue) {
  if (!copies_frames(mode)) throw std::logic_error("rows are copied only between pinned or pageable frames");
  const auto from = static_cast<std::size_t>(copy.from);
  const auto rows = static_cast<std::size_t>(copy.rows);
  for (int unit = 0; unit < layout.units; ++unit) {
    std::byte* staged = staging_rows(unit, copy);
    // The last frame's write from these rows has read them before they are written again.
    std::vector<cl::Event> slot_free;
    if (auto last = staged_writes_.find({unit, copy.to}); last != staged_writes_.end()) slot_free.push_back(last->second);
    const cl::Event read = enqueued(
        [&](cl::Event* event) {
          const cl::CommandQueue& from_queue = source_queue.get();
          if (images.empty())
            return from_queue.enqueueReadBuffer(source.input->buffer(unit), CL_FALSE, row_bytes() * from,
                                                row_bytes() * rows, staged, &slot_free, event);
          return from_queue.enqueueReadImage(source.images[static_cast<std::size_t>(unit)], CL_FALSE, {0, from, 0},
                                             {memory.width, rows, 1}, row_bytes(), 0, staged, &slot_free, event);
        },
        "enqueueReadBuffer / enqueueReadImage (halo rows into staging)", __FILE__, __LINE__);
    source_queue.keep(read);
    // A command waiting on another queue's event needs that queue flushed first (OpenCL 1.2
    // specification, 5.13 "Flush and Finish"), or the wait may never end.
    source_queue.flush();
    const std::vector<cl::Event> after{read};
    staged_writes_[{unit, copy.to}] =
        images.empty() ? input->copy_in(unit, staged, row_bytes() * static_cast<std::size_t>(copy.to), row_bytes() * rows, queue, &after)
                       : memory.copy_in(images[static_cast<std::size_t>(unit)], staged, copy.to, copy.rows, queue, &after);
  }
}

void ClFrame::make_staging(int radius_y) {
  radius_rows_ = static_cast<std::size_t>(radius_y);
  staging_rows_per_unit_ = std::min(height, 2 * radius_rows_);
  if (staging_rows_per_unit_ == 0) return;
  const std::size_t bytes = row_bytes() * staging_rows_per_unit_ * static_cast<std::size_t>(layout.units);
  staging_ = CC_CL_OUT(cl::Buffer(memory.context, CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, err));
  staging_host_ = static_cast<std::byte*>(CC_CL_OUT(memory.setup_queue.enqueueMapBuffer(
      staging_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, err)));
}

std::byte* ClFrame::staging_rows(int unit, const RowCopy& copy) const {
  const auto to = static_cast<std::size_t>(copy.to), rows = static_cast<std::size_t>(copy.rows);
  const bool whole = height <= 2 * radius_rows_;
  const std::size_t row = whole || to < radius_rows_ ? to : to - (height - 2 * radius_rows_);
  const bool halo_row = whole || to + rows <= radius_rows_ || to >= height - radius_rows_;
  if (!staging_host_ || !halo_row || row + rows > staging_rows_per_unit_)
    throw std::logic_error("halo rows outside the band's halo: no staging rows for them");
  return staging_host_ + (static_cast<std::size_t>(unit) * staging_rows_per_unit_ + row) * row_bytes();
}

}  // namespace cc::opencl
