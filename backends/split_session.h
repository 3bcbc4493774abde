// split_session.h: --split: several devices of one API seen as one DeviceSession, one frame cut in bands, so measure_run times it unchanged.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/device_api.h"
#include "common/geometry/band_plan.h"

namespace cc {

// The devices of one split, each with its band (common/geometry/band_plan.h), as the one session the
// measurement protocol (backends/measure.h) is written against (docs/multi-device.md):
//  - a queue is one queue per device; a span brackets each device's queue and lasts as long as the
//    slowest (the devices run their bands at the same time, so the frame is done when the last is);
//  - a frame is one band frame per device (the band's sub-image: its halo rows and its own);
//  - the host frames are the whole image's, made by the first device's session (CUDA's page-locked
//    memory is every device's under unified addressing; an OpenCL mapped buffer is host memory any
//    queue can copy from); the upload copies each band its input rows from them, halo rows included
//    (or, where the API's devices reach each other, only its own rows, the halos then copied device to
//    device: SplitVariant), the download each band's own rows back.
// `sessions` and `plan.bands` are in the same order; the variants that measure_run's prepare step
// makes, one per device, are joined by SplitVariant below.
class SplitSession final : public DeviceSession {
 public:
  SplitSession(std::vector<std::unique_ptr<DeviceSession>> sessions, BandPlan plan, int height);
  std::unique_ptr<DeviceQueue> make_queue() override;
  std::unique_ptr<HostFrame> make_pinned_frame(const FrameLayout& layout, DeviceQueue& queue) override;
  bool out_of_memory(const ApiError& error) const override;
  std::size_t cache_bytes() const override;
  std::unique_ptr<CacheScratch> make_cache_scratch(std::size_t bytes) override;

  // The device queue of `device` within a split queue made by make_queue(), its device made current.
  static DeviceQueue& part(DeviceQueue& queue, int device);
  const BandPlan& plan() const { return plan_; }
  int height() const { return height_; }

 private:
  std::vector<std::unique_ptr<DeviceSession>> sessions_;
  BandPlan plan_;
  int height_;
};

// What an API variant offers where its devices reach each other's memory (CUDA: cudaMemcpyPeerAsync;
// OpenCL: devices of one context): a frame's input rows copied from another device's frame of the same
// API, after the commands already queued on that device's queue (its upload), for --split's halo
// exchange (docs/multi-device.md).
class PeerRows {
 public:
  virtual ~PeerRows() = default;
  // How the rows go, for the halo route ("halo rows <this>: ..."): CUDA's peer copies, OpenCL's reads and
  // writes through page-locked staging within one context.
  virtual std::string_view peer_route() const { return "peer to peer"; }
  // Why this variant's frames cannot take rows from `source`'s (a variant on another device), or "".
  // May enable the access it needs (cudaDeviceEnablePeerAccess), and leave another device current.
  virtual std::string peer_refusal(const PreparedVariant& source) const = 0;
  // Queues on `queue`, after everything queued so far on `source_queue`: `copy.rows` rows of every unit
  // from row `copy.from` of `source_frame`'s input to row `copy.to` of `frame`'s input.
  virtual void copy_rows_from(DeviceFrame& frame, DeviceQueue& queue, const DeviceFrame& source_frame,
                              DeviceQueue& source_queue, const RowCopy& copy) const = 0;
};

// Each device's variant, set up for its band's sub-problem, as one PreparedVariant of the whole frame.
// Where every device's variant offers PeerRows and each pair a halo crosses can use it, each device
// uploads only its own rows and takes its halo rows from the devices that hold them (halo_copies);
// else every band's upload carries its halo rows from the host (input_copies).
class SplitVariant final : public PreparedVariant {
 public:
  // `setup`: the split queue the parts were prepared on, which outlives this variant (measure.h).
  SplitVariant(std::vector<std::unique_ptr<PreparedVariant>> parts, const SplitSession& session, DeviceQueue& setup);
  std::unique_ptr<DeviceFrame> make_frame() const override;
  void upload(DeviceFrame& frame, const HostFrame& host, DeviceQueue& queue) const override;
  void launch(DeviceFrame& frame, DeviceQueue& queue) const override;
  void download(const DeviceFrame& frame, const HostFrame& host, DeviceQueue& queue) const override;
  void upload_rows(DeviceFrame& frame, const HostFrame& host, const RowCopy& copy, DeviceQueue& queue) const override;
  void download_rows(const DeviceFrame& frame, const HostFrame& host, const RowCopy& copy,
                     DeviceQueue& queue) const override;
  void poison(DeviceFrame& frame, DeviceQueue& queue, unsigned char byte) const override;
  std::size_t device_bytes(const DeviceFrame& frame) const override;
  // How the halo rows cross, for the report: "halo rows peer to peer: ..." (PeerRows::peer_route: "halo
  // rows device to device in one context, through page-locked staging: ..." on OpenCL) or "halo rows through
  // the host: why".
  const std::string& halo_route() const { return halo_route_; }

 private:
  void upload_peer(DeviceFrame& frame, const HostFrame& host, DeviceQueue& queue) const;

  std::vector<std::unique_ptr<PreparedVariant>> parts_;
  bool peer_ = false;
  std::string halo_route_;
  const SplitSession& session_;
  DeviceQueue& setup_;
};

}  // namespace cc
