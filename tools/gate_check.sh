#!/usr/bin/env bash
# gate_check.sh: measures the --compare gate on a busy CPU runner: unchanged reruns, planted 2x and 10% slowdowns, with a busy loop holding one core.
#
# Usage: tools/gate_check.sh BUILD_DIR OUT_DIR
# The targets (docs/performance.md, "Comparing with a baseline"), each checked and printed:
#   RERUNS unchanged reruns against a baseline: at most max(1, RERUNS / 10) exit 3 (a false alarm);
#   SLOW2X runs against the baseline planted 2x faster (every run reads 2x slower): exit 3 or 4 in all
#     but RERUNS / 20 of them, and none exits 0;
#   SLOW10 runs against it planted 10% faster: no row whose threshold is over 10% reads "unchanged"
#     (it cannot see 10%: inconclusive).
# Environment: RERUNS (default 10), SLOW2X (20), SLOW10 (10); BUSY=0 leaves out the busy loop;
# JOB overrides the convcompare arguments (default: CPU and OpenCL, four variants, 256x256, box:r=3).
# A run's console and JSON are in OUT_DIR; exits 1 when a target is missed. Timed: not for ctest.
set -uo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR OUT_DIR" >&2
  exit 2
fi
convcompare="$1/convcompare"
out=$2
if [[ ! -x $convcompare ]]; then
  echo "gate_check: no convcompare in $1 (build it first)" >&2
  exit 2
fi
command -v python3 >/dev/null || { echo "gate_check: needs python3 (to plant the baselines and count the verdicts)" >&2; exit 2; }
mkdir -p "$out"
reruns=${RERUNS:-10} slow2x=${SLOW2X:-20} slow10=${SLOW10:-10}
read -r -a job <<<"${JOB:---variant naive,fast,tiled,separable --size 256x256 --filter box:r=3}"
here=$(dirname "$0")

# The busy loop: one core held for the whole check, as another job on a shared two-core runner would.
busy=""
if [[ ${BUSY:-1} != 0 ]]; then
  (while :; do :; done) &
  busy=$!
  trap 'kill "$busy" 2>/dev/null' EXIT
fi

# run NAME BASELINE: one --compare run; prints its exit status.
run() {
  "$convcompare" "${job[@]}" --compare "$2" --json "$out/$1.json" >"$out/$1.txt" 2>&1
  echo $?
}

"$convcompare" "${job[@]}" --json "$out/baseline.json" >"$out/baseline.txt" 2>&1 ||
  { echo "gate_check: the baseline run failed (see $out/baseline.txt)"; exit 1; }
python3 "$here/plant_baseline.py" 0.5 "$out/baseline.json" "$out/planted2x.json"
python3 "$here/plant_baseline.py" "$(python3 -c 'print(1 / 1.1)')" "$out/baseline.json" "$out/planted10.json"

# Each set's runs, interleaved so that the machine's drift falls on all three alike.
statuses_unchanged=() statuses_2x=() statuses_10=()
most=$((reruns > slow2x ? reruns : slow2x))
most=$((most > slow10 ? most : slow10))
for ((i = 1; i <= most; ++i)); do
  ((i <= reruns)) && statuses_unchanged+=("$(run "unchanged-$i" "$out/baseline.json")")
  ((i <= slow2x)) && statuses_2x+=("$(run "slow2x-$i" "$out/planted2x.json")")
  ((i <= slow10)) && statuses_10+=("$(run "slow10-$i" "$out/planted10.json")")
done

# The verdicts of every run of a set, counted, and the rows a target forbids.
python3 - "$out" "$reruns" "$slow2x" "$slow10" "${statuses_unchanged[*]}" "${statuses_2x[*]}" "${statuses_10[*]}" <<'PY'
import collections, json, sys

out, counts = sys.argv[1], [int(n) for n in sys.argv[2:5]]
statuses = [[int(s) for s in text.split()] for text in sys.argv[5:8]]
failures = 0

def verdicts(name, n):
    """Per run: (exit status later), verdict counts, and the rows (variant, device, verdict, threshold)."""
    rows = []
    for i in range(1, n + 1):
        with open(f"{out}/{name}-{i}.json") as file:
            report = json.load(file)
        rows.append([(r["device"], r["variant"], r["compare"]["verdict"], r["compare"]["threshold"])
                     for r in report["runs"] if r["status"] != "skipped" and r.get("compare")])
    return rows

def report(title, name, n, status):
    rows = verdicts(name, n)
    exits = collections.Counter(status)
    tally = collections.Counter(v for run in rows for (_, _, v, _) in run)
    thresholds = sorted(t for run in rows for (_, _, _, t) in run if t is not None)
    median = thresholds[len(thresholds) // 2] if thresholds else float("nan")
    print(f"{title}: {n} runs; exit " + ", ".join(f"{k}: {exits[k]}" for k in sorted(exits)) +
          "; rows " + ", ".join(f"{v} {c}" for v, c in tally.most_common()) +
          f"; median threshold {100 * median:.0f}%")
    return rows

def check(ok, text):
    global failures
    print(("ok    " if ok else "FAIL  ") + text)
    failures += not ok

n_unchanged, n_2x, n_10 = counts
s_unchanged, s_2x, s_10 = statuses
report("unchanged reruns", "unchanged", n_unchanged, s_unchanged)
alarms = s_unchanged.count(3)
check(alarms <= max(1, n_unchanged // 10), f"unchanged reruns exiting 3: {alarms} of {n_unchanged} (at most {max(1, n_unchanged // 10)})")

report("planted 2x", "slow2x", n_2x, s_2x)
flagged = sum(s in (3, 4) for s in s_2x)
check(flagged >= n_2x - n_2x // 20, f"planted 2x exiting 3 or 4: {flagged} of {n_2x} (at least {n_2x - n_2x // 20})")
check(s_2x.count(0) == 0, f"planted 2x exiting 0: {s_2x.count(0)} of {n_2x} (none)")

rows = report("planted 10%", "slow10", n_10, s_10)
blind = [(i + 1, d, v, t) for i, run in enumerate(rows) for (d, v, verdict, t) in run
         if t is not None and t > 0.10 and verdict == "unchanged"]
seen = sum(1 for run in rows for (_, _, _, t) in run if t is not None and t > 0.10)
check(not blind, f"planted 10%, rows with a threshold over 10% read unchanged: {len(blind)} of {seen} (none)")
for i, d, v, t in blind[:10]:
    print(f"      run {i}: {d} {v} threshold {100 * t:.0f}% unchanged")
print(f"gate_check: {failures} failed")
sys.exit(1 if failures else 0)
PY
