// device_api.cpp: the frame layout's packing and the pageable host frame, shared by every backend.
#include "backends/device_api.h"

#include "backends/host_copy.h"
#include "common/domain/parallel.h"

namespace cc {

FrameLayout FrameLayout::for_problem(const Problem& problem) {
  FrameLayout layout;
  const DeviceFormat& format = problem.format;
  layout.eight_bit = format.eight_bit();
  layout.channels = problem.channels;
  layout.device_channels = format.device_channels;
  layout.units = format.units;
  layout.unit_bytes = static_cast<std::size_t>(problem.width) * problem.height * format.unit_pixel_bytes;
  return layout;
}

void FrameLayout::pack(const Image& image, std::span<std::byte* const> targets) const {
  if (!eight_bit) {
    for (int c = 0; c < units; ++c)
      copy_rows(image.plane(c), reinterpret_cast<float*>(targets[c]), image.height, image.width);
    return;
  }
  auto* bytes = reinterpret_cast<unsigned char*>(targets[0]);
  const std::size_t row = static_cast<std::size_t>(image.width);
  parallel_for_rows(image.height, [&](int begin, int end) {
    for (int y = begin; y < end; ++y)
      for (std::size_t x = 0; x < row; ++x)
        for (int c = 0; c < device_channels; ++c)
          bytes[(y * row + x) * device_channels + c] = c < channels ? to_8bit(image.at(c, y, static_cast<int>(x))) : 0;
  });
}

void FrameLayout::unpack(std::span<const std::byte* const> sources, Image& image) const {
  if (!eight_bit) {
    for (int c = 0; c < units; ++c)
      copy_rows(reinterpret_cast<const float*>(sources[c]), image.plane(c), image.height, image.width);
    return;
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(sources[0]);
  const std::size_t row = static_cast<std::size_t>(image.width);
  parallel_for_rows(image.height, [&](int begin, int end) {
    for (int y = begin; y < end; ++y)
      for (std::size_t x = 0; x < row; ++x)
        for (int c = 0; c < channels; ++c)
          image.at(c, y, static_cast<int>(x)) = bytes[(y * row + x) * device_channels + c];
  });
}

PageableHostFrame::PageableHostFrame(const FrameLayout& layout) : bytes_(layout.bytes()) {
  for (int unit = 0; unit < layout.units; ++unit) pointers_.push_back(bytes_.data() + unit * layout.unit_bytes);
}

}  // namespace cc
