// pixel_kernels.cu: one pixel format's table of the offline kernels (kernels_cuda/launchers.h), compiled with them once per format (CMakeLists.txt).
#include "kernels_cuda/launchers.h"

namespace cc::cuda_kernels {

// Pointers, not copies: their addresses are constants, so the table is ready before any constructor runs.
#define CC_OFFLINE_KERNEL_POINTER(file) &CC_PIXEL_ENTRY(file##_kernel),
const OfflineKernel* const CC_PIXEL_ENTRY(offline_kernels)[] = {CC_OFFLINE_KERNEL_FILES(CC_OFFLINE_KERNEL_POINTER) nullptr};
#undef CC_OFFLINE_KERNEL_POINTER

}  // namespace cc::cuda_kernels
