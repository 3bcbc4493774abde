// split_session.cpp: --split's session, queue, span, frame and variant over one session per device (split_session.h).
#include "backends/split_session.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace cc {

namespace {

// A span over every device's queue: the split's time is the slowest band's.
class SplitSpan final : public Span {
 public:
  std::vector<std::unique_ptr<Span>> parts;
  double elapsed_ms() const override {
    double longest = 0;
    for (const auto& part : parts)
      if (!part->brackets_nothing()) longest = std::max(longest, part->elapsed_ms());
    return longest;
  }
  bool brackets_nothing() const override {
    return std::ranges::all_of(parts, [](const auto& part) { return part->brackets_nothing(); });
  }
};

class SplitQueue final : public DeviceQueue {
 public:
  std::vector<std::unique_ptr<DeviceQueue>> parts;
  std::unique_ptr<Span> make_span() override {
    auto span = std::make_unique<SplitSpan>();
    for (const auto& part : parts) {
      part->make_current();
      span->parts.push_back(part->make_span());
    }
    return span;
  }
  void begin(Span& span) override { each(span, &DeviceQueue::begin); }
  void end(Span& span) override { each(span, &DeviceQueue::end); }
  void flush() override {
    for (const auto& part : parts) {
      part->make_current();
      part->flush();
    }
  }
  // Every device's queue: flushed first, so that no device waits for another's commands to be submitted.
  void finish() override {
    flush();
    for (const auto& part : parts) {
      part->make_current();
      part->finish();
    }
  }
  void wait_for_last() override {
    flush();
    for (const auto& part : parts) {
      part->make_current();
      part->wait_for_last();
    }
  }

 private:
  void each(Span& span, void (DeviceQueue::*mark)(Span&)) {
    auto& split = static_cast<SplitSpan&>(span);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      parts[i]->make_current();
      (parts[i].get()->*mark)(*split.parts[i]);
    }
  }
};

struct SplitFrame final : DeviceFrame {
  std::vector<std::unique_ptr<DeviceFrame>> parts;
};

class SplitScratch final : public CacheScratch {
 public:
  std::vector<std::unique_ptr<CacheScratch>> parts;
  void overwrite(DeviceQueue& queue) override {
    for (std::size_t i = 0; i < parts.size(); ++i) parts[i]->overwrite(SplitSession::part(queue, static_cast<int>(i)));
  }
};

const SplitFrame& parts_of(const DeviceFrame& frame) { return static_cast<const SplitFrame&>(frame); }
SplitFrame& parts_of(DeviceFrame& frame) { return static_cast<SplitFrame&>(frame); }

}  // namespace

SplitSession::SplitSession(std::vector<std::unique_ptr<DeviceSession>> sessions, BandPlan plan, int height)
    : sessions_(std::move(sessions)), plan_(std::move(plan)), height_(height) {
  if (sessions_.empty() || sessions_.size() != plan_.bands.size())
    throw std::logic_error("a split needs one session per band");
}

std::unique_ptr<DeviceQueue> SplitSession::make_queue() {
  auto queue = std::make_unique<SplitQueue>();
  for (const auto& session : sessions_) queue->parts.push_back(session->make_queue());
  return queue;
}

DeviceQueue& SplitSession::part(DeviceQueue& queue, int device) {
  DeviceQueue& found = *static_cast<SplitQueue&>(queue).parts.at(static_cast<std::size_t>(device));
  found.make_current();
  return found;
}

std::unique_ptr<HostFrame> SplitSession::make_pinned_frame(const FrameLayout& layout, DeviceQueue& queue) {
  return sessions_.front()->make_pinned_frame(layout, part(queue, 0));
}

bool SplitSession::out_of_memory(const ApiError& error) const {
  return std::ranges::any_of(sessions_, [&](const auto& session) { return session->out_of_memory(error); });
}

std::size_t SplitSession::cache_bytes() const {
  std::size_t largest = 0;
  for (const auto& session : sessions_) largest = std::max(largest, session->cache_bytes());
  return largest;
}

std::unique_ptr<CacheScratch> SplitSession::make_cache_scratch(std::size_t bytes) {
  auto scratch = std::make_unique<SplitScratch>();
  for (const auto& session : sessions_) scratch->parts.push_back(session->make_cache_scratch(bytes));  // each sets its device
  return scratch;
}

SplitVariant::SplitVariant(std::vector<std::unique_ptr<PreparedVariant>> parts, const SplitSession& session,
                           DeviceQueue& setup)
    : parts_(std::move(parts)), session_(session), setup_(setup) {
  // Peer copies only where every pair a halo crosses allows them; one refusal sends every halo through
  // the host, so that a frame's bands are all timed the same way.
  std::string refusal;
  for (std::size_t i = 0; i < parts_.size() && refusal.empty(); ++i) {
    const auto* peer = dynamic_cast<const PeerRows*>(parts_[i].get());
    if (!peer) {
      refusal = "this API's frames take no rows from another device's";
      break;
    }
    for (const HaloCopy& halo : halo_copies(session_.plan(), static_cast<int>(i), session_.height()))
      if (refusal.empty()) refusal = peer->peer_refusal(*parts_[static_cast<std::size_t>(halo.source)]);
  }
  peer_ = refusal.empty();
  halo_route_ = peer_ ? "halo rows " + std::string(dynamic_cast<const PeerRows&>(*parts_.front()).peer_route()) +
                            ": each device uploads its own rows, then copies its halo rows from the devices holding them"
                      : "halo rows through the host: " + refusal;
}

std::unique_ptr<DeviceFrame> SplitVariant::make_frame() const {
  auto frame = std::make_unique<SplitFrame>();
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    SplitSession::part(setup_, static_cast<int>(i));  // its device current: the frame is allocated there
    frame->parts.push_back(parts_[i]->make_frame());
  }
  return frame;
}

void SplitVariant::upload(DeviceFrame& frame, const HostFrame& host, DeviceQueue& queue) const {
  if (peer_) return upload_peer(frame, host, queue);
  for (std::size_t i = 0; i < parts_.size(); ++i)
    for (const RowCopy& copy : input_copies(session_.plan().bands[i], session_.height()))
      parts_[i]->upload_rows(*parts_of(frame).parts[i], host, copy, SplitSession::part(queue, static_cast<int>(i)));
}

// Every device's own rows first, all queued before any halo copy waits on them; then each device's
// halo rows from the devices holding them (halo_copies: only their own rows, uploaded above).
void SplitVariant::upload_peer(DeviceFrame& frame, const HostFrame& host, DeviceQueue& queue) const {
  const BandPlan& plan = session_.plan();
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    const Band& band = plan.bands[i];
    parts_[i]->upload_rows(*parts_of(frame).parts[i], host, {band.first_row, band.halo_above, band.rows},
                           SplitSession::part(queue, static_cast<int>(i)));
  }
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    const auto& peer = dynamic_cast<const PeerRows&>(*parts_[i]);
    for (const HaloCopy& halo : halo_copies(plan, static_cast<int>(i), session_.height())) {
      DeviceQueue& source_queue = SplitSession::part(queue, halo.source);
      peer.copy_rows_from(*parts_of(frame).parts[i], SplitSession::part(queue, static_cast<int>(i)),
                          *parts_of(frame).parts[static_cast<std::size_t>(halo.source)], source_queue, halo.rows);
    }
  }
}

void SplitVariant::launch(DeviceFrame& frame, DeviceQueue& queue) const {
  for (std::size_t i = 0; i < parts_.size(); ++i)
    parts_[i]->launch(*parts_of(frame).parts[i], SplitSession::part(queue, static_cast<int>(i)));
}

void SplitVariant::download(const DeviceFrame& frame, const HostFrame& host, DeviceQueue& queue) const {
  for (std::size_t i = 0; i < parts_.size(); ++i)
    parts_[i]->download_rows(*parts_of(frame).parts[i], host, output_copy(session_.plan().bands[i]),
                             SplitSession::part(queue, static_cast<int>(i)));
}

void SplitVariant::upload_rows(DeviceFrame&, const HostFrame&, const RowCopy&, DeviceQueue&) const {
  throw std::logic_error("a split frame is not split again");
}

void SplitVariant::download_rows(const DeviceFrame&, const HostFrame&, const RowCopy&, DeviceQueue&) const {
  throw std::logic_error("a split frame is not split again");
}

void SplitVariant::poison(DeviceFrame& frame, DeviceQueue& queue, unsigned char byte) const {
  for (std::size_t i = 0; i < parts_.size(); ++i)
    parts_[i]->poison(*parts_of(frame).parts[i], SplitSession::part(queue, static_cast<int>(i)), byte);
}

std::size_t SplitVariant::device_bytes(const DeviceFrame& frame) const {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < parts_.size(); ++i) bytes += parts_[i]->device_bytes(*parts_of(frame).parts[i]);
  return bytes;
}

}  // namespace cc
