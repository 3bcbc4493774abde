// test_measure.cpp: the one measurement protocol (backends/measure.h) over a host-memory fake of the device shim.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "backends/measure.h"
#include "common/domain/error.h"

namespace {

// A queue whose spans report `span_ms` each; commands run at once, on the host.
class FakeQueue final : public cc::DeviceQueue {
 public:
  explicit FakeQueue(double span_ms) : span_ms_(span_ms) {}
  struct FakeSpan final : cc::Span {
    double ms = 0;
    double elapsed_ms() const override { return ms; }
  };
  std::unique_ptr<cc::Span> make_span() override { return std::make_unique<FakeSpan>(); }
  void begin(cc::Span&) override { in_span = true; }
  void end(cc::Span& span) override {
    static_cast<FakeSpan&>(span).ms = span_ms_;
    in_span = false;
  }
  bool in_span = false;  // between begin and end: what --cold's scratch write must stay out of
  void flush() override {}
  void finish() override {}
  void wait_for_last() override {}

 private:
  double span_ms_;
};

struct FakeFrame final : cc::DeviceFrame {
  std::vector<float> input, output;
};

// "Convolves" with the identity filter times `scale`; `writes` false leaves the output as poisoned.
class FakeVariant final : public cc::PreparedVariant {
 public:
  FakeVariant(const cc::Image& shape, float scale, bool writes, int* launches)
      : size_(shape.data.size()), plane_(shape.plane_size()), scale_(scale), writes_(writes), launches_(launches) {}
  std::unique_ptr<cc::DeviceFrame> make_frame() const override {
    auto frame = std::make_unique<FakeFrame>();
    frame->input.resize(size_);
    frame->output.resize(size_);
    return frame;
  }
  void upload(cc::DeviceFrame& frame, const cc::HostFrame& host, cc::DeviceQueue&) const override {
    auto& fake = static_cast<FakeFrame&>(frame);
    for (std::size_t c = 0; c < host.units().size(); ++c)
      std::memcpy(fake.input.data() + c * plane_, host.units()[c], plane_ * sizeof(float));
  }
  void launch(cc::DeviceFrame& frame, cc::DeviceQueue&) const override {
    ++*launches_;
    std::this_thread::sleep_for(launch_time);
    auto& fake = static_cast<FakeFrame&>(frame);
    if (writes_)
      for (std::size_t i = 0; i < size_; ++i) fake.output[i] = fake.input[i] * scale_;
  }
  void download(const cc::DeviceFrame& frame, const cc::HostFrame& host, cc::DeviceQueue&) const override {
    const auto& fake = static_cast<const FakeFrame&>(frame);
    for (std::size_t c = 0; c < host.units().size(); ++c)
      std::memcpy(host.units()[c], fake.output.data() + c * plane_, plane_ * sizeof(float));
  }
  // --split's row copies: these fakes are never split (test_multi_device splits real devices).
  void upload_rows(cc::DeviceFrame&, const cc::HostFrame&, const cc::RowCopy&, cc::DeviceQueue&) const override {
    FAIL("not split");
  }
  void download_rows(const cc::DeviceFrame&, const cc::HostFrame&, const cc::RowCopy&, cc::DeviceQueue&) const override {
    FAIL("not split");
  }
  void poison(cc::DeviceFrame& frame, cc::DeviceQueue&, unsigned char) const override {
    auto& fake = static_cast<FakeFrame&>(frame);
    std::fill(fake.output.begin(), fake.output.end(), std::nanf(""));
  }
  std::size_t device_bytes(const cc::DeviceFrame&) const override { return 2 * size_ * sizeof(float) + 36; }
  std::chrono::milliseconds launch_time{0};  // host time each launch takes: a planted slow kernel

 private:
  std::size_t size_, plane_;
  float scale_;
  bool writes_;
  int* launches_;
};

class FakeSession final : public cc::DeviceSession {
 public:
  explicit FakeSession(double span_ms) : span_ms_(span_ms) {}
  std::unique_ptr<cc::DeviceQueue> make_queue() override { return std::make_unique<FakeQueue>(span_ms_); }
  std::unique_ptr<cc::HostFrame> make_pinned_frame(const cc::FrameLayout& layout, cc::DeviceQueue&) override {
    return std::make_unique<cc::PageableHostFrame>(layout);
  }
  bool out_of_memory(const cc::ApiError&) const override { return false; }
  std::size_t cache_bytes() const override { return 0; }
  std::unique_ptr<cc::CacheScratch> make_cache_scratch(std::size_t bytes) override {
    scratch_bytes = bytes;
    return std::make_unique<FakeScratch>(this);
  }
  std::size_t scratch_bytes = 0;
  int overwrites = 0, overwrites_in_span = 0;

 private:
  struct FakeScratch final : cc::CacheScratch {
    explicit FakeScratch(FakeSession* session) : session_(session) {}
    void overwrite(cc::DeviceQueue& queue) override {
      ++session_->overwrites;
      if (static_cast<FakeQueue&>(queue).in_span) ++session_->overwrites_in_span;
    }
    FakeSession* session_;
  };
  double span_ms_;
};

cc::Image counting_image(int width, int height, int channels) {
  cc::Image image(width, height, channels);
  for (std::size_t i = 0; i < image.data.size(); ++i) image.data[i] = static_cast<float>(i % 97);
  return image;
}

cc::Problem identity_problem(const cc::Image& input) {
  cc::Filter identity{"identity", 1, 1, {1.0f}};
  return cc::make_problem(input, identity, cc::Border::Zero, false);
}

cc::RunOptions options(int repetitions, int warmup) {
  cc::RunOptions result;
  result.repetitions = repetitions;
  result.warmup = warmup;
  result.time_budget_s = 1e6;
  return result;
}

}  // namespace

TEST_CASE("measure_run: every plane crosses both ways, the samples are the launches' spans, the setup is counted") {
  const cc::Image input = counting_image(7, 5, 2);
  FakeSession session(0.25);
  int launches = 0;
  const cc::BackendRun run = cc::measure_run(
      session, [&](cc::DeviceQueue&) { return std::make_unique<FakeVariant>(input, 3.0f, true, &launches); }, identity_problem(input), input,
      1000, options(4, 2));
  REQUIRE(run.status == cc::Status::Ok);
  CHECK(run.times.untimed.empty());
  REQUIRE(run.output.data.size() == input.data.size());
  for (std::size_t i = 0; i < input.data.size(); ++i) CHECK(run.output.data[i] == input.data[i] * 3.0f);
  CHECK(run.times.kernel_ms.samples == 4);
  CHECK(run.times.kernel_ms.median == 0.25);
  CHECK(run.times.kernel_batch_ms == doctest::Approx(0.25 / 4));
  CHECK(run.times.h2d_ms == 0.25);
  CHECK(run.times.d2h_ms == 0.25);
  CHECK(run.times.setup_ms >= 0);
  CHECK(run.device_bytes == 2 * input.data.size() * sizeof(float) + 36);
  CHECK(run.memory == "pinned");
  // 2 warm-up, 4 samples, 4 in the batch, host to host, reuse.
  CHECK(launches == 2 + 4 + 4 + 1 + 1);
}

TEST_CASE("measure_run: the raw samples, the rule that stopped them, and --cold's scratch outside every span") {
  const cc::Image input = counting_image(8, 5, 1);
  FakeSession warm_session(0.5);
  int launches = 0;
  const auto prepare = [&](cc::DeviceQueue&) { return std::make_unique<FakeVariant>(input, 1.0f, true, &launches); };
  const cc::BackendRun warm = cc::measure_run(warm_session, prepare, identity_problem(input), input, 0, options(6, 1));
  CHECK(warm.times.kernel_samples_ms == std::vector<double>(6, 0.5));
  CHECK(warm.times.stopped_by == "max");
  CHECK_FALSE(warm.times.cold);
  CHECK(warm_session.overwrites == 0);

  FakeSession cold_session(0.5);
  cc::RunOptions cold = options(6, 1);
  cold.cold = true;
  const cc::BackendRun run = cc::measure_run(cold_session, prepare, identity_problem(input), input, 0, cold);
  CHECK(run.times.cold);
  CHECK(run.times.kernel_ms.samples == 6);
  CHECK(cold_session.overwrites == 6);  // one before each sample
  CHECK(cold_session.overwrites_in_span == 0);
  CHECK(cold_session.scratch_bytes == cc::kLeastColdScratchBytes);  // the fake reports no cache size
  CHECK(cc::cold_scratch_bytes(std::size_t{50} << 20) == std::size_t{100} << 20);  // an H100's 50 MB L2

}

TEST_CASE("measure_run: the time budget bounds every timed phase, and names those it stopped") {
  // A launch of 30 ms under a 5 ms budget, as a 15 s texture launch under --time-budget 2 on PoCL: that
  // took 62 s (warm-ups, batch, host to host and reuse each a launch or more past the budget).
  const cc::Image input = counting_image(6, 4, 1);
  FakeSession session(30.0);
  int launches = 0;
  const auto prepare = [&](cc::DeviceQueue&) {
    auto variant = std::make_unique<FakeVariant>(input, 2.0f, true, &launches);
    variant->launch_time = std::chrono::milliseconds(30);
    return variant;
  };
  cc::RunOptions slow = options(10, 2);
  slow.time_budget_s = 0.005;
  slow.min_samples = 1;
  const auto start = std::chrono::steady_clock::now();
  const cc::BackendRun cut = cc::measure_run(session, prepare, identity_problem(input), input, 0, slow);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(cut.status == cc::Status::Ok);
  // The first launch (outside the budget), the warm-up that estimates a launch, and the one sample
  // --min-samples 1 asks for.
  CHECK(launches == 3);
  CHECK(took_s < 0.09 + 0.5);  // those three, and room for a loaded machine's scheduler
  CHECK(cut.times.kernel_samples_ms == std::vector<double>{30.0});
  CHECK(cut.times.stopped_by == "budget");
  CHECK(cut.times.budget_skipped == "kernel_batch_ms, host_to_host_ms, reuse_ms");
  CHECK(std::isnan(cut.times.kernel_batch_ms));
  CHECK(std::isnan(cut.times.host_to_host_ms));
  CHECK(std::isnan(cut.times.reuse_ms));
  CHECK(cut.times.untimed.empty());  // a batch not taken is no implausible span
  CHECK(cut.times.d2h_ms == 30.0);   // the download that gives the output always happens
  for (std::size_t i = 0; i < input.data.size(); ++i) CHECK(cut.output.data[i] == input.data[i] * 2.0f);

  // The default --min-samples 5: the budget waits for five samples, then stops the rest.
  launches = 0;
  slow.min_samples = 5;
  const cc::BackendRun floored = cc::measure_run(session, prepare, identity_problem(input), input, 0, slow);
  CHECK(floored.times.kernel_samples_ms == std::vector<double>(5, 30.0));
  CHECK(floored.times.stopped_by == "budget");
  CHECK(floored.times.budget_skipped == "kernel_batch_ms, host_to_host_ms, reuse_ms");
  CHECK(launches == 2 + 5);

  // With room for everything, nothing is stopped: 2 warm-ups, 3 samples, 3 in the batch, host to host, reuse.
  launches = 0;
  slow.repetitions = 3;
  slow.time_budget_s = 100;
  const cc::BackendRun whole = cc::measure_run(session, prepare, identity_problem(input), input, 0, slow);
  CHECK(launches == 2 + 3 + 3 + 1 + 1);
  CHECK(whole.times.budget_skipped.empty());
  CHECK(whole.times.stopped_by == "max");
  CHECK(whole.times.host_to_host_ms >= 30.0);
  CHECK(whole.times.reuse_ms >= 30.0);
}

TEST_CASE("measure_run: a pixel no launch writes stays NaN, so validation sees it") {
  const cc::Image input = counting_image(4, 3, 1);
  FakeSession session(0.25);
  int launches = 0;
  const cc::BackendRun run = cc::measure_run(
      session, [&](cc::DeviceQueue&) { return std::make_unique<FakeVariant>(input, 1.0f, false, &launches); }, identity_problem(input), input,
      0, options(1, 1));
  REQUIRE(run.status == cc::Status::Ok);
  for (const float value : run.output.data) CHECK(std::isnan(value));
}

TEST_CASE("measure_run: spans a device cannot have taken make the run untimed, with the reason") {
  const cc::Image input = counting_image(64, 64, 1);
  FakeSession session(1e-6);  // what Rusticl's fake timestamps report
  int launches = 0;
  const cc::BackendRun run = cc::measure_run(
      session, [&](cc::DeviceQueue&) { return std::make_unique<FakeVariant>(input, 2.0f, true, &launches); }, identity_problem(input), input,
      0, options(3, 1));
  REQUIRE(run.status == cc::Status::Ok);
  CHECK(run.times.untimed.find("not real") != std::string::npos);
  CHECK(run.times.kernel_ms.samples == 0);
  CHECK(std::isnan(run.times.h2d_ms));
  CHECK(std::isnan(run.times.kernel_batch_ms));
  CHECK(run.output.data[5] == input.data[5] * 2.0f);  // the result is still returned for validation
}

TEST_CASE("implausible spans: zero, under 10 ns, and transfers faster than any host link") {
  CHECK_FALSE(cc::implausible_span_reason(0, 0).empty());
  CHECK_FALSE(cc::implausible_span_reason(std::nan(""), 0).empty());
  CHECK_FALSE(cc::implausible_span_reason(1e-6, 0).empty());
  CHECK(cc::implausible_span_reason(0.002, 0).empty());  // a small kernel on a real GPU
  // 16 MB in 0.31 ms is PCIe 5 (54 GB/s); in 1e-3 ms it would be 16 TB/s.
  CHECK(cc::implausible_span_reason(0.31, std::size_t{16} << 20).empty());
  CHECK_FALSE(cc::implausible_span_reason(1e-3, std::size_t{16} << 20).empty());
}

TEST_CASE("measure_stream: the last frame is its own, and a frame alone is timed in spans") {
  const cc::Image input = counting_image(9, 4, 3);
  FakeSession session(0.5);
  int launches = 0;
  const cc::StreamRun run = cc::measure_stream(
      session, [&](cc::DeviceQueue&) { return std::make_unique<FakeVariant>(input, 0.5f, true, &launches); }, identity_problem(input), input,
      7, options(1, 1));
  REQUIRE(run.status == cc::Status::Ok);
  CHECK(run.queues == cc::kStreamSlots);
  CHECK(run.h2d_ms_per_frame == 0.5);
  CHECK(run.serial_ms_per_frame == 0.5);
  CHECK(run.total_ms >= 0);
  for (std::size_t i = 0; i < input.data.size(); ++i) CHECK(run.last_output.data[i] == input.data[i] * 0.5f);
  CHECK(launches == cc::kStreamSlots + 1 + 7);  // warm-up per slot, the frame alone, the frames
  CHECK_THROWS_AS(cc::measure_stream(
                      session, [&](cc::DeviceQueue&) { return std::make_unique<FakeVariant>(input, 1, true, &launches); },
                      identity_problem(input), input, 0, options(1, 1)),
                  cc::InputError);
}

namespace {

// An 8-bit frame: copies its one interleaved unit, except that `skip` bytes from the end are left alone.
class ByteVariant final : public cc::PreparedVariant {
 public:
  ByteVariant(std::size_t bytes, std::size_t skip) : bytes_(bytes), skip_(skip) {}
  std::unique_ptr<cc::DeviceFrame> make_frame() const override {
    auto frame = std::make_unique<FakeFrame>();
    frame->input.resize(bytes_);
    frame->output.resize(bytes_);
    return frame;
  }
  void upload(cc::DeviceFrame& frame, const cc::HostFrame& host, cc::DeviceQueue&) const override {
    auto& fake = static_cast<FakeFrame&>(frame);
    for (std::size_t i = 0; i < bytes_; ++i) fake.input[i] = static_cast<float>(static_cast<unsigned char>(host.units()[0][i]));
  }
  void launch(cc::DeviceFrame& frame, cc::DeviceQueue&) const override {
    auto& fake = static_cast<FakeFrame&>(frame);
    for (std::size_t i = 0; i + skip_ < bytes_; ++i) fake.output[i] = fake.input[i];
  }
  void download(const cc::DeviceFrame& frame, const cc::HostFrame& host, cc::DeviceQueue&) const override {
    const auto& fake = static_cast<const FakeFrame&>(frame);
    for (std::size_t i = 0; i < bytes_; ++i) host.units()[0][i] = static_cast<std::byte>(fake.output[i]);
  }
  // --split's row copies: these fakes are never split (test_multi_device splits real devices).
  void upload_rows(cc::DeviceFrame&, const cc::HostFrame&, const cc::RowCopy&, cc::DeviceQueue&) const override {
    FAIL("not split");
  }
  void download_rows(const cc::DeviceFrame&, const cc::HostFrame&, const cc::RowCopy&, cc::DeviceQueue&) const override {
    FAIL("not split");
  }
  void poison(cc::DeviceFrame& frame, cc::DeviceQueue&, unsigned char byte) const override {
    auto& fake = static_cast<FakeFrame&>(frame);
    std::fill(fake.output.begin(), fake.output.end(), static_cast<float>(byte));
  }
  std::size_t device_bytes(const cc::DeviceFrame&) const override { return 2 * bytes_; }

 private:
  std::size_t bytes_, skip_;
};

}  // namespace

TEST_CASE("measure_run, u8: RGBA8 packing of a 3-channel image, and a pixel never written is caught without NaN") {
  cc::Image input = counting_image(6, 4, 3);
  input.data[0] = 255.0f;  // the poison's own value: written or not, only the second poison tells
  const cc::Problem problem =
      cc::make_problem(input, cc::Filter{"identity", 1, 1, {1.0f}}, cc::Border::Zero, false, cc::PixelType::U8);
  REQUIRE(problem.device_channels() == 4);
  FakeSession session(0.25);
  const std::size_t bytes = 6 * 4 * 4;
  const cc::BackendRun all = cc::measure_run(
      session, [&](cc::DeviceQueue&) { return std::make_unique<ByteVariant>(bytes, 0); }, problem, input, 0,
      options(2, 1));
  REQUIRE(all.status == cc::Status::Ok);
  CHECK(all.output.data == input.data);  // three channels back, the padding dropped
  const cc::BackendRun missed = cc::measure_run(
      session, [&](cc::DeviceQueue&) { return std::make_unique<ByteVariant>(bytes, 4); }, problem, input, 0,
      options(2, 1));
  REQUIRE(missed.status == cc::Status::Ok);
  // The last pixel's three channels were never written: NaN, so validation fails them.
  for (int c = 0; c < 3; ++c) CHECK(std::isnan(missed.output.at(c, 3, 5)));
  CHECK(missed.output.at(0, 0, 0) == 255.0f);
}
