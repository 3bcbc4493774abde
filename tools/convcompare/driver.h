// driver.h: the convcompare job: check the input, run every backend/device/variant, validate, report.
#pragma once

#include "tools/convcompare/cli.h"

namespace cc {

// The whole command, for main(): parses argv, runs the job, prints any error as one stderr line.
// Returns the exit status: 0 every run that ran validated, 1 a run failed (or an unexpected error
// stopped the job), 2 bad usage or input.
int convcompare_main(int argc, const char* const* argv);

// Runs a parsed Config (0 or 1 as above); throws InputError on bad input, before any slow work
// where the input allows.
int run_job(const Config& config);

}  // namespace cc
