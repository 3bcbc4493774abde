// filter_in_constant.cuh: the __constant__ filter array of a kernel file, which the CUDA backend fills through the file's OfflineKernel.
// Without relocatable device code every .cu is its own module, so each kernel file that includes this
// gets its own c_filter, once per pixel format it is compiled for (kernels_cuda/launchers.h); the
// anonymous namespace keeps the copies from clashing at link time.
#pragma once

#include "kernels_cuda/launchers.h"

namespace {

__constant__ float c_filter[cc::cuda_kernels::kMaxConstantTaps];

}  // namespace
