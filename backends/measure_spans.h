// measure_spans.h: the span and host-clock helpers shared by the run protocol (measure.cpp) and the stream protocol (measure_stream.cpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

#include "backends/measure.h"

namespace cc::measure_spans {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A span that brackets `work` on `queue`, read once the queue has finished.
template <typename Work>
std::unique_ptr<Span> bracket(DeviceQueue& queue, const Work& work) {
  std::unique_ptr<Span> span = queue.make_span();
  queue.begin(*span);
  work();
  queue.end(*span);
  return span;
}

// The bytes an upload or download span of `memory` moves for the plausibility check: a copy moves the
// frame; a managed prefetch or an SVM unmap may move none (pages already where asked), so only its
// time is checked. Where the hand-over is no command (CUDA mapped memory) there is no span to check.
inline std::size_t span_bytes(HostMemory memory, const FrameLayout& layout) {
  return copies_frames(memory) ? layout.bytes() : 0;
}

}  // namespace cc::measure_spans
