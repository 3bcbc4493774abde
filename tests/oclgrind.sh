#!/usr/bin/env bash
# oclgrind.sh: every OpenCL variant under Oclgrind's checkers (data races, uninitialized values, API misuse).
# Usage: tests/oclgrind.sh PATH/TO/convcompare [PART/PARTS]   (ctest -L opencl runs it when oclgrind is installed)
# PART/PARTS (1/3, 2/3, 3/3) runs every PARTS-th check from the PART-th: ctest runs the parts side by side.
# `oclgrind PROGRAM` intercepts the OpenCL ICD, so the program sees only Oclgrind's simulated device.
# Exit 0 when every check is clean and every expected run validated; 1 otherwise.
set -uo pipefail

exe=${1:?usage: oclgrind.sh PATH/TO/convcompare [PART/PARTS]}
part=${2:-1/1}
[[ $part =~ ^([0-9]+)/([0-9]+)$ ]] && ((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= BASH_REMATCH[2])) ||
  { echo "oclgrind.sh: PART/PARTS must read like 2/3, not '$part'" >&2; exit 2; }
part_index=$((BASH_REMATCH[1] - 1)) parts=${BASH_REMATCH[2]}
numbered=0  # every check, this part's or not: the deal does not depend on which part runs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
checks=0
failures=0
# Whether the next check is this part's (and counts it).
mine() { numbered=$((numbered + 1)); (((numbered - 1) % parts == part_index)); }

# Oclgrind's log less its reports on VkFFT_main, the fft variant's generated transform kernel: it reads
# a whole sequence into local memory and writes it back in place with only a local-memory barrier
# between, which the race checker reports as global read-write races (harmless: every read of a
# work-group is done before any of its writes). fft.cl's own kernels get no such allowance.
log_findings() { awk 'BEGIN { RS = ""; ORS = "\n\n" } !(/data race/ && /Kernel: VkFFT_main/)' "$1"; }

# [size=WxH] check LABEL EXPECTED_OK [OCLGRIND OPTIONS...] -- [CONVCOMPARE OPTIONS...]
# Fails when Oclgrind logs anything, when anything on the output mentions an error, when convcompare
# exits non-zero, or when fewer than EXPECTED_OK opencl runs validated (proof the kernels really ran).
check() {
  local label=$1 expected=$2
  shift 2
  local grind=()
  while [[ $1 != -- ]]; do grind+=("$1"); shift; done
  shift
  mine || return 0
  checks=$((checks + 1))
  local started=$SECONDS
  local log=$work/$checks.log csv=$work/$checks.csv out=$work/$checks.out
  # No cap on the reports: VkFFT_main's must not crowd out any other.
  oclgrind --max-errors 100000000 "${grind[@]}" --log "$log" "$exe" --backend opencl --no-peaks --size "${size:-33x17}" \
    --repetitions 1 --warmup 0 --quiet --csv "$csv" "$@" >"$out" 2>&1
  local status=$?
  local ok
  # Columns by their header names: the CSV's order is the report's field table, not this script's.
  ok=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) column[$i] = i; next }
    $column["record"] == "run" && $column["backend"] == "opencl" && $column["status"] == "ok"' "$csv" 2>/dev/null | wc -l)
  if [[ $status -ne 0 || -n $(log_findings "$log" 2>/dev/null) || $ok -ne $expected ]] ||
    grep -qiE 'invalid|error|race|uninitiali[sz]ed|divergence' "$out"; then
    failures=$((failures + 1))
    echo "FAIL  $label: exit $status, $ok of $expected runs ok ($((SECONDS - started)) s)"
    echo "      oclgrind ${grind[*]} $exe --backend opencl $*"
    { log_findings "$log" | head -n 40; head -n 40 "$out"; } 2>/dev/null | sed 's/^/      /'
  else
    echo "ok    $label ($ok runs validated, $((SECONDS - started)) s)"
  fi
}

listing=$(oclgrind "$exe" --list 2>&1)
if ! grep -q 'Oclgrind Simulator' <<<"$listing"; then
  echo "FAIL  convcompare --list under oclgrind does not show the Oclgrind device"
  exit 1
fi
# The OpenCL variants whose trait braces match PATTERN, as a comma list, read from --list's variant
# lines ("NAME  memory space [backends] {pixels: f32, u8; input: buffer}", README's --list), so a new
# variant in common/domain/variants.h joins every check its traits allow with no edit here. Oclgrind
# 21.10's device has no sub-group extension (its CL_DEVICE_EXTENSIONS), so a variant that needs
# sub-group shuffles would only be skipped: left out while --list's device says "sub-group shuffle: none".
# A variant that needs tensor cores (inline PTX, NVIDIA's OpenCL only) is always left out.
variants() {
  local shuffles=1
  grep -q 'sub-group shuffle: none' <<<"$listing" && shuffles=0
  awk -v want="$1" -v shuffles=$shuffles '/^Variants/ { on = 1; next } on && /^$/ { exit }
    on && match($0, /\[[^][]*\] \{[^{}]*\}$/) {
      tail = substr($0, RSTART)
      if (tail ~ /^\[[^]]*opencl/ && tail ~ want && (shuffles || tail !~ /sub-group shuffles/) && tail !~ /tensor cores/) print $1 }' <<<"$listing" | paste -sd, -
}
count() { local IFS=,; local -a names=($1); echo ${#names[@]}; }
all=$(variants '')
# Oclgrind's --uninitialized pass cannot check reads through an image (below): the buffer-read variants.
buffer_read=$(variants 'input: buffer')
u8=$(variants 'pixels: [^;]*u8')
u8_buffer_read=$(variants 'pixels: [^;]*u8[^;]*; input: buffer')
if [[ -z $all || -z $buffer_read || -z $u8 || -z $u8_buffer_read ]]; then
  echo "FAIL  no OpenCL variants (or none with 8-bit kernels or buffer input) in convcompare --list"
  exit 1
fi

# Two passes per setting, because of two limits of Oclgrind 21.10's --uninitialized plugin:
#  - it stops with "Unsupported instruction: freeze" on the optimizer's div/rem pairs (the tile loads'
#    i / tile_width, i % tile_width in tiled.cl and fast.cl), so that pass builds with -cl-opt-disable;
#  - it marks every read_imagef result uninitialized (its image shadows are approximate), so the
#    variants with image input (texture) are left out of that pass and checked for races and API misuse only.
# Uninitialized values for two borders, zero (reads outside the image skipped) and mirror (every read
# folded inside): clamp and wrap fold the same reads to other places, which validation checks on every
# runtime; the pass costs 20 s a border against the race pass's 5 (CI's budget, README).
uninitialized=(--uninitialized --build-options -cl-opt-disable)
for border in zero clamp mirror wrap; do
  check "races, API, $border border" "$(count "$all")" --data-races --check-api -- --variant "$all" --filter box:r=2 --border $border
done
for border in zero mirror; do
  check "uninitialized values, $border border" "$(count "$buffer_read")" "${uninitialized[@]}" -- \
    --variant "$buffer_read" --filter box:r=2 --border $border
done
check "races, API, 3 channels" "$(count "$all")" --data-races --check-api -- --variant "$all" --filter box:r=2 --border mirror --channels 3
check "uninitialized values, 3 channels" "$(count "$buffer_read")" "${uninitialized[@]}" -- \
  --variant "$buffer_read" --filter box:r=2 --border wrap --channels 3
# 8-bit pixels (--pixel u8): one channel, and RGBA8 with 3 channels padded to 4, through the variants
# with 8-bit kernels (fast at r = 2: its quads, 4-byte and 16-byte loads); texture again only for races
# and API misuse.
check "races, API, u8, 1 channel" "$(count "$u8")" --data-races --check-api -- --variant "$u8" --pixel u8 --filter box:r=2 --border clamp
check "races, API, u8 RGBA8 (3 channels padded)" "$(count "$u8")" --data-races --check-api -- \
  --variant "$u8" --pixel u8 --channels 3 --filter box:r=2 --border mirror
check "uninitialized values, u8, 1 channel" "$(count "$u8_buffer_read")" "${uninitialized[@]}" -- \
  --variant "$u8_buffer_read" --pixel u8 --filter box:r=2 --border zero
check "uninitialized values, u8 RGBA8 (3 channels padded)" "$(count "$u8_buffer_read")" "${uninitialized[@]}" -- \
  --variant "$u8_buffer_read" --pixel u8 --channels 3 --filter box:r=2 --border wrap
# u8 fast's on-chip schemes, which stage one channel at a time as float (RGBA8: four rounds through
# one tile, a barrier between): rows of 4 (r = 8), rows of 2 (r = 20), and columns (r = 32 in 32 KB
# with 64-item groups, where no rows tile fits); separable in one band and in bands beside them.
# Races and API misuse only: --uninitialized with -cl-opt-disable takes over ten minutes and 9 GB for
# RGBA8 at r = 20, more than CI's budget; the r = 2 cases above check reads of unwritten values for
# 8-bit, and the float cases the shared tile code (one staging path for both).
for radius in 8 20; do
  check "races, API, u8 RGBA8 fast and separable, r=$radius" 2 --data-races --check-api -- \
    --variant separable,fast --pixel u8 --channels 4 --filter box:r=$radius --border wrap
done
# (one channel: the columns scheme's RGBA8 is skipped for now, backends/launch_plan.cpp)
size=40x12 check "races, API, u8 fast columns (32 KB, 64-item groups, r=32), 1 channel" 1 --data-races \
  --check-api --local-mem-size 32768 --max-wgsize 64 -- --variant fast --pixel u8 --filter box:r=32 --border clamp
# A tiny device: 64 work-items per group and 2 KB of local memory push the tiled variant down to a
# 4x4 tile (radius 8 needs 20x20 floats) and every other variant to 8x8 work-groups; fast, whose
# smallest tile at radius 8 needs 4.5 KB, and separable and lowrank (separable's tile, widened), whose
# smallest needs 12 KB, are skipped there (the expected count: every variant less those three).
check "races, API, 2 KB local memory, 64-item work-groups" "$(($(count "$all") - 3))" --data-races --check-api --local-mem-size 2048 \
  --max-wgsize 64 -- --variant "$all" --filter box:r=8 --border wrap
# A small device (docs/portability.md): 64 work-items and 32 KB, where fast and separable take their
# 64-item shapes (common/geometry/fast_shape.h, separable_shape.h) and every variant runs. At r = 20 only
# the variants whose shapes the limits change (a minute of simulation for the 41 x 41 taps of the others).
for radius in 2 8; do
  check "races, API, 32 KB local memory, 64-item work-groups, r=$radius" "$(count "$all")" --data-races --check-api \
    --local-mem-size 32768 --max-wgsize 64 -- --variant "$all" --filter box:r=$radius --border mirror
done
check "races, API, 32 KB local memory, 64-item work-groups, r=20" 3 --data-races --check-api \
  --local-mem-size 32768 --max-wgsize 64 -- --variant tiled,separable,fast --filter box:r=20 --border mirror
# fft's padded path (an odd width keeps it off the unpadded one) with rows of 630 reals (315 complex
# numbers), more than 2 KB of local memory holds: VkFFT transforms them in two passes through the
# temporary buffer the convolver brings.
size=601x20 check "fft, two-pass transforms: races, API" 1 --data-races --check-api --local-mem-size 2048 -- \
  --variant fft --filter box:r=3 --border mirror
size=601x20 check "fft, two-pass transforms: uninitialized values" 1 "${uninitialized[@]}" --local-mem-size 2048 -- \
  --variant fft --filter box:r=3 --border mirror
# fft's unpadded path (an even, smooth image: out of place from the input plane, edge bands redone
# directly), in one pass and in two. Races and API only: VkFFT's kernels for a separate input buffer
# store never-loaded registers of their idle work-items to local memory, which --uninitialized reports
# (and carries on into the convolution's product) although the results do not depend on them: prefilling every
# buffer with NaN changes nothing, and every border validates.
size=40x30 check "fft unpadded, edge bands: races, API" 1 --data-races --check-api -- \
  --variant fft --filter box:r=3 --border mirror --channels 2
size=640x20 check "fft unpadded, two-pass transforms: races, API" 1 --data-races --check-api --local-mem-size 2048 -- \
  --variant fft --filter box:r=3 --border zero

# The checker itself: tiled.cl without its barrier must be reported as a data race.
if mine; then
  checks=$((checks + 1))
  kernels=$work/kernels
  cp -r "$(dirname "${BASH_SOURCE[0]}")/../kernels_cl" "$kernels"
  sed -i '/^ *barrier(CLK_LOCAL_MEM_FENCE);/d' "$kernels/tiled.cl"
  oclgrind --data-races --log "$work/race.log" "$exe" --backend opencl --no-peaks --variant tiled --size 33x17 --filter box:r=2 \
    --repetitions 1 --warmup 0 --quiet --kernel-dir "$kernels" >/dev/null 2>&1
  if grep -q 'barrier(CLK_LOCAL_MEM_FENCE)' "$kernels/tiled.cl" || ! grep -q 'data race' "$work/race.log"; then
    failures=$((failures + 1))
    echo "FAIL  tiled.cl without its barrier was not reported as a data race"
  else
    echo "ok    tiled.cl without its barrier is reported as a data race (the checker works)"
  fi
fi

echo "oclgrind $part: $((checks - failures)) of $checks checks passed"
[[ $failures -eq 0 ]]
