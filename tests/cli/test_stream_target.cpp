// test_stream_target.cpp: the --stream row of a run that did not run: skipped with the single run's own reason, or failed validation named.
#include <doctest/doctest.h>

#include "backends/backend.h"
#include "common/domain/filter.h"
#include "common/domain/image.h"
#include "common/domain/problem.h"
#include "tools/convcompare/execute.h"
#include "tools/convcompare/targets.h"

TEST_CASE("stream_target: a skipped single run gives a skipped stream row with its reason, a failed one says so") {
  const cc::Image input(8, 6, 1);
  const cc::Problem problem = cc::make_problem(input, cc::parse_filter_spec("box:r=1"), cc::Border::Clamp, false);
  cc::Outcome single;
  single.record.status = cc::Status::Skipped;
  single.record.reason = "--memory managed-faults: the device offers no fine-grained SVM buffers";
  // No backend: a stream that tried to run would dereference it; the row must come from the single run alone.
  const cc::Target target;
  const cc::StreamRecord skipped = cc::stream_target(target, single, problem, input, input, 3, cc::RunOptions{});
  CHECK(skipped.status == cc::Status::Skipped);
  CHECK(skipped.reason == single.record.reason);

  single.record.status = cc::Status::Failed;
  single.record.reason = "max abs error 3 > tolerance 0.001";
  const cc::StreamRecord failed = cc::stream_target(target, single, problem, input, input, 3, cc::RunOptions{});
  CHECK(failed.status == cc::Status::Skipped);
  CHECK(failed.reason == "the single run did not validate");
}
