#!/usr/bin/env bash
# benchmark.sh: the performance sweep on a GPU host, as docs/performance.md reports it: every variant
# against NPP, CUDA against OpenCL (the NVIDIA platform), device-resident float32, one channel, replicate
# (clamp) border so NPP runs too; then host to host with overlap (--stream); then the tables.
# Usage: tools/benchmark.sh BUILD_DIR LOG_DIR [SIZE...]   (sizes default to 2048x2048 8192x8192)
# Writes LOG_DIR/bench-SIZE.{json,md,txt,png}, LOG_DIR/stream.json and LOG_DIR/tables.md, which
# `python3 tools/perf_tables.py splice LOG_DIR/tables.md docs/performance.md` puts into the document.
set -uo pipefail
build=${1:?usage: benchmark.sh BUILD_DIR LOG_DIR [SIZE...]}
log=${2:?usage: benchmark.sh BUILD_DIR LOG_DIR [SIZE...]}
shift 2
sizes=("$@")
((${#sizes[@]})) || sizes=(2048x2048 8192x8192)
mkdir -p "$log"
exe="$build/convcompare"
here=$(cd "$(dirname "$0")" && pwd)
# The NVIDIA OpenCL platform, whichever index the ICD loader gave it.
nvidia_cl=$("$exe" --list | grep -E "^  opencl:[0-9]+:[0-9]+ .*NVIDIA" | head -1 | awk '{print $1}')
devices=(--device cuda:0)
[ -n "$nvidia_cl" ] && devices+=(--device "$nvidia_cl")
# --variant auto tunes afresh: the cache of an earlier build must not decide this run.
export CONVCOMPARE_CACHE_DIR="$log/tuning-cache"
status=0
for size in "${sizes[@]}"; do
  echo "== $size: ${devices[*]}"
  "$exe" --backend cuda,opencl "${devices[@]}" --size "$size" --border clamp --sweep radius=1,2,3,7,13,16,32 \
    --variant global,constant,tiled,texture,separable,fft,fast,auto,npp,npp-separable --retune \
    --repetitions 20 --warmup 3 --time-budget 0.5 \
    --json "$log/bench-$size.json" --markdown "$log/bench-$size.md" --plot "$log/bench-$size.png" \
    >"$log/bench-$size.txt" 2>"$log/bench-$size.err" || status=1
  grep -E "^ *(fast|npp) " "$log/bench-$size.txt" | head -20
done
echo "== host to host with overlap: 2048x2048, 3x3"
"$exe" --backend cuda,opencl "${devices[@]}" --size 2048x2048 --filter box:r=1 --border clamp --variant fast \
  --memory pinned,pageable --stream 200 --json "$log/stream.json" >"$log/stream.txt" 2>&1 || status=1
python3 "$here/perf_tables.py" tables "$log"/bench-*.json "$log/stream.json" >"$log/tables.md" || status=1
cat "$log/tables.md"
exit $status
