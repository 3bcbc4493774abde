#!/usr/bin/env bash
# benchmark.sh: the performance sweep on a GPU host: our variants against NPP, CUDA against OpenCL,
# device-resident float32, one channel, replicate (clamp) border so NPP runs too.
# Usage: tools/benchmark.sh BUILD_DIR LOG_DIR [SIZE...]   (sizes default to 2048x2048 8192x8192)
# Writes LOG_DIR/bench-SIZE.{json,md,txt}; the tables in docs/performance.md come from these files.
set -uo pipefail
build=${1:?usage: benchmark.sh BUILD_DIR LOG_DIR [SIZE...]}
log=${2:?usage: benchmark.sh BUILD_DIR LOG_DIR [SIZE...]}
shift 2
sizes=("$@")
((${#sizes[@]})) || sizes=(2048x2048 8192x8192)
mkdir -p "$log"
exe="$build/convcompare"
# The NVIDIA OpenCL platform, whichever index the ICD loader gave it.
nvidia_cl=$("$exe" --list | grep -E "^  opencl:[0-9]+:[0-9]+ .*NVIDIA" | head -1 | awk '{print $1}')
devices=(--device cuda:0)
[ -n "$nvidia_cl" ] && devices+=(--device "$nvidia_cl")
filters=()
for r in 1 2 3 7 13 16 32; do filters+=(--filter "box:r=$r"); done
status=0
for size in "${sizes[@]}"; do
  echo "== $size: ${devices[*]}"
  "$exe" --backend cuda,opencl "${devices[@]}" --size "$size" --border clamp "${filters[@]}" \
    --variant global,tiled,separable,fast,npp,npp-separable --repetitions 20 --warmup 3 --time-budget 3 \
    --json "$log/bench-$size.json" --markdown "$log/bench-$size.md" >"$log/bench-$size.txt" 2>"$log/bench-$size.err" ||
    status=1
  python3 - "$log/bench-$size.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
rows = {}
for r in runs:
    key = (r["radius_x"], r["backend"] + ":" + r["variant"])
    rows[key] = r["kernel_ms"]["median"] if r["status"] == "ok" else r["status"]
names = sorted({k[1] for k in rows})
print("r    " + " ".join(f"{n:>22}" for n in names))
for radius in sorted({k[0] for k in rows}):
    cells = []
    for n in names:
        v = rows.get((radius, n), "-")
        cells.append(f"{v:>22.4f}" if isinstance(v, float) else f"{str(v):>22}")
    print(f"{radius:<4} " + " ".join(cells))
PY
done
exit $status
