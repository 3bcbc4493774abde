// described_variant.h: the one generic variant of our described kernels (backends/kernel_descriptions.h) for every GPU API, over the API's thin kernel wrapper.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backends/kernel_descriptions.h"

namespace cc {

// What an API gives the generic variant:
//   Variant  its FrameVariant base (the frame loop, the setup, --split's rows), built from the API's
//            setup (backends/api_variant.h's VariantSetup and what only it has) and its setup queue;
//   Kernel   the kernel, translation only:
//     Kernel(const Setup&)                                      finds or makes it (a module's, nvcc's, a program's)
//     Filter upload_filter(name, values, in_constant, queue)    CUDA: a __constant__ symbol where in_constant,
//                                                                else a buffer; OpenCL: a buffer argument
//     Arguments bind(Frame&, int unit, Queue&) const             one launch's argument list
//     void launch(Arguments&, const LaunchPlan&, Queue&) const   over the plan's groups
//   and its Arguments, in the kernel's parameter order, one member per ArgRole:
//     input(frame, unit), image(frame, unit), output(frame, unit), filter(const Filter&),
//     value(const ConvArgs&), local_bytes(n), and tensor_map(frame, unit, plan) where the API has one.
// A role the API's kernels never take (a variant of another API alone) needs no member: the table
// gives the API no such variant, and reaching it anyway is a logic error.
template <typename Variant, typename Kernel>
class DescribedVariant final : public Variant {
  using Frame = typename Variant::frame_type;
  using Queue = typename Variant::queue_type;

 public:
  template <typename Setup, typename SetupQueue>
  DescribedVariant(const Setup& setup, const SetupQueue& queue)
      : Variant(setup, queue), description_(*setup.description), kernel_(setup) {
    const bool in_constant = this->plan_.variant->filter_in_constant;
    for (const ArgRole role : description_.args) {
      if (role == ArgRole::Filter)
        filters_.push_back(kernel_.upload_filter("c_filter", this->weights(), in_constant, queue));
      if (role == ArgRole::RowFactor)
        filters_.push_back(kernel_.upload_filter("c_row_filter", this->plan_.factors->row, in_constant, queue));
      if (role == ArgRole::ColumnFactor)
        filters_.push_back(kernel_.upload_filter("c_column_filter", this->plan_.factors->column, in_constant, queue));
    }
  }

 private:
  // The arguments in the description's order, each role as the API passes it.
  void launch_unit(Frame& frame, int unit, Queue& queue) const override {
    typename Kernel::Arguments arguments = kernel_.bind(frame, unit, queue);
    std::size_t filter = 0;
    for (const ArgRole role : description_.args) {
      switch (role) {
        case ArgRole::Input: arguments.input(frame, unit); break;
        case ArgRole::Image: arguments.image(frame, unit); break;
        case ArgRole::Output: arguments.output(frame, unit); break;
        case ArgRole::Filter:
        case ArgRole::RowFactor:
        case ArgRole::ColumnFactor: arguments.filter(filters_[filter++]); break;
        case ArgRole::Args: arguments.value(this->plan_.args); break;
        case ArgRole::LocalTile: arguments.local_bytes(this->plan_.on_chip_bytes); break;
        case ArgRole::TensorMap:
          if constexpr (requires { arguments.tensor_map(frame, unit, this->plan_); })
            arguments.tensor_map(frame, unit, this->plan_);
          else
            no_such_argument("a tensor map");
          break;
      }
    }
    kernel_.launch(arguments, this->plan_, queue);
  }

  [[noreturn]] void no_such_argument(std::string_view what) const {
    throw std::logic_error(std::string(description_.variant) + ": this API's kernels take no " + std::string(what));
  }

  const KernelDescription& description_;
  Kernel kernel_;
  std::vector<typename Kernel::Filter> filters_;  // in the description's order
};

}  // namespace cc
