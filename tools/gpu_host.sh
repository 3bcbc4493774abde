#!/usr/bin/env bash
# gpu_host.sh: one GPU-host call's work: build for sm_90, then the tests (CUDA tests, compute-sanitizer,
# the OpenCL tests on every platform, the CPU tests) or the benchmark sweep.
# Usage, on the GPU host from the project root with .gpu carried: bash tools/gpu_host.sh tests|bench LOG_DIR
# PARTS="cuda opencl cpu" (the default) names the tests' parts to run, so that they can be spread over two
# calls of the device tool's ten minutes (the build is kept between calls and made again only if stale).
set -uo pipefail
mode=${1:?usage: tools/gpu_host.sh tests|bench LOG_DIR}
log=${2:?usage: tools/gpu_host.sh tests|bench LOG_DIR}
mkdir -p "$log"
# shellcheck disable=SC1091
source .gpu/env.sh
status=0
note() { echo "== $*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv >"$log/gpu.txt" 2>&1
cat "$log/gpu.txt"
note "configure and build (sm_90)"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$log/configure.log" 2>&1 \
  || { tail -40 "$log/configure.log"; exit 1; }
grep -E "convcompare:|NPP" "$log/configure.log"
cmake --build build-gpu -j16 >"$log/build.log" 2>&1 || { grep -E "error" -A4 "$log/build.log" | head -80; exit 1; }
./build-gpu/convcompare --list >"$log/list.txt" 2>&1
grep -E "^  (cpu|cuda|opencl)" "$log/list.txt"

if [ "$mode" = bench ]; then
  note "benchmark"
  bash tools/benchmark.sh build-gpu "$log" || status=1
  exit $status
fi

parts=" ${PARTS:-cuda opencl cpu} "
if [[ $parts == *" cuda "* ]]; then
note "CUDA tests and compute-sanitizer"
bash tools/gpu_check.sh build-gpu "$log/sanitizers" || status=1
fi

if [[ $parts == *" opencl "* ]]; then
note "OpenCL tests on every OpenCL device"
# Each device's suite as one process per matrix variant (-sc) and one for the rest, all side by side: one
# process per matrix runs its variants' compiles one after another, and on NVIDIA's OpenCL the u8 and f32
# matrices then take over 500 s each where the split takes 70 s.
# The variants OpenCL implements, from --list's table ("name  text [cuda, opencl] {...}").
variants=$(awk '/^Variants/ {table = 1; next} table && /^[^ ]/ {table = 0} table && /\[[^]]*opencl[^]]*\]/ {print $1}' "$log/list.txt")
pids=() logs=()
for id in $(grep -oE "^  opencl:[0-9]+:[0-9]+" "$log/list.txt"); do
  for part in rest $(for v in $variants; do echo "f32-$v u8-$v"; done); do
    out="$log/test_opencl-${id//:/_}-$part.log"
    case $part in
      rest) filter=(-tce="matrix*") ;;
      f32-*) filter=(-tc="matrix: *" -sc="${part#f32-}") ;;
      u8-*) filter=(-tc="matrix u8*" -sc="${part#u8-}") ;;
    esac
    CONVCOMPARE_TEST_OPENCL_DEVICE=$id ./build-gpu/tests/test_opencl "${filter[@]}" >"$out" 2>&1 &
    pids+=($!) logs+=("$out")
  done
done
failed=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { failed=$((failed + 1)); status=1; grep -B3 -A10 "ERROR" "${logs[$i]}" | head -40; }
done
echo "test_opencl: ${#pids[@]} processes over every OpenCL device, $failed failed (logs test_opencl-*.log)"
# A variant whose extension a platform offers must run there, not skip (PoCL 5.0 offers
# cl_khr_subgroup_shuffle): its matrices hold no skip on such a device.
for id in $(grep -oE "^  opencl:[0-9]+:[0-9]+" "$log/list.txt"); do
  properties=$(awk -v id="$id" '$1 == id { on = 1; next } on && /^  [a-z]+:/ { on = 0 } on' "$log/list.txt")
  grep -q "sub-group shuffle: cl_" <<<"$properties" || continue
  for part in f32-shuffle u8-shuffle; do
    part_log="$log/test_opencl-${id//:/_}-$part.log"
    if ! grep -q "test cases: *1 | *1 passed" "$part_log" || grep -q "skipped: " "$part_log"; then
      echo "$id offers sub-group shuffles, yet its $part matrix skipped or did not run ($part_log)"
      status=1
    fi
  done
done

fi

if [[ $parts == *" cpu "* ]]; then
note "CPU tests"
ctest --test-dir build-gpu -j16 -L cpu --output-on-failure >"$log/ctest-cpu.log" 2>&1 || status=1
tail -3 "$log/ctest-cpu.log"
fi
exit $status
