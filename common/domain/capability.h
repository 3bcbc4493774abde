// capability.h: the device capabilities a variant may need, named in one table, and the sets and per-capability arrays that carry them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace cc {

// What some devices lack and some variants need. A variant's table line lists its needs
// (VariantTraits::needs), each API says once per device why it lacks one (DeviceLimits::missing), and
// one loop of the planning rule turns a need the device lacks into a skip with that reason
// (docs/architecture.md, "Capabilities"). In the order planning checks them.
enum class Capability : std::uint8_t {
  AsyncCopies,   // OpenCL: waiting on async_work_group_copy's events (wait_group_events), which some drivers cannot link
  LaneShuffles,  // exchanging values between the lanes of a warp / sub-group (OpenCL: a sub-group shuffle extension)
  Clusters,      // CUDA: thread-block clusters reading each other's shared memory (sm_90 and later)
  TensorMaps,    // CUDA: the tensor memory accelerator copying a tile described by a CUtensorMap (sm_90 and later)
  Images,        // reading the input through a texture / image2d_t in the pixel type's format
  TensorCores,   // TF32 matrix products on the tensor cores (PTX mma.sync, compute capability 8.0 and later; OpenCL:
                 // NVIDIA's, which compiles inline PTX, or Intel's sub-group bf16 products where a device lists
                 // cl_intel_subgroup_matrix_multiply_accumulate)
};

struct CapabilityName {
  Capability capability;
  std::string_view name;  // what --list's "needs:" and the listing's JSON say
};

inline constexpr CapabilityName kCapabilityNames[] = {
    {Capability::AsyncCopies, "async copies"},
    {Capability::LaneShuffles, "sub-group shuffles"},
    {Capability::Clusters, "thread-block clusters"},
    {Capability::TensorMaps, "tensor maps"},
    {Capability::Images, "images"},
    {Capability::TensorCores, "tensor cores"},
};
inline constexpr std::size_t kCapabilityCount = std::size(kCapabilityNames);

consteval bool capability_names_in_order() {
  for (std::size_t i = 0; i < kCapabilityCount; ++i)
    if (static_cast<std::size_t>(kCapabilityNames[i].capability) != i) return false;
  return true;
}
static_assert(capability_names_in_order(), "kCapabilityNames lists every Capability once, in the enum's order");

constexpr std::string_view to_string(Capability capability) {
  return kCapabilityNames[static_cast<std::size_t>(capability)].name;
}

// A set of capabilities: `.needs = {Capability::Clusters}` in a variant's table line.
class Capabilities {
 public:
  constexpr Capabilities() = default;
  constexpr Capabilities(std::initializer_list<Capability> capabilities) {
    for (const Capability capability : capabilities) bits_ |= bit(capability);
  }
  constexpr bool has(Capability capability) const { return (bits_ & bit(capability)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }

 private:
  static constexpr std::uint8_t bit(Capability capability) {
    return static_cast<std::uint8_t>(1u << static_cast<unsigned>(capability));
  }
  std::uint8_t bits_ = 0;
  static_assert(kCapabilityCount <= 8, "Capabilities holds one bit per capability in a byte");
};

// One value per capability, indexed by it: DeviceLimits::missing holds why a device lacks each.
template <typename T>
struct PerCapability {
  std::array<T, kCapabilityCount> values{};
  T& operator[](Capability capability) { return values[static_cast<std::size_t>(capability)]; }
  const T& operator[](Capability capability) const { return values[static_cast<std::size_t>(capability)]; }
};

}  // namespace cc
