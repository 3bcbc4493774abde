// test_split_session.cpp: --split's SplitVariant over fake devices: host-route and peer-route halos stitch the whole frame's result; the route chosen and why.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backends/split_session.h"

namespace {

constexpr int kWidth = 5;

struct FakeSpan final : cc::Span {
  double elapsed_ms() const override { return 1; }
};
struct FakeSplitQueue final : cc::DeviceQueue {
  std::unique_ptr<cc::Span> make_span() override { return std::make_unique<FakeSpan>(); }
  void begin(cc::Span&) override {}
  void end(cc::Span&) override {}
  void flush() override {}
  void finish() override {}
  void wait_for_last() override {}
};
struct FakeSplitSession final : cc::DeviceSession {
  std::unique_ptr<cc::DeviceQueue> make_queue() override { return std::make_unique<FakeSplitQueue>(); }
  std::unique_ptr<cc::HostFrame> make_pinned_frame(const cc::FrameLayout& layout, cc::DeviceQueue&) override {
    return std::make_unique<cc::PageableHostFrame>(layout);
  }
  bool out_of_memory(const cc::ApiError&) const override { return false; }
  std::size_t cache_bytes() const override { return 0; }
  std::unique_ptr<cc::CacheScratch> make_cache_scratch(std::size_t) override { return nullptr; }
};
struct FakeSplitFrame final : cc::DeviceFrame {
  std::vector<float> input, output;
};

// One band's device: rows of kWidth floats; its "kernel" sums each pixel with the pixels above and
// below (radius 1), clamped at the sub-image's edges as a kernel's border rule is.
class FakeSplitVariant final : public cc::PreparedVariant, public cc::PeerRows {
 public:
  FakeSplitVariant(int rows, bool peer, int& host_rows) : rows_(rows), peer_(peer), host_rows_(host_rows) {}
  std::unique_ptr<cc::DeviceFrame> make_frame() const override {
    auto frame = std::make_unique<FakeSplitFrame>();
    frame->input.assign(static_cast<std::size_t>(rows_ * kWidth), -1000);
    frame->output.assign(frame->input.size(), -1000);
    return frame;
  }
  void upload(cc::DeviceFrame&, const cc::HostFrame&, cc::DeviceQueue&) const override { FAIL("split uploads rows"); }
  void download(const cc::DeviceFrame&, const cc::HostFrame&, cc::DeviceQueue&) const override { FAIL("rows"); }
  void launch(cc::DeviceFrame& frame, cc::DeviceQueue&) const override {
    auto& f = static_cast<FakeSplitFrame&>(frame);
    for (int y = 0; y < rows_; ++y)
      for (int x = 0; x < kWidth; ++x) {
        float sum = 0;
        for (int dy = -1; dy <= 1; ++dy) sum += f.input[static_cast<std::size_t>(std::clamp(y + dy, 0, rows_ - 1) * kWidth + x)];
        f.output[static_cast<std::size_t>(y * kWidth + x)] = sum;
      }
  }
  void upload_rows(cc::DeviceFrame& frame, const cc::HostFrame& host, const cc::RowCopy& copy, cc::DeviceQueue&) const override {
    const auto* from = reinterpret_cast<const float*>(host.units()[0]) + copy.from * kWidth;
    std::copy(from, from + copy.rows * kWidth, static_cast<FakeSplitFrame&>(frame).input.begin() + copy.to * kWidth);
    host_rows_ += copy.rows;
  }
  void download_rows(const cc::DeviceFrame& frame, const cc::HostFrame& host, const cc::RowCopy& copy, cc::DeviceQueue&) const override {
    const auto& f = static_cast<const FakeSplitFrame&>(frame);
    std::copy(f.output.begin() + copy.from * kWidth, f.output.begin() + (copy.from + copy.rows) * kWidth,
              reinterpret_cast<float*>(host.units()[0]) + copy.to * kWidth);
  }
  void poison(cc::DeviceFrame&, cc::DeviceQueue&, unsigned char) const override {}
  std::size_t device_bytes(const cc::DeviceFrame&) const override { return 0; }
  std::string peer_refusal(const cc::PreparedVariant&) const override { return peer_ ? "" : "no peer here"; }
  void copy_rows_from(cc::DeviceFrame& frame, cc::DeviceQueue&, const cc::DeviceFrame& source, cc::DeviceQueue&,
                      const cc::RowCopy& copy) const override {
    const auto& from = static_cast<const FakeSplitFrame&>(source).input;
    std::copy(from.begin() + copy.from * kWidth, from.begin() + (copy.from + copy.rows) * kWidth,
              static_cast<FakeSplitFrame&>(frame).input.begin() + copy.to * kWidth);
  }

 private:
  int rows_;
  bool peer_;
  int& host_rows_;
};

// The whole frame through the split of `devices` fake devices; `peer`: whether every device takes peer rows.
std::vector<float> split_frame(const std::vector<float>& image, int height, int devices, bool peer, int& host_rows,
                               std::string& route) {
  cc::BandPlan plan = cc::plan_bands(height, 1, devices, false);
  REQUIRE(plan.skip_reason.empty());
  std::vector<std::unique_ptr<cc::DeviceSession>> sessions;
  std::vector<std::unique_ptr<cc::PreparedVariant>> parts;
  for (int i = 0; i < devices; ++i) {
    sessions.push_back(std::make_unique<FakeSplitSession>());
    parts.push_back(std::make_unique<FakeSplitVariant>(plan.bands[static_cast<std::size_t>(i)].input_rows(), peer || i > 0, host_rows));
  }
  cc::SplitSession session(std::move(sessions), std::move(plan), height);
  const auto queue = session.make_queue();
  const cc::SplitVariant variant(std::move(parts), session, *queue);
  route = variant.halo_route();
  const auto frame = variant.make_frame();
  const cc::FrameLayout layout{.units = 1, .unit_bytes = image.size() * sizeof(float), .channels = 1, .device_channels = 1};
  cc::PageableHostFrame input(layout), output(layout);
  std::copy(image.begin(), image.end(), reinterpret_cast<float*>(input.units()[0]));
  variant.upload(*frame, input, *queue);
  variant.launch(*frame, *queue);
  variant.download(*frame, output, *queue);
  const auto* result = reinterpret_cast<const float*>(output.units()[0]);
  return {result, result + image.size()};
}

}  // namespace

TEST_CASE("split session: halos through the host or peer to peer give the whole frame's result") {
  const int height = 11;
  std::vector<float> image(static_cast<std::size_t>(height * kWidth));
  for (std::size_t i = 0; i < image.size(); ++i) image[i] = static_cast<float>(i % 7);
  std::vector<float> whole(image.size());
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < kWidth; ++x)
      for (int dy = -1; dy <= 1; ++dy)
        whole[static_cast<std::size_t>(y * kWidth + x)] += image[static_cast<std::size_t>(std::clamp(y + dy, 0, height - 1) * kWidth + x)];
  for (const int devices : {2, 3, 4})
    for (const bool peer : {true, false}) {
      CAPTURE(devices);
      CAPTURE(peer);
      int host_rows = 0;
      std::string route;
      CHECK(split_frame(image, height, devices, peer, host_rows, route) == whole);
      if (peer) {
        CHECK(host_rows == height);  // each device its own rows from the host, the halos device to device
        CHECK(route.starts_with("halo rows peer to peer"));
      } else {
        CHECK(host_rows == height + 2 * (devices - 1));  // every inner edge's two halo rows, through the host
        CHECK(route == "halo rows through the host: no peer here");
      }
    }
}
