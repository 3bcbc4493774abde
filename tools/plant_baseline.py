#!/usr/bin/env python3
"""plant_baseline.py: a copy of a --json report with every kernel time times FACTOR, for planting a regression in a --compare baseline.

Usage: plant_baseline.py FACTOR SOURCE.json TARGET.json
A current run then reads 1 / FACTOR times slower than the planted baseline (FACTOR 0.5: a 2x slowdown).
The raw samples, their statistics and the batch figure are scaled; the noise (a ratio) is unchanged.
"""
import json
import sys

factor, source, target = float(sys.argv[1]), sys.argv[2], sys.argv[3]
with open(source) as file:
    report = json.load(file)
for run in report["runs"]:
    if run.get("kernel_samples_ms"):
        run["kernel_samples_ms"] = [factor * ms for ms in run["kernel_samples_ms"]]
        for key in ("median", "min", "max", "mean", "stddev"):
            if run["kernel_ms"].get(key) is not None:
                run["kernel_ms"][key] *= factor
        if run.get("kernel_batch_ms") is not None:
            run["kernel_batch_ms"] *= factor
with open(target, "w") as file:
    json.dump(report, file, indent=2)
