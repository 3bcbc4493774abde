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
# Exit 0 when every run that ran validated, 1 when any failed, 2 when a part wrote no report (OUT.json
# is then not written).
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

status=0
reports=()
for index in "${!parts[@]}"; do
  json=$work/part$index.json
  started=$SECONDS
  # shellcheck disable=SC2086  # a part is several words
  "${launcher[@]}" "$exe" --backend "$backend" --device "$device" --variant all --pixel f32,u8 \
    ${parts[index]} --repetitions 1 --warmup 0 --no-peaks --quiet --json "$json"
  code=$?
  echo "validation_runs.sh: part $((index + 1)) of ${#parts[@]} (${parts[index]}): exit $code, $((SECONDS - started)) s" >&2
  if [[ ! -s $json ]]; then
    echo "validation_runs.sh: part $((index + 1)) wrote no report (exit $code); $out not written" >&2
    exit 2
  fi
  ((code > status)) && status=$code
  reports+=("$json")
done

python3 - "$out" "${#reports[@]}" "${reports[@]}" "${recorded[@]}" <<'EOF' || exit 2
import json
import sys

out, count = sys.argv[1], int(sys.argv[2])
paths, command = sys.argv[3 : 3 + count], sys.argv[3 + count :]
parts = [json.load(open(path)) for path in paths]
report = parts[0]
report["command"] = command
report["runs"] = [run for part in parts for run in part["runs"]]
report["streams"] = [stream for part in parts for stream in part["streams"]]
report["incomplete"] = "; ".join(part["incomplete"] for part in parts if part["incomplete"])
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
