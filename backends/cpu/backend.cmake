# backends/cpu/backend.cmake: the CPU backend, always built (CMakeLists.txt includes every backends/*/backend.cmake).
file(GLOB CPU_BACKEND_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
convcompare_backend(cpu SOURCES ${CPU_BACKEND_SOURCES})
