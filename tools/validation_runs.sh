#!/usr/bin/env bash
# validation_runs.sh: every variant, f32 and 8-bit, at odd sizes, a few filters and borders, on one device: one report for docs/portability.md's validation matrix.
# Usage: tools/validation_runs.sh PATH/TO/convcompare DEVICE OUT.json [LAUNCHER...]
#   DEVICE: an id of `convcompare --list` (opencl:P:D, cuda:N); its backend is the id's prefix.
#   LAUNCHER: a command to run convcompare under (oclgrind). A launcher simulates or checks every
#   access, so under one the problems are tiny (13x7 and 5x9) and fewer.
# The runs take the project's odd sizes (a width below any sub-group, 67x45, 257x255), radius 1, a wider
# box (r = 9: fast's rows scheme) and a non-square filter file (5x3), mirror border (zero once), one
# channel and three (RGBA8 for u8), each part one convcompare call. OUT.json holds the parts' runs as one
# report (docs/json-schema.md) whose `command` is this script's command line, written one run a line
# so that a stored report stays small (docs/validation/) and diffs by run.
# Exit 0 when every run that ran validated, 1 when any failed, 2 when a call wrote no report (OUT.json lists
# what it lost, below) or none did (OUT.json not written).
set -uo pipefail

usage="usage: validation_runs.sh PATH/TO/convcompare DEVICE OUT.json [LAUNCHER...]"
exe=${1:?$usage}
device=${2:?$usage}
out=${3:?$usage}
shift 3
launcher=("$@")
case $device in
  opencl:*) backend=opencl ;;
  cuda:*) backend=cuda ;;
  cpu) backend=cpu ;;
  *) echo "validation_runs.sh: DEVICE must read like opencl:0:0, cuda:0 or cpu, not '$device'" >&2; exit 2 ;;
esac
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The filter file as a path from here, so the report names it as a reader would type it.
filter_file=$(realpath --relative-to=. "$repo/tests/data/filter_5x3.txt")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The command line that made OUT.json, with the environment that selects or shapes the implementation.
recorded=()
for name in RUSTICL_ENABLE $(compgen -e | grep -E '^(POCL_|OCL_ICD_)' | sort); do
  [[ -n ${!name:-} ]] && recorded+=("$name=${!name}")
done
recorded+=("$0" "$exe" "$device" "$out" "${launcher[@]}")

# Each part: convcompare's options besides the common ones below.
if ((${#launcher[@]})); then
  parts=(
    "--channels 1 --sweep size=5x9,13x7 --filter box:r=1 --filter file:$filter_file --border mirror"
    "--channels 3 --size 13x7 --filter box:r=2 --border zero"
  )
else
  parts=(
    "--channels 1 --sweep size=5x9,67x45,257x255 --filter box:r=1 --border mirror"
    "--channels 1 --size 67x45 --filter box:r=9 --filter file:$filter_file --border mirror"
    "--channels 1 --size 67x45 --filter box:r=1 --border zero"
    "--channels 3 --size 67x45 --filter box:r=1 --filter box:r=9 --border mirror"
  )
fi

# The variants `--variant all` may run, from --list's variant lines ("NAME  ... [cuda, opencl] {...}"): all but
# the CPU's own and the choice (auto). One of another API's is a skipped row (OpenCL: cluster, tma) or refused
# ("no selected backend implements", npp), below.
variants() {
  "$exe" --list 2>/dev/null | awk '/^Variants/ { on = 1; next } on && /^$/ { exit }
    on && match($0, /\[[^][]*\] \{[^{}]*\}$/) && substr($0, RSTART) !~ /^\[cpu\]/ && $1 != "auto" { print $1 }'
}

# convcompare with the part's options: REPORT VARIANTS PIXELS OPTIONS; its stderr, less the progress lines,
# goes to stderr and its last line to REPORT.error.
convcompare() {
  local report=$1 variant=$2 pixel=$3 options=$4
  # shellcheck disable=SC2086  # the options are several words
  "${launcher[@]}" "$exe" --backend "$backend" --device "$device" --variant "$variant" --pixel "$pixel" $options \
    --repetitions 1 --warmup 0 --no-peaks --quiet --kernel-timeout 120 --json "$report" 2>"$report.stderr"
  local code=$?
  grep -v '^\[[0-9]*/[0-9]*\]' "$report.stderr" | tee "$report.error" >&2
  return $code
}

# A part that writes no report (a crash, a driver's abort, a kernel past --kernel-timeout) runs again one variant
# and pixel type at a time, so that one lost run costs its own cells only: each call that still writes none is
# listed in the report's `incomplete`, one line "no report: VARIANT PIXEL CHANNELS channels (OPTIONS): exit N:
# LAST LINE", which tools/validation_matrix.py shows as failed.
status=0
reports=()
lost=()
for index in "${!parts[@]}"; do
  options=${parts[index]}
  json=$work/part$index.json
  started=$SECONDS
  convcompare "$json" all f32,u8 "$options"
  code=$?
  echo "validation_runs.sh: part $((index + 1)) of ${#parts[@]} ($options): exit $code, $((SECONDS - started)) s" >&2
  ((code > status)) && status=$code
  if [[ -s $json ]]; then
    reports+=("$json")
    continue
  fi
  echo "validation_runs.sh: part $((index + 1)) wrote no report: one variant and pixel type at a time" >&2
  [[ $options =~ --channels\ ([0-9]+) ]] && channels=${BASH_REMATCH[1]}
  for variant in $(variants); do
    for pixel in f32 u8; do
      single=$work/part$index-$variant-$pixel.json
      convcompare "$single" "$variant" "$pixel" "$options"
      code=$?
      if [[ -s $single ]]; then
        reports+=("$single")
      elif grep -q 'no selected backend implements' "$single.error"; then
        continue  # not a variant of this backend: `--variant all` leaves it out
      else
        lost+=("no report: $variant $pixel $channels channels ($options): exit $code: $(tail -n 1 "$single.error")")
        echo "validation_runs.sh: ${lost[-1]}" >&2
      fi
    done
  done
done
if ((${#reports[@]} == 0)); then
  echo "validation_runs.sh: no part wrote a report; $out not written" >&2
  exit 2
fi

LOST=$(printf '%s\n' "${lost[@]}") python3 - "$out" "${#reports[@]}" "${reports[@]}" "${recorded[@]}" <<'EOF' || exit 2
import json
import os
import sys

out, count = sys.argv[1], int(sys.argv[2])
paths, command = sys.argv[3 : 3 + count], sys.argv[3 + count :]
parts = [json.load(open(path)) for path in paths]
report = parts[0]
report["command"] = command
report["runs"] = [run for part in parts for run in part["runs"]]
report["streams"] = [stream for part in parts for stream in part["streams"]]
report["incomplete"] = "\n".join([part["incomplete"] for part in parts if part["incomplete"]] +
                                 [line for line in os.environ["LOST"].splitlines() if line])
# The environment's pairs that differ between parts (the input) list each part's value.
for key in report["environment"]:
    values = list(dict.fromkeys(part["environment"].get(key, "") for part in parts))
    report["environment"][key] = " | ".join(values)
with open(out, "w") as file:
    head = {key: value for key, value in report.items() if key not in ("runs", "streams")}
    file.write(json.dumps(head, indent=1)[:-2] + ',\n"runs": [\n')
    file.write(",\n".join(json.dumps(run, separators=(",", ":")) for run in report["runs"]))
    file.write('\n],\n"streams": ' + json.dumps(report["streams"]) + "\n}\n")
statuses = [run["status"] for run in report["runs"]]
print(f"validation_runs.sh: {out}: {len(statuses)} runs, {statuses.count('ok')} validated, {statuses.count('failed')} "
      f"failed, {statuses.count('skipped')} skipped", file=sys.stderr)
EOF
exit "$status"
