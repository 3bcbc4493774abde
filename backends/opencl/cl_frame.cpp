// cl_frame.cpp: OpenCL's frame: its placement in a split's shared context, and --split's halo rows staged between its devices.
#include "backends/opencl/cl_frame.h"

#include <algorithm>
#include <stdexcept>

namespace cc::opencl {

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
