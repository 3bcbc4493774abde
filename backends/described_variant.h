// described_variant.h: the one generic variant of our described kernels (their lines of common/domain/variants.h) for every GPU API, over the API's thin kernel wrapper.
#pragma once

#include <concepts>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backends/launch_plan.h"
#include "common/domain/variants.h"
#include "common/geometry/conv_args.h"

namespace cc {

// An API's kernel, translation only, as the generic variant launches it on `Frame`s queued on `Queue`:
// its Arguments, one launch's list in the kernel's parameter order with one member per ArgRole (CUDA:
// parameter slots; OpenCL: setArg), and its Filter, one filter role's upload. Besides these members:
//   Kernel(const Setup&)                                    finds or makes it (a module's, nvcc's, a program's)
//   Filter upload_filter(name, values, in_constant, queue)  CUDA: the __constant__ symbol `name` where
//                                                           in_constant, else a buffer; OpenCL: a buffer
// A role the API's kernels never take (TensorMap: CUDA's alone) needs no member of its Arguments: the
// table gives the API no such variant, and reaching it anyway is a logic error.
template <typename Kernel, typename Frame, typename Queue>
concept KernelWrapperOf = requires(const Kernel& kernel, Frame& frame, Queue& queue, int unit,
                                   typename Kernel::Arguments& arguments, const typename Kernel::Filter& filter,
                                   const ConvArgs& args, std::size_t bytes, const LaunchPlan& plan) {
  { kernel.bind(frame, unit, queue) } -> std::same_as<typename Kernel::Arguments>;  // before the first argument
  kernel.launch(arguments, plan, queue);                                           // over the plan's groups
  arguments.input(frame, unit);
  arguments.image(frame, unit);
  arguments.output(frame, unit);
  arguments.filter(filter);
  arguments.value(args);
  arguments.local_bytes(bytes);
};

// The generic variant over an API's FrameVariant base (`Variant`: the frame loop, the setup, --split's
// rows), built from the API's setup (backends/api_variant.h's VariantSetup and what only it has) and its
// setup queue.
template <typename Variant, typename Kernel>
  requires KernelWrapperOf<Kernel, typename Variant::frame_type, typename Variant::queue_type>
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
    throw std::logic_error(std::string(this->plan_.variant->name) + ": this API's kernels take no " + std::string(what));
  }

  const KernelDescription& description_;
  Kernel kernel_;
  std::vector<typename Kernel::Filter> filters_;  // in the description's order
};

}  // namespace cc
