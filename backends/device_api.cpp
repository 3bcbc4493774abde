// device_api.cpp: the frame layout's packing and the pageable host frame, shared by every backend.
#include "backends/device_api.h"

#include "backends/host_copy.h"

namespace cc {

FrameLayout FrameLayout::float_planes(const Image& shape) {
  return {shape.channels, shape.plane_size() * sizeof(float)};
}

void FrameLayout::pack(const Image& image, std::span<std::byte* const> targets) const {
  for (int c = 0; c < units; ++c)
    copy_rows(image.plane(c), reinterpret_cast<float*>(targets[c]), image.height, image.width);
}

void FrameLayout::unpack(std::span<const std::byte* const> sources, Image& image) const {
  for (int c = 0; c < units; ++c)
    copy_rows(reinterpret_cast<const float*>(sources[c]), image.plane(c), image.height, image.width);
}

PageableHostFrame::PageableHostFrame(const FrameLayout& layout) : bytes_(layout.bytes()) {
  for (int unit = 0; unit < layout.units; ++unit) pointers_.push_back(bytes_.data() + unit * layout.unit_bytes);
}

}  // namespace cc
