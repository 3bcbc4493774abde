// opencl_variants.cpp: OpenCL's generic variant of the described kernels, and its library variant (VkFFT), over OpenCL's frame in the one frame loop, with --split's halo copies within one context.
#include "backends/opencl/opencl_variants.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

#include "backends/described_variant.h"
#include "backends/frame_variant.h"
#include "backends/kernel_descriptions.h"
#include "backends/opencl/cl_api.h"
#include "backends/opencl/cl_check.h"
#include "backends/opencl/cl_svm.h"
#include "backends/split_session.h"
#include "common/domain/error.h"
#include "common/geometry/pixel_format.h"

namespace cc::opencl {

namespace {

// One frame's device memory: per unit (FrameLayout: a plane of floats, or the 8-bit interleaved image)
// an input (a buffer, or an image for texture) and an output, and fft's buffers (a frame's own, so that
// frames in flight on different queues share none of them). How a unit crosses is here; the loop over
// units is FrameVariant's. --memory mapped: CL_MEM_ALLOC_HOST_PTR buffers, mapped for the host and
// unmapped before the device uses them (the host reaches a buffer only while it is mapped); managed:
// coarse-grained SVM, mapped and unmapped the same way, passed by pointer (README.md, --memory);
// managed-faults: fine-grained SVM, never mapped, which the host reaches between commands.
struct ClFrame final : DeviceFrame {
  ClFrame(const cl::Context& context, const cl::CommandQueue& setup_queue, const FrameLayout& layout,
          const LaunchPlan& plan, const Problem& problem, const cl::ImageFormat& image_format, bool shared_context)
      : layout(layout), width(problem.width), height(problem.height), memory(plan.memory), setup_queue(setup_queue) {
    const cl_mem_flags host_flags = memory == HostMemory::Mapped ? CL_MEM_ALLOC_HOST_PTR : 0;
    for (int unit = 0; unit < layout.units; ++unit) {
      if (is_managed(memory)) {
        const SvmGrain grain = memory == HostMemory::Managed ? SvmGrain::Coarse : SvmGrain::Fine;
        svm_inputs.emplace_back(context, layout.unit_bytes, grain);
        svm_outputs.emplace_back(context, layout.unit_bytes, grain);
        continue;
      }
      if (plan.variant->input_as_image)
        images.push_back(CC_CL_OUT(
            cl::Image2D(context, CL_MEM_READ_ONLY, image_format, problem.width, problem.height, 0, nullptr, err)));
      else
        inputs.push_back(CC_CL_OUT(cl::Buffer(context, CL_MEM_READ_ONLY | host_flags, layout.unit_bytes, nullptr, err)));
      outputs.push_back(CC_CL_OUT(cl::Buffer(context, CL_MEM_READ_WRITE | host_flags, layout.unit_bytes, nullptr, err)));
    }
    // A memory object belongs to a context, not to one of its devices: in a split's context over several
    // (docs/multi-device.md) it would be placed on first use, maybe on the wrong device or on each in turn
    // (OpenCL 1.2 specification, 5.4.4 "Migrating Memory Objects"). Placed now on the device whose queue
    // this frame is set up on, its band's, the contents not copied as none are written yet.
    if (shared_context) {
      std::vector<cl::Memory> objects(inputs.begin(), inputs.end());
      objects.insert(objects.end(), outputs.begin(), outputs.end());
      objects.insert(objects.end(), images.begin(), images.end());
      CC_CL(this->setup_queue.enqueueMigrateMemObjects(objects, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED));
      if (copies_frames(memory)) make_staging(context, problem.radius_y());
    }
    if (copies_frames(memory)) return;
    // Every unit starts on the host's side, where the protocol packs the input (fine-grained: always there).
    const bool maps = memory != HostMemory::ManagedFaults;
    for (int unit = 0; unit < layout.units; ++unit)
      for (const bool output : {false, true})
        host.push_back({maps ? map_now(output, unit) : (output ? svm_outputs : svm_inputs)[unit].get(), maps});
    CC_CL(this->setup_queue.finish());
  }
  ClFrame(const ClFrame&) = delete;
  ClFrame& operator=(const ClFrame&) = delete;
  ~ClFrame() override {
    // A buffer or SVM block is freed unmapped; every queue using it has finished (backends/measure.cpp).
    try {
      for (int unit = 0; unit < static_cast<int>(host.size()) / 2; ++unit)
        for (const bool output : {false, true})
          if (side(output, unit).mapped) CC_CL(unmap_call(setup_queue, output, unit, nullptr));
      if (staging_host) CC_CL(setup_queue.enqueueUnmapMemObject(staging, staging_host));
      if (!host.empty() || staging_host) CC_CL(setup_queue.finish());
    } catch (...) {  // already failing, or the device is lost: nothing more to hand back
    }
  }

  void write(int unit, const std::byte* host_bytes, ClQueue& queue) {
    if (!copies_frames(memory)) return to_device(unit, queue);
    if (images.empty())
      CC_CL_ENQUEUE(queue, enqueueWriteBuffer(inputs[unit], CL_FALSE, 0, layout.unit_bytes, host_bytes, nullptr, event));
    else
      CC_CL_ENQUEUE(queue, enqueueWriteImage(images[unit], CL_FALSE, {0, 0, 0}, {width, height, 1},
                                             row_bytes(), 0, host_bytes, nullptr, event));
  }
  // --split's rows of a unit (copies only: the split refuses mapped and managed frames), after `after`
  // where given (a staged halo's read on another device's queue); the write's event, kept on `queue`.
  cl::Event write_rows(int unit, const std::byte* host_bytes, int row, int rows, ClQueue& queue,
                       const std::vector<cl::Event>* after = nullptr) {
    if (!copies_frames(memory)) throw std::logic_error("rows are copied only between pinned or pageable frames");
    const auto first = static_cast<std::size_t>(row), count = static_cast<std::size_t>(rows);
    const cl::Event written = enqueued(
        [&](cl::Event* event) {
          if (images.empty())
            return queue.get().enqueueWriteBuffer(inputs[unit], CL_FALSE, row_bytes() * first, row_bytes() * count,
                                                  host_bytes, after, event);
          return queue.get().enqueueWriteImage(images[unit], CL_FALSE, {0, first, 0}, {width, count, 1}, row_bytes(), 0,
                                               host_bytes, after, event);
        },
        "enqueueWriteBuffer / enqueueWriteImage (rows)", __FILE__, __LINE__);
    queue.keep(written);
    return written;
  }
  // --split's halo rows of every unit, from another device's frame of the same context: read on the source's
  // queue after its upload (in order), into this frame's page-locked staging rows, then written on `queue`
  // once that read completes, an event of one context (docs/multi-device.md, "OpenCL: one context"). Not
  // clEnqueueCopyBuffer between the two devices' buffers: NVIDIA's OpenCL spends 359 ms an upload around it,
  // growing with the bands, against 2.66 staged at 8192^2 (tools/probes/cl_halo_probe.cpp; docs/performance.md).
  void copy_rows_from(const ClFrame& source, const RowCopy& copy, ClQueue& source_queue, ClQueue& queue) {
    const auto from = static_cast<std::size_t>(copy.from);
    const auto rows = static_cast<std::size_t>(copy.rows);
    for (int unit = 0; unit < layout.units; ++unit) {
      std::byte* staged = staging_rows(unit, copy);
      // The last frame's write from these rows has read them before they are written again.
      std::vector<cl::Event> slot_free;
      if (auto last = staged_writes.find({unit, copy.to}); last != staged_writes.end()) slot_free.push_back(last->second);
      const cl::Event read = enqueued(
          [&](cl::Event* event) {
            const cl::CommandQueue& from_queue = source_queue.get();
            if (images.empty())
              return from_queue.enqueueReadBuffer(source.inputs[unit], CL_FALSE, row_bytes() * from,
                                                  row_bytes() * rows, staged, &slot_free, event);
            return from_queue.enqueueReadImage(source.images[unit], CL_FALSE, {0, from, 0}, {width, rows, 1},
                                               row_bytes(), 0, staged, &slot_free, event);
          },
          "enqueueReadBuffer / enqueueReadImage (halo rows into staging)", __FILE__, __LINE__);
      source_queue.keep(read);
      // A command waiting on another queue's event needs that queue flushed first (OpenCL 1.2
      // specification, 5.13 "Flush and Finish"), or the wait may never end.
      source_queue.flush();
      const std::vector<cl::Event> after{read};
      const cl::Event written = write_rows(unit, staged, copy.to, copy.rows, queue, &after);
      staged_writes[{unit, copy.to}] = written;
    }
  }
  void read_rows(int unit, std::byte* host_bytes, int row, int rows, ClQueue& queue) const {
    if (!copies_frames(memory)) throw std::logic_error("rows are copied only between pinned or pageable frames");
    CC_CL_ENQUEUE(queue, enqueueReadBuffer(outputs[unit], CL_FALSE, row_bytes() * static_cast<std::size_t>(row),
                                           row_bytes() * static_cast<std::size_t>(rows), host_bytes, nullptr, event));
  }
  void read(int unit, std::byte* host_bytes, ClQueue& queue) const {
    if (copies_frames(memory))
      return (void)CC_CL_ENQUEUE(queue, enqueueReadBuffer(outputs[unit], CL_FALSE, 0, layout.unit_bytes, host_bytes,
                                                          nullptr, event));
    if (memory == HostMemory::ManagedFaults) return;
    // The host's turn: the result to read, and the input for the next frame to arrive in (the protocol
    // takes it to arrive there, as into a pinned buffer: backends/measure.cpp), so that the next upload's
    // unmap carries that frame to the device as a pinned upload would.
    for (const bool output : {true, false}) map_for_host(output, unit, queue);
  }
  void map_for_host(bool output, int unit, ClQueue& queue) const {
    HostSide& unit_side = side(output, unit);
    if (unit_side.mapped) return;
    cl::Event event;
    if (memory == HostMemory::Managed) {
      check(enqueue_svm_map(queue.get(), unit_side.data, layout.unit_bytes, host_access(output), &event),
            "clEnqueueSVMMap", __FILE__, __LINE__);
    } else {
      cl_int status = CL_SUCCESS;
      void* mapped = queue.get().enqueueMapBuffer((output ? outputs : inputs)[unit], CL_FALSE, host_access(output), 0,
                                                  layout.unit_bytes, nullptr, &event, &status);
      check(status, "enqueueMapBuffer", __FILE__, __LINE__);
      // The host view (backends/device_api.h, HostView) holds the first address: a driver that maps
      // elsewhere the second time would leave it pointing at nothing.
      if (mapped != unit_side.data)
        throw ApiError("OpenCL", CL_MAP_FAILURE, "CL_MAP_FAILURE", "enqueueMapBuffer", __FILE__, __LINE__,
                       "the driver mapped a CL_MEM_ALLOC_HOST_PTR buffer at a new address");
    }
    if (carries(output, false)) queue.keep(event);
    unit_side.mapped = true;
  }
  void fill(unsigned char byte, ClQueue& queue) {
    const cl_uchar pattern = byte;
    for (int unit = 0; unit < layout.units; ++unit) {
      if (!copies_frames(memory)) to_device(unit, queue);
      if (is_managed(memory))
        queue.keep(enqueued([&](cl::Event* event) {
          return enqueue_svm_fill(queue.get(), svm_outputs[unit].get(), byte, layout.unit_bytes, event);
        }, "clEnqueueSVMMemFill", __FILE__, __LINE__));
      else
        CC_CL_ENQUEUE(queue, enqueueFillBuffer(outputs[unit], pattern, 0, layout.unit_bytes, nullptr, event));
    }
  }
  std::vector<std::byte*> host_units(bool output) const {
    std::vector<std::byte*> units;
    for (int unit = 0; unit < static_cast<int>(host.size()) / 2; ++unit)
      units.push_back(static_cast<std::byte*>(side(output, unit).data));
    return units;
  }
  // The unit's input or output as the kernel's argument `index`: a buffer, or an SVM pointer.
  void set_arg(cl::Kernel& kernel, cl_uint index, bool output, int unit) const {
    if (is_managed(memory))
      CC_CL(set_svm_arg(kernel, index, (output ? svm_outputs : svm_inputs)[unit].get()));
    else
      CC_CL(kernel.setArg(index, (output ? outputs : inputs)[unit]));
  }
  // Mapped and managed: the unit's memory handed back to the device before a command uses it.
  void to_device(int unit, ClQueue& queue) const {
    if (copies_frames(memory)) return;
    for (const bool output : {false, true})
      if (HostSide& mapped = side(output, unit); mapped.mapped) {
        const cl::Event event = enqueued([&](cl::Event* made) { return unmap_call(queue.get(), output, unit, made); },
                                         "unmap (clEnqueueUnmapMemObject / clEnqueueSVMUnmap)", __FILE__, __LINE__);
        if (carries(output, true)) queue.keep(event);
        mapped.mapped = false;
      }
  }
  // Whether a map (to the host) or an unmap (to the device) of a unit moves its contents (host_access):
  // the input's unmap and the output's map do; the others are bookkeeping, in the queue's order but in no
  // span, since a command with nothing to do may carry timestamps that are not its place in the queue
  // (NVIDIA's OpenCL: a span from such an unmap to the kernel after it ended before it began).
  static bool carries(bool output, bool to_device) { return output != to_device; }

  std::size_t row_bytes() const { return layout.unit_bytes / height; }  // one row of a unit

  FrameLayout layout;
  std::size_t width, height;
  HostMemory memory;
  cl::CommandQueue setup_queue;  // the first maps and the last unmaps
  std::vector<cl::Buffer> inputs, outputs;
  std::vector<SvmBuffer> svm_inputs, svm_outputs;
  std::vector<cl::Image2D> images;
  std::unique_ptr<FftConvolver> fft;

 private:
  // --split's halo rows on their way between devices (copy_rows_from): page-locked, in the split's context,
  // mapped for the frame's life. Per unit, its halo rows above (at most the filter's radius, the first rows
  // of the band's sub-image) then below (the last rows), or every row of a band shorter than both.
  cl::Buffer staging;
  std::byte* staging_host = nullptr;
  std::size_t staging_rows_per_unit = 0;
  std::size_t radius_rows = 0;
  std::map<std::pair<int, int>, cl::Event> staged_writes;  // per (unit, destination row): the last write from it

  void make_staging(const cl::Context& context, int radius_y) {
    radius_rows = static_cast<std::size_t>(radius_y);
    staging_rows_per_unit = std::min(height, 2 * radius_rows);
    if (staging_rows_per_unit == 0) return;
    const std::size_t bytes = row_bytes() * staging_rows_per_unit * static_cast<std::size_t>(layout.units);
    staging = CC_CL_OUT(cl::Buffer(context, CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, err));
    staging_host = static_cast<std::byte*>(CC_CL_OUT(setup_queue.enqueueMapBuffer(
        staging, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, err)));
  }
  std::byte* staging_rows(int unit, const RowCopy& copy) const {
    const auto to = static_cast<std::size_t>(copy.to), rows = static_cast<std::size_t>(copy.rows);
    const bool whole = height <= 2 * radius_rows;
    const std::size_t row = whole || to < radius_rows ? to : to - (height - 2 * radius_rows);
    const bool halo_row = whole || to + rows <= radius_rows || to >= height - radius_rows;
    if (!staging_host || !halo_row || row + rows > staging_rows_per_unit)
      throw std::logic_error("halo rows outside the band's halo: no staging rows for them");
    return staging_host + (static_cast<std::size_t>(unit) * staging_rows_per_unit + row) * row_bytes();
  }

  struct HostSide {
    void* data = nullptr;  // the address the host reaches the unit at (stable: checked at each map)
    bool mapped = false;
  };
  mutable std::vector<HostSide> host;  // per unit, its input then its output

  HostSide& side(bool output, int unit) const { return host[2 * unit + (output ? 1 : 0)]; }
  // What the host does with a mapped unit, so that the driver moves only what it must: it writes every
  // byte of the input (a frame arriving) and never reads it, and reads the output (the poison it packs
  // there is the device's fill's too). A unit mapped for writing is copied to the device at its unmap,
  // one mapped for reading is not: NVIDIA's OpenCL spends a copy's time on each (0.31-0.35 ms a 16.8 MB
  // buffer, tools/probes/cl_svm_probe.cpp; docs/memory-spaces-evidence.md, "One pointer, pages migrated").
  static cl_map_flags host_access(bool output) { return output ? CL_MAP_READ : CL_MAP_WRITE_INVALIDATE_REGION; }
  void* map_now(bool output, int unit) {
    if (memory == HostMemory::Managed) {
      void* data = (output ? svm_outputs : svm_inputs)[unit].get();
      CC_CL(enqueue_svm_map(setup_queue, data, layout.unit_bytes, host_access(output), nullptr));
      return data;
    }
    return CC_CL_OUT(setup_queue.enqueueMapBuffer((output ? outputs : inputs)[unit], CL_FALSE, host_access(output), 0,
                                                  layout.unit_bytes, nullptr, nullptr, err));
  }
  cl_int unmap_call(const cl::CommandQueue& queue, bool output, int unit, cl::Event* event) const {
    if (memory == HostMemory::Managed) return enqueue_svm_unmap(queue, side(output, unit).data, event);
    return queue.enqueueUnmapMemObject((output ? outputs : inputs)[unit], side(output, unit).data, nullptr, event);
  }
};

// `values` in a new read-only buffer of `context`, written on `queue`.
cl::Buffer upload_floats(const cl::Context& context, const cl::CommandQueue& queue, const std::vector<float>& values) {
  const std::size_t bytes = values.size() * sizeof(float);
  cl::Buffer buffer = CC_CL_OUT(cl::Buffer(context, CL_MEM_READ_ONLY, bytes, nullptr, err));
  CC_CL(queue.enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, values.data()));
  return buffer;
}

// `kernel` over the plan's groups.
void enqueue_groups(const cl::Kernel& kernel, const LaunchPlan& plan, ClQueue& queue) {
  const cl::NDRange global(plan.groups.x * plan.group.x, plan.groups.y * plan.group.y);
  CC_CL_ENQUEUE(queue, enqueueNDRangeKernel(kernel, cl::NullRange, global, cl::NDRange(plan.group.x, plan.group.y),
                                            nullptr, event));
}

// What every OpenCL variant shares over the one frame loop (backends/frame_variant.h): an API variant adds
// its filter setup (constructor) and its kernel arguments for one plane. --split's halo rows go device to
// device where the devices share one context (backends/split_session.h's PeerRows; docs/multi-device.md).
class ClVariant : public FrameVariant<ClFrame, ClQueue>, public PeerRows {
 public:
  ClVariant(const ApiVariantSetup& setup, const cl::CommandQueue& queue)
      : FrameVariant(setup.plan, setup.problem), context_(setup.context), setup_queue_(queue),
        image_format_(image_format(pixel_format(setup.problem)).format),
        shared_context_(CC_CL_OUT(context_.getInfo<CL_CONTEXT_NUM_DEVICES>(err)) > 1), unshared_(setup.unshared) {}

  std::string_view peer_route() const override {
    return "device to device in one context, through page-locked staging";
  }
  std::string peer_refusal(const PreparedVariant& source) const override {
    const auto* other = dynamic_cast<const ClVariant*>(&source);
    if (other && other->context_() == context_()) return "";
    return unshared_.empty() ? "the devices have an OpenCL context each" : unshared_;
  }
  void copy_rows_from(DeviceFrame& frame, DeviceQueue& queue, const DeviceFrame& source_frame,
                      DeviceQueue& source_queue, const RowCopy& copy) const override {
    static_cast<ClFrame&>(frame).copy_rows_from(static_cast<const ClFrame&>(source_frame), copy,
                                                static_cast<ClQueue&>(source_queue), static_cast<ClQueue&>(queue));
  }

 protected:
  std::unique_ptr<ClFrame> new_frame() const final {
    return std::make_unique<ClFrame>(context_, setup_queue_, layout_, plan_, problem_, image_format_, shared_context_);
  }
  // Fine-grained SVM (managed-faults) has no map or unmap: nothing crosses before or after the kernel.
  bool handover_is_command() const final { return plan_.memory != HostMemory::ManagedFaults; }

  cl::Context context_;
  cl::CommandQueue setup_queue_;  // filter uploads; fft: each frame's filter spectrum
  cl::ImageFormat image_format_;  // texture's input
  bool shared_context_;           // a split's context over several devices: frames placed on this one
  std::string unshared_;          // ApiVariantSetup::unshared
};

// An API variant's prepare (backends/api_variant.h): the setup is OpenCL's, the queue a ClQueue.
template <typename Variant>
std::unique_ptr<PreparedVariant> prepare(const VariantSetup& setup, DeviceQueue& queue) {
  return std::make_unique<Variant>(static_cast<const ApiVariantSetup&>(setup), static_cast<ClQueue&>(queue).get());
}

// --- every variant but fft: our kernels, as backends/kernel_descriptions.h describes them, through the one
// generic variant (backends/described_variant.h) over OpenCL's kernel -------------------------------------
// A described kernel as OpenCL launches it: each filter role uploaded as a buffer (the kernel declares it
// __global or __constant, the host passes a buffer either way), an image with its sampler, the tile as a
// __local argument of the plan's on-chip bytes; the arguments set in the description's order, then the
// plan's groups.
class ClKernel {
 public:
  using Filter = cl::Buffer;

  // setArg changes a kernel, but each enqueue captures the arguments it had: one kernel serves every
  // plane and frame, so launching stays a const operation on the variant.
  class Arguments {
   public:
    Arguments(cl::Kernel& kernel, const cl::Sampler& sampler) : kernel_(kernel), sampler_(sampler) {}
    void input(const ClFrame& frame, int unit) { frame.set_arg(kernel_, index_++, false, unit); }
    void image(const ClFrame& frame, int unit) {
      CC_CL(kernel_.setArg(index_++, frame.images[static_cast<std::size_t>(unit)]));
      CC_CL(kernel_.setArg(index_++, sampler_));
    }
    void output(const ClFrame& frame, int unit) { frame.set_arg(kernel_, index_++, true, unit); }
    void filter(const Filter& filter) { CC_CL(kernel_.setArg(index_++, filter)); }
    void value(const ConvArgs& args) { CC_CL(kernel_.setArg(index_++, args)); }
    void local_bytes(std::size_t bytes) { CC_CL(kernel_.setArg(index_++, cl::Local(bytes))); }

   private:
    cl::Kernel& kernel_;
    const cl::Sampler& sampler_;
    cl_uint index_ = 0;
  };

  explicit ClKernel(const ApiVariantSetup& setup) : context_(setup.context), kernel_(setup.kernels[0]) {
    // Zero border from CLK_ADDRESS_CLAMP, clamp from CLAMP_TO_EDGE; texture.cl folds the rest.
    if (setup.description->args.has(ArgRole::Image))
      sampler_ = CC_CL_OUT(cl::Sampler(context_, CL_FALSE,
                                       setup.problem.border == Border::Zero ? CL_ADDRESS_CLAMP : CL_ADDRESS_CLAMP_TO_EDGE,
                                       CL_FILTER_NEAREST, err));
  }

  Filter upload_filter(const char*, const std::vector<float>& values, bool, const cl::CommandQueue& queue) const {
    return upload_floats(context_, queue, values);
  }

  // Mapped and managed: the host's map of the unit ends before the kernel reads it.
  Arguments bind(ClFrame& frame, int unit, ClQueue& queue) const {
    frame.to_device(unit, queue);
    return Arguments(const_cast<cl::Kernel&>(kernel_), sampler_);
  }

  void launch(Arguments&, const LaunchPlan& plan, ClQueue& queue) const { enqueue_groups(kernel_, plan, queue); }

 private:
  cl::Context context_;
  cl::Kernel kernel_;
  cl::Sampler sampler_;  // an Image's
};

using ClDescribedVariant = DescribedVariant<ClVariant, ClKernel>;

#ifdef CONVCOMPARE_WITH_VKFFT
// --- fft: VkFFT's transforms and fft.cl's kernels, each frame its own convolver --------------------------
class FftVariant final : public ClVariant {
 public:
  FftVariant(const ApiVariantSetup& setup, const cl::CommandQueue& queue)
      : ClVariant(setup, queue), program_(setup.program), fft_plan_(*setup.fft) {}

 private:
  void add_to_frame(ClFrame& frame) const override {
    frame.fft = std::make_unique<FftConvolver>(context_, setup_queue_, program_, plan_.group.x, plan_.group.y,
                                               fft_plan_, problem_);
  }
  std::size_t library_bytes(const ClFrame& frame) const override { return frame.fft->temporary_bytes(); }
  void launch_unit(ClFrame& frame, int c, ClQueue& queue) const override {
    frame.fft->convolve_plane(frame.inputs[c], frame.outputs[c], queue);
  }
  cl::Program program_;
  VkFftPlan& fft_plan_;
};
constexpr PrepareVariantFn kFft = &prepare<FftVariant>;
constexpr std::string_view kNoFft = "";
#else
constexpr PrepareVariantFn kFft = nullptr;
constexpr std::string_view kNoFft = "VkFFT not found at build time";
#endif

// The API's own variants, where a library does the work; every other variant of the table is a
// DescribedVariant.
constexpr std::string_view kFftKernels[] = {"fft_pad", "fft_multiply", "fft_crop", "fft_bands"};
constexpr LibraryVariant kLibraryVariants[] = {
    {.variant = "fft", .prepare = kFft, .missing = kNoFft, .file = "fft", .kernels = kFftKernels},
};

}  // namespace

std::span<const ApiVariant> api_variants() {
  static const std::vector<ApiVariant> made = make_api_variants("opencl", {&prepare<ClDescribedVariant>}, kLibraryVariants);
  return made;
}

ClImageFormat image_format(int pixel_format) {
  switch (pixel_format) {
    case CC_PIXEL_U8: return {cl::ImageFormat(CL_R, CL_UNORM_INT8), "CL_R / CL_UNORM_INT8"};
    case CC_PIXEL_U8X4: return {cl::ImageFormat(CL_RGBA, CL_UNORM_INT8), "CL_RGBA / CL_UNORM_INT8"};
    default: return {cl::ImageFormat(CL_R, CL_FLOAT), "CL_R / CL_FLOAT"};
  }
}

}  // namespace cc::opencl
