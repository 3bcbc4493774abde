#!/usr/bin/env bash
# gpu_regression_check.sh: on the GPU host, shows that --compare gates a CI job: exit 0 for an unchanged rerun, 3 for a planted regression.
#
# Usage: tools/gpu_regression_check.sh BUILD_DIR OUT_DIR [BACKENDS]   (BACKENDS: default cuda,opencl)
# 1. a baseline report (warm L2), 2. the same run against it: exit 0 expected (nothing slower beyond
# the noise), 3. the baseline with every raw sample and statistic planted at 0.7x (so the current run
# reads as 1.43x slower): exit 3 expected, 4. the same with --cold, against a cold baseline: exit 0, and
# each cold run's JSON says cold with as many raw samples as it counts. Prints one line per check and
# exits non-zero when any check fails; every command's output is in OUT_DIR. SIZE and VARIANTS in the
# environment change the problem (a smoke run off the GPU host: SIZE=128x128 VARIANTS=fast ... cpu), and
# DEVICES picks devices, and RERUNS=N adds the gate's acceptance check (below).
set -uo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 BUILD_DIR OUT_DIR [BACKENDS]" >&2
  exit 2
fi
convcompare="$1/convcompare"
out=$2
backends=${3:-cuda,opencl}
if [[ ! -x $convcompare ]]; then
  echo "gpu_regression_check: no convcompare in $1 (build it first)" >&2
  exit 2
fi
mkdir -p "$out"
failures=0

# DEVICES (a comma list, e.g. cuda:0,opencl:1:0) keeps a host's CPU OpenCL, whose timings wander with
# the host's load, out of a GPU gate.
devices=()
DEVICES=${DEVICES:-}
for device in ${DEVICES//,/ }; do devices+=(--device "$device"); done
# 20 samples a run and a budget that lets them all be taken: the U test needs about 10 a side.
run=("$convcompare" --backend "$backends" "${devices[@]}" --variant "${VARIANTS:-global,tiled,fast}" --size "${SIZE:-2048x2048}" --filter box:r=3
     --filter gaussian:sigma=2 --repetitions 20 --warmup 3 --time-budget 20)

# check NAME EXPECTED_STATUS COMMAND...: runs it, its output in OUT_DIR/NAME.txt.
check() {
  local name=$1 expected=$2
  shift 2
  "$@" >"$out/$name.txt" 2>&1
  local status=$?
  local summary
  summary=$(tail -1 "$out/$name.txt")
  if [[ $status -eq $expected ]]; then
    echo "ok    $name: exit $status ($summary)"
  else
    echo "FAIL  $name: exit $status, expected $expected ($summary)"
    failures=$((failures + 1))
  fi
}

check baseline 0 "${run[@]}" --json "$out/baseline.json"
check unchanged 0 "${run[@]}" --json "$out/unchanged.json" --compare "$out/baseline.json"

# The regression, planted: every sample of the baseline 0.7x, so each current run is 1/0.7 = 1.43x
# slower than it, far beyond --min-change's 5%, and 20 samples a side give p near 1e-7.
# plant FACTOR FROM TO: FROM's samples and statistics times FACTOR, into TO (a current run then reads
# 1 / FACTOR times slower than the baseline).
plant() { python3 "$(dirname "$0")/plant_baseline.py" "$@"; }
plant 0.7 "$out/baseline.json" "$out/planted.json"
check planted-regression 3 "${run[@]}" --compare "$out/planted.json"
grep -E "^! " "$out/planted-regression.txt" | head -20

check cold-baseline 0 "${run[@]}" --cold --json "$out/cold-baseline.json"
check cold-unchanged 0 "${run[@]}" --cold --json "$out/cold.json" --compare "$out/cold-baseline.json"
if python3 - "$out/cold.json" "$out/baseline.json" <<'PY'
import json, sys
cold, warm = (json.load(open(path)) for path in sys.argv[1:3])
ok = cold["measurement"]["cold"] is True and warm["measurement"]["cold"] is False
for run in cold["runs"]:
    if run["status"] != "ok":
        continue
    ok &= run["cold"] is True and run["kernel_ms"]["samples"] == len(run["kernel_samples_ms"])
    key = lambda r: (r["backend"], r["device"], r["variant"], r["filter"])
    twin = [w for w in warm["runs"] if key(w) == key(run) and w["status"] == "ok"]
    if twin:
        print(f"  {run['backend']:6} {run['variant']:6} {run['filter']:18} warm {twin[0]['kernel_ms']['median']:.4f} ms"
              f"  cold {run['kernel_ms']['median']:.4f} ms  n {run['kernel_ms']['samples']}  stop {run['stopped_by']}")
sys.exit(0 if ok else 1)
PY
then
  echo "ok    cold JSON: every run cold, raw samples as many as counted"
else
  echo "FAIL  cold JSON: a run not marked cold or its samples miscounted"
  failures=$((failures + 1))
fi

# RERUNS=N (the acceptance check, 20 in docs/performance.md): N more unchanged reruns against the baseline, each to exit 0,
# and N runs against the baseline planted 10% faster (1/1.1), each to exit 3; at least N - 1 of each
# must, since a gate at p < 0.01 on real drift may miss one in twenty.
if [[ -n ${RERUNS:-} ]]; then
  plant "$(python3 -c 'print(1 / 1.1)')" "$out/baseline.json" "$out/planted10.json"
  unchanged=0 caught=0
  for ((i = 1; i <= RERUNS; ++i)); do
    "${run[@]}" --quiet --json "$out/rerun-$i.json" --compare "$out/baseline.json" >"$out/rerun-$i.txt" 2>&1
    status=$?
    ((status == 0)) && unchanged=$((unchanged + 1))
    echo "  rerun $i: exit $status $(grep -o '"verdict": "[a-z ]*"' "$out/rerun-$i.json" | sort | uniq -c | tr -s ' \n' ' ')"
    "${run[@]}" --quiet --json "$out/planted10-$i.json" --compare "$out/planted10.json" >"$out/planted10-$i.txt" 2>&1
    status=$?
    ((status == 3)) && caught=$((caught + 1))
    echo "  planted 10% $i: exit $status $(grep -o '"verdict": "[a-z ]*"' "$out/planted10-$i.json" | sort | uniq -c | tr -s ' \n' ' ')"
  done
  for result in "unchanged reruns exit 0:$unchanged" "planted 10% regressions exit 3:$caught"; do
    count=${result##*:}
    if ((count >= RERUNS - 1)); then echo "ok    ${result%%:*}: $count of $RERUNS"
    else echo "FAIL  ${result%%:*}: $count of $RERUNS"; failures=$((failures + 1)); fi
  done
fi

echo "gpu_regression_check: $failures failed"
[[ $failures -eq 0 ]]
