#!/usr/bin/env bash
# every_variant.sh: every OpenCL variant on one device, over radii that take every shape, each run validated and none skipped for a device limit.
# Usage: tests/every_variant.sh PATH/TO/convcompare DEVICE [LAUNCHER...]
#   DEVICE: an id of `convcompare --list` (opencl:P:D); LAUNCHER: a command to run convcompare under (oclgrind ...).
# For runtimes with small limits (Rusticl: 32 work-items per kernel, 32 KB of local memory; PoCL under
# POCL_MAX_WORK_GROUP_SIZE; Oclgrind's --max-wgsize and --local-mem-size: docs/portability.md), where
# fast and separable must take their smaller shapes, with float and 8-bit pixels. The skips allowed are
# separable's on a filter that is not separable, fft's for 8-bit pixels and shuffle's on a device without
# sub-group shuffles (PoCL 3.1, Rusticl of Mesa 22.3). Exit 0 when every run validated.
set -uo pipefail

exe=${1:?usage: every_variant.sh PATH/TO/convcompare DEVICE [LAUNCHER...]}
device=${2:?usage: every_variant.sh PATH/TO/convcompare DEVICE [LAUNCHER...]}
shift 2
csv=$(mktemp)
trap 'rm -f "$csv" "$csv.part"' EXIT
data=$(cd "$(dirname "${BASH_SOURCE[0]}")/data" && pwd)

# quads (r < 5), rows of 4 (5..16), rows of 2 (17..32), columns where rows do not fit (r = 32 in 32 KB);
# separable's one band and its bands; a 5x3 filter file for non-square radii. Every variant runs all of
# them with float pixels, then fewer with 8-bit ones: the 8-bit kernels take the float shapes but for
# RGBA8's quads (common/geometry/fast_shape.h: "only the quads depend on it"), so the 8-bit passes take
# fewer radii. Every run goes to one CSV; any non-zero exit fails the script.
# 8-bit cases left out here, each still run elsewhere (this script was 13 of CI's 53 minutes;
# on PoCL at 64 work-items these 9 filter-and-pixel passes take 451 CPU-s, the 15 before 919):
# one channel at r = 12, 24 and 5x3 (rows of 4, rows of 2, non-square: the float shapes above, and as u8
# every scheme and border in test_opencl's "u8 fast and separable" case on PoCL, rows of 2 as RGBA8
# below); RGBA8 at r = 12, 32 and 5x3 (rows of 4 and non-square as above; r = 32 is columns, which RGBA8
# skips, on a 32 KB device and rows of 2 elsewhere, as r = 24).
status=0
run_all() {
  "$@" "$exe" --backend opencl --device "$device" --no-peaks --size 97x61 --repetitions 1 --warmup 0 --quiet \
    --variant all --border mirror --csv "$csv.part" "${filters[@]}" "${pixels[@]}" >/dev/null 2>&1 || status=$?
  if [[ -s $csv ]]; then tail -n +2 "$csv.part" >>"$csv"; else cat "$csv.part" >"$csv"; fi
  rm -f "$csv.part"
}
pixels=(--pixel f32)
filters=(--filter box:r=2 --filter box:r=12 --filter box:r=24 --filter box:r=32 --filter "file:$data/filter_5x3.txt")
run_all "$@"
# One channel: quads, and columns (u8's own columns kernel at Rusticl's 32 work-items is run only here).
pixels=(--pixel u8)
filters=(--filter box:r=2 --filter box:r=32)
run_all "$@"
# RGBA8: its quads of 2 rows (r = 2), and rows of 2 and separable's bands at the device's limit (r = 24).
pixels=(--pixel u8 --channels 4)
filters=(--filter box:r=2 --filter box:r=24)
run_all "$@"
# The skips allowed: separable on a filter that is not separable, fft for 8-bit pixels (its reasoned
# skip: common/domain/variants.h), and fast's columns scheme for RGBA8 (not yet: backends/launch_plan.cpp);
# any other u8 skip fails.
awk -F, -v status="$status" '
  NR == 1 { for (i = 1; i <= NF; ++i) column[$i] = i; s = column["status"]; r = column["reason"]; next }
  $column["record"] != "run" { next }  # the device lines
  { runs++ }
  $s == "ok" { ok++; next }
  $s == "skipped" && $r ~ /not separable/ { allowed++; next }
  $s == "skipped" && $r ~ /^"?fft has no u8 kernels/ { allowed++; next }
  $s == "skipped" && $r ~ /columns scheme .* has no RGBA8 kernel yet/ { allowed++; next }
  $s == "skipped" && $r ~ /the device offers no sub-group shuffle/ { allowed++; next }  # cl_devices.cpp
  $s == "skipped" && $r ~ /^"?OpenCL has no / { allowed++; next }  # a CUDA-only variant (variants.h, absent_from)
  $s == "skipped" && $r ~ /^"?OpenCL C has no tensor-core matrix product/ { allowed++; next }  # tensor off NVIDIA (cl_devices.cpp)
  $s == "skipped" && $r ~ /^"?PoCL 5[^ ]*.s (kernel library cannot link|work-group compiler aborts)/ { allowed++; next }  # cl_devices.cpp
  { bad++; print "FAIL  " $column["device"] " " $column["variant"] ": " $s " " $r }
  END {
    printf "%d of %d runs validated, %d skipped as allowed (not separable; fft for u8; no sub-group shuffle; absent in OpenCL; tensor off NVIDIA; PoCL 5 faults), exit status %d\n", ok, runs,
      allowed, status
    exit (status != 0 || bad > 0 || ok == 0)
  }' "$csv"
