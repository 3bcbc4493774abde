#!/usr/bin/env bash
# gpu_check.sh: on a GPU host, the CUDA tests plus compute-sanitizer's four tools over every border and NPP.
#
# Usage: tools/gpu_check.sh BUILD_DIR LOG_DIR
# Prints one line per check and exits non-zero if any test fails, any sanitizer reports an error, or
# convcompare itself fails; the full output of each check is in LOG_DIR.
set -uo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR LOG_DIR" >&2
  exit 2
fi
build_dir=$1
log_dir=$2
convcompare="$build_dir/convcompare"
if [[ ! -x $convcompare ]]; then
  echo "gpu_check: no convcompare in $build_dir (build it first)" >&2
  exit 2
fi
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [[ ! -x $sanitizer ]]; then
  echo "gpu_check: compute-sanitizer not found (on PATH or in /usr/local/cuda/bin)" >&2
  exit 2
fi
mkdir -p "$log_dir"
failures=0

# The tests. A skipped test_cuda means no device was found: on a GPU host that is a failure too.
ctest_log="$log_dir/ctest-gpu.log"
ctest --test-dir "$build_dir" -L gpu --output-on-failure >"$ctest_log" 2>&1
ctest_status=$?
if [[ $ctest_status -ne 0 ]] || grep -q "Not Run\|Skipped\|No tests were found" "$ctest_log"; then
  echo "ctest -L gpu: FAILED, skipped or not built (exit $ctest_status, see $ctest_log)"
  grep -B3 -A12 "ERROR" "$ctest_log" | head -60
  failures=$((failures + 1))
else
  echo "ctest -L gpu: $(grep -E 'tests passed' "$ctest_log" | tail -1)"
fi

# Small enough to run in seconds under every tool; 67x45 is no multiple of any block or tile.
common=(--backend cuda --filter box:r=2 --repetitions 1 --warmup 0 --quiet)
# Every variant at r=2 per border; NPP (replicate only); fast's rows scheme (its 4-row loop at r=6, its
# 2-row loop at r=20) and fft beside r=2; --stream's overlapped pipeline; --variant auto's tuning runs;
# 8-bit pixels through the kernels compiled for them (1 channel, RGBA8 with 3 channels padded) and NPP's;
# u8 fast (quads at r=2, rows of 4 at r=6, rows of 2 at r=20; RGBA8's quads of 4 rows at r=1 and of 2 at
# r=2) and separable on an image with interior blocks (their 4- and 16-byte quad loads, their
# channel-by-channel staging), 1 channel and RGBA8; async's asynchronous copies at large radii; --memory
# mapped (kernels on cudaHostAllocMapped memory) and managed (cudaMallocManaged, prefetched), f32 and u8,
# one run and --stream (issue #26).
cases=(zero clamp mirror wrap npp rows interior stream auto u8 u8-rgba u8-npp u8-fast u8-fast-rgba async
       mapped managed u8-mapped u8-managed)
case_arguments() {
  case $1 in
    npp) echo "--size 67x45 --variant npp,npp-separable --border clamp" ;;
    rows) echo "--size 67x45 --variant fast,fft --filter box:r=6 --filter box:r=20 --border mirror" ;;
    # A 7-smooth size several blocks wide: the blocks that skip the border fold (fast quads and rows,
    # separable) and fft's unpadded transform with its edge bands.
    interior) echo "--size 640x360 --variant fast,separable,fft --filter box:r=6 --border mirror" ;;
    stream) echo "--size 67x45 --variant global,texture,fast,fft --stream 3 --border wrap" ;;
    auto) echo "--size 67x45 --variant auto --retune --border zero" ;;
    u8) echo "--size 67x45 --variant global,constant,tiled,texture,async --pixel u8 --border wrap" ;;
    u8-rgba) echo "--size 67x45 --variant global,constant,tiled,texture,async --pixel u8 --channels 3 --border mirror" ;;
    u8-npp) echo "--size 67x45 --variant npp,npp-separable --pixel u8 --channels 4 --border clamp" ;;
    u8-fast) echo "--size 640x360 --variant fast,separable,auto --pixel u8 --filter box:r=6 --filter box:r=20 --border wrap" ;;
    u8-fast-rgba) echo "--size 640x360 --variant fast,separable --pixel u8 --channels 3 --filter box:r=1 --filter box:r=6 --filter box:r=20 --border mirror" ;;
    # async's copies (cp.async, then the wait, then the barrier) at radii whose tiles outgrow the image
    # and the block, interior tiles and tiles past every edge (640x360); f32 and RGBA8 copy asynchronously.
    async) echo "--size 640x360 --variant async --filter box:r=6 --filter box:r=20 --filter box:r=32 --border clamp" ;;
    mapped | managed) echo "--size 67x45 --variant global,tiled,fast --memory $1 --stream 3 --border mirror" ;;
    u8-mapped | u8-managed)
      echo "--size 67x45 --variant global,tiled,fast --memory ${1#u8-} --pixel u8 --channels 3 --stream 3 --border clamp" ;;
    *) echo "--size 67x45 --border $1" ;;
  esac
}

for tool in memcheck racecheck initcheck synccheck; do
  for name in "${cases[@]}"; do
    log="$log_dir/$tool-$name.log"
    # shellcheck disable=SC2046  # the case's arguments are meant to split into words
    "$sanitizer" --tool "$tool" --error-exitcode 99 "$convcompare" "${common[@]}" $(case_arguments "$name") \
      >"$log" 2>&1
    status=$?
    # racecheck ends with "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)" instead
    summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | tail -1 | sed 's/^=* *//')
    # Without a device convcompare skips the backend and exits 0: nothing would have been checked.
    no_device=$(grep -o "skipping cuda: .*" "$log" | head -1)
    echo "$tool $name: ${summary:-no ERROR SUMMARY line} (exit $status)${no_device:+, $no_device}"
    if [[ $status -ne 0 || -n $no_device ]] ||
       [[ $summary != "ERROR SUMMARY: 0 errors" && $summary != "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" ]]; then
      failures=$((failures + 1))
    fi
  done
done

if [[ $failures -ne 0 ]]; then
  echo "gpu_check: $failures check(s) failed; logs in $log_dir"
  exit 1
fi
echo "gpu_check: all checks passed; logs in $log_dir"
