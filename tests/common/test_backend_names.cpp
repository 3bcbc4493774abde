// test_backend_names.cpp: the one backend name list (common/domain/backend_names.h) and the forms read from it.
#include <doctest/doctest.h>

#include "common/domain/backend_names.h"

TEST_CASE("backend names: one list gives the lookups and the help text's forms") {
  REQUIRE(cc::find_backend_name("opencl") != nullptr);
  CHECK(cc::find_backend_name("opencl")->id_numbers == 2);
  CHECK(cc::find_backend_name("vulkan") == nullptr);
  CHECK(cc::backend_name_list(", ", " or ") == "cpu, cuda or opencl");
  CHECK(cc::device_id_forms(", ", " or ") == "cpu, cuda:N or opencl:P:D");
  CHECK(cc::first_device_id(*cc::find_backend_name("opencl")) == "opencl:0:0");
  CHECK(cc::first_device_id(*cc::find_backend_name("cpu")) == "cpu");
  // The console's ratios are taken against cuda, and the plot lists cuda, opencl, any other, cpu.
  CHECK(cc::find_backend_name("cuda")->ratio_base);
  CHECK_FALSE(cc::find_backend_name("cpu")->ratio_base);
  CHECK(cc::find_backend_name("cuda")->plot_rank < cc::find_backend_name("opencl")->plot_rank);
  CHECK(cc::find_backend_name("opencl")->plot_rank < cc::kUnlistedBackendPlotRank);
  CHECK(cc::kUnlistedBackendPlotRank < cc::find_backend_name("cpu")->plot_rank);
}
