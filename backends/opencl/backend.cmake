# backends/opencl/backend.cmake: the OpenCL backend, on where an OpenCL loader is found (CMakeLists.txt
# includes every backends/*/backend.cmake; paths are the top level's).
find_package(OpenCL QUIET)
option(CONVCOMPARE_OPENCL "Build the OpenCL backend" ${OpenCL_FOUND})
if(CONVCOMPARE_OPENCL)
  find_path(OPENCL_CLHPP_INCLUDE_DIR CL/opencl.hpp REQUIRED)
  # kernels_cl/*.cl (and common/geometry/conv_args.h and pixel.h, which every program starts with) embedded as strings.
  file(GLOB CL_KERNELS CONFIGURE_DEPENDS kernels_cl/*.cl)
  convcompare_embed(embedded_cl_sources CL_EMBEDDED ${CL_KERNELS})
  file(GLOB OPENCL_BACKEND_SOURCES CONFIGURE_DEPENDS backends/opencl/*.cpp)
  target_include_directories(convcompare_backends SYSTEM PUBLIC ${OPENCL_CLHPP_INCLUDE_DIR})
  target_link_libraries(convcompare_backends PUBLIC OpenCL::OpenCL)
  # Target 1.2, not 3.0: opencl.hpp then calls only 1.2 entry points (clCreateSampler,
  # clCreateCommandQueue), which every 1.2+ driver has. No CL_HPP_ENABLE_EXCEPTIONS: every status is
  # checked by CC_CL, which names the call, file and line (backends/opencl/cl_check.h).
  target_compile_definitions(convcompare_backends PUBLIC
                             CL_HPP_TARGET_OPENCL_VERSION=120 CL_HPP_MINIMUM_OPENCL_VERSION=120)
  # --split's halo routes on two devices of one platform, command by command (docs/multi-device.md). Out of
  # `all` (the README's test command builds nothing it does not run): `cmake --build build --target cl_halo_probe`.
  add_executable(cl_halo_probe EXCLUDE_FROM_ALL tools/probes/cl_halo_probe.cpp)
  target_link_libraries(cl_halo_probe PRIVATE OpenCL::OpenCL)
  set_target_properties(cl_halo_probe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tools/probes)
  # --memory managed's SVM hand-overs beside a mapped buffer's and pinned copies, command by command
  # (docs/memory-spaces-evidence.md, "One pointer, pages migrated"); OpenCL 2.0's calls, so only where the headers have them.
  add_executable(cl_svm_probe EXCLUDE_FROM_ALL tools/probes/cl_svm_probe.cpp)
  target_link_libraries(cl_svm_probe PRIVATE OpenCL::OpenCL)
  set_target_properties(cl_svm_probe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tools/probes)
  # VkFFT (Debian's libvkfft-dev, header only) transforms for the fft variant; without it fft is skipped.
  find_path(VKFFT_INCLUDE_DIR vkFFT.h)
  if(VKFFT_INCLUDE_DIR)
    target_include_directories(convcompare_backends SYSTEM PRIVATE ${VKFFT_INCLUDE_DIR})
    target_compile_definitions(convcompare_backends PUBLIC CONVCOMPARE_WITH_VKFFT=1)
  else()
    message(STATUS "VkFFT not found: the OpenCL fft variant is reported as skipped")
  endif()
  convcompare_backend(opencl OPTION CONVCOMPARE_OPENCL SOURCES ${OPENCL_BACKEND_SOURCES} ${CL_EMBEDDED})
endif()
