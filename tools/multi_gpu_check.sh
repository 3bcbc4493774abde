#!/usr/bin/env bash
# multi_gpu_check.sh: on a host with two or more GPUs, --split and --stream over every CUDA device and every NVIDIA OpenCL device, validated (docs/multi-device.md).
#
# Usage: tools/multi_gpu_check.sh CONVCOMPARE LOG_DIR [SIZE]
# One line per API; exits non-zero when an API has fewer than two devices, when convcompare fails, or
# when any split or dealt stream row (device ids joined by "+") is missing, skipped or fails validation.
# SIZE defaults to 2048x2048; the JSON and console report of each API are in LOG_DIR.
set -uo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 CONVCOMPARE LOG_DIR [SIZE]" >&2
  exit 2
fi
convcompare=$1
log_dir=$2
size=${3:-2048x2048}
if [[ ! -x $convcompare ]]; then
  echo "multi_gpu_check: $convcompare is not an executable (build it first)" >&2
  exit 2
fi
mkdir -p "$log_dir"
listing=$("$convcompare" --list) || { echo "multi_gpu_check: convcompare --list failed" >&2; exit 2; }
failures=0

# Every device line of --list is "  ID  NAME"; NVIDIA's OpenCL devices are those whose name says NVIDIA.
cuda_devices=$(awk '$1 ~ /^cuda:[0-9]+$/ {print $1}' <<<"$listing" | paste -sd, -)
opencl_devices=$(awk '$1 ~ /^opencl:[0-9]+:[0-9]+$/ && /NVIDIA/ {print $1}' <<<"$listing" | paste -sd, -)

check() {  # API DEVICES
  local api=$1 devices=$2
  if [[ $(tr ',' '\n' <<<"$devices" | grep -c .) -lt 2 ]]; then
    echo "$api: FAILED: fewer than two devices (${devices:-none}) in --list"
    failures=$((failures + 1))
    return
  fi
  local json="$log_dir/multi-$api.json" log="$log_dir/multi-$api.log"
  "$convcompare" --device "$devices" --variant global,tiled,texture,fast --border zero,clamp,mirror,wrap \
    --pixel f32,u8 --size "$size" --filter box:r=7 --filter gaussian:sigma=2 --split --stream 60 --time-budget 0.2 \
    --json "$json" >"$log" 2>&1
  local status=$?
  if [[ $status -ne 0 ]]; then
    echo "$api: FAILED: convcompare exited $status (see $log)"
    failures=$((failures + 1))
    return
  fi
  # Every row over several devices validated; a split skipped where one device ran the same problem, or a
# dealt stream skipped, is a failure (the reason is in the JSON).
  if ! python3 - "$json" "$api" <<'PY'; then
import json, sys
report = json.load(open(sys.argv[1]))
def key(r):
    return (r["variant"], r["filter"], r.get("border"), r["pixel"], r.get("memory"), r["width"], r["height"])
def first_device(r):
    backend, _, numbers = r["device"].partition(":")
    return f'{backend}:{numbers.split("+")[0]}'
singles = {(r["device"],) + key(r): r["status"] for r in report["runs"] if "+" not in r["device"]}
splits = [r for r in report["runs"] if "+" in r["device"]]
streams = [s for s in report["streams"] if "+" in s["device"]]
bad = []
for r in splits + streams:
    if r["status"] == "ok":
        continue
    # A split skipped where the first device alone ran the same problem is a failure; a skip both share
    # (a variant without that border on this device) is the device's limit, said in its reason.
    single = singles.get((first_device(r),) + key(r)) if r in splits else None
    if r["status"] == "skipped" and r in splits and single != "ok":
        continue
    bad.append(f'{r["device"]} {r["variant"]} {r["filter"]} {r.get("border", "")} {r["pixel"]}: {r["status"]} {r.get("reason") or ""}')
ran = [r for r in splits if r["status"] == "ok"]
# Device to device: CUDA's "halo rows peer to peer", OpenCL's "halo rows device to device in one context, through page-locked staging".
peer = sum(1 for r in ran if not (r.get("memory_note") or "").startswith("halo rows through the host"))
print(f"{sys.argv[2]}: {len(ran)} of {len(splits)} splits ran and validated ({peer} with halos device to device, "
      f"{len(ran) - peer} through the host), {len(streams)} dealt streams, {len(bad)} failed")
for line in bad[:20]:
    print("  " + line)
sys.exit(1 if bad or not ran or not streams else 0)
PY
    failures=$((failures + 1))
  fi
}

check cuda "$cuda_devices"
check opencl "$opencl_devices"
exit $((failures > 0))
