#!/usr/bin/env bash
# memory_spaces.sh: every measurement docs/memory-spaces-evidence.md shows, in one command: both APIs' runs, Nsight Compute's counters and ptxas's resource bills.
#
#   bash tools/memory_spaces.sh CONVCOMPARE OUT_DIR           on the GPU host (CUDA, NVIDIA's OpenCL, ncu, cuobjdump)
#   bash tools/memory_spaces.sh --local CONVCOMPARE OUT_DIR   anywhere: the same steps on OpenCL device opencl:0:0
#                                                             at small sizes, no ncu (what CI and the tests run)
#   python3 tools/memory_spaces_tables.py OUT_DIR docs/memory-spaces-evidence.md   then rewrites the page's tables
#   bash tools/memory_spaces.sh --paths [--local] CONVCOMPARE OUT_DIR   only the memory paths, host memory modes
#       and lowrank (tools/memory_spaces_paths.sh: what it writes, and its time per step); then
#       python3 tools/perf_tables.py paths OUT_DIR docs/performance.md and the command above fill both pages
#
# OUT_DIR receives (memory_spaces_tables.py reads nothing else):
#   meta.txt           mode, sizes, radii, whether the binary has --cold, tool versions
#   warm.json          2048x2048 (--local: 128x128), radii 1,3,8,12, global..fast, f32 and u8 of 1 channel
#   warm-rgba.json     the same problems as RGBA8 (u8, 4 channels)
#   cold.json, cold-rgba.json   the same with --cold (L2 flushed between samples), when the binary has it
#   large.json         8192x8192 (--local: 256x256), radii 1,3,12, f32 and u8 of 1 channel
#   large-rgba.json    the same size as RGBA8 at radii 1,3
#   ncu/VARIANT-PIXEL-rR.csv   Nsight Compute's metrics (METRICS below) for the one timed launch of the CUDA
#                      kernel at 2048x2048, r = 3 and 12 (convcompare --repetitions 1 --warmup 0: launch 1 is
#                      the warm-up, launch 2 the timed one: --launch-skip 1 --launch-count 1)
#   ptxas/*.txt        `nvcc -cubin -arch=sm_90 -Xptxas -v` of each CUDA twin as convcompare builds it
#                      (offline kernels per pixel format; fast and separable with the -D options the runs
#                      used and those of the page's three-vendor table)
#   resource-usage.txt, sass.txt   `cuobjdump --dump-resource-usage` and `-sass` of the binary and of the
#                      fast/separable cubins (GPU host only: this machine's CUDA has no cuobjdump)
# Every step is bounded (timeout) so the whole stays near 9 minutes on an H100 host (8 min 50 s
# measured); a failed step is reported and the rest still run. Exit 1 when any step failed.
set -uo pipefail

mode=gpu paths=no
while [[ ${1:-} == --local || ${1:-} == --paths ]]; do
  [[ $1 == --local ]] && mode=local
  [[ $1 == --paths ]] && paths=yes
  shift
done
exe=${1:?usage: memory_spaces.sh [--paths] [--local] CONVCOMPARE OUT_DIR}
out=${2:?usage: memory_spaces.sh [--paths] [--local] CONVCOMPARE OUT_DIR}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ -x $exe ]] || { echo "memory_spaces.sh: $exe is not an executable" >&2; exit 2; }
# The lines every meta file ends with: the binary, the tree, the time, and the GPU host's tools.
tool_versions() {
  echo "convcompare=$("$exe" --version 2>&1 | head -1)"
  echo "git=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  command -v nvidia-smi >/dev/null &&
    echo "gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  command -v ncu >/dev/null && echo "ncu=$(ncu --version 2>/dev/null | tail -1)"
  command -v nvcc >/dev/null && echo "nvcc=$(nvcc --version 2>/dev/null | tail -1)"
  return 0
}

if [[ $paths == yes ]]; then
  # shellcheck source=tools/memory_spaces_paths.sh
  source "$repo/tools/memory_spaces_paths.sh"
  # shellcheck disable=SC2317  # reached: the sourced file returns its status
  exit $?
fi
mkdir -p "$out/ncu" "$out/ptxas"
status=0
step() { echo "== $(date -u +%H:%M:%S) $*"; }
failed() { echo "   FAILED: $*"; status=1; }

variants=global,constant,tiled,texture,separable,fast
radii=1,3,8,12
large_radii=1,3,12
large_rgba_radii=1,3
ncu_radii=(3 12)
ncu_variants=(global constant tiled texture separable fast)
filter=gaussian:sigma=3.2   # the seeds' sigma; --sweep sets each run's radius (gaussian:sigma=3.2,r=R)
if [[ $mode == gpu ]]; then
  size=2048x2048 large=8192x8192
  cl_device=$("$exe" --list | grep -E "^  opencl:[0-9]+:[0-9]+ .*NVIDIA" | head -1 | awk '{print $1}')
  # shellcheck disable=SC2054  # cuda,opencl is one argument, a comma list
  devices=(--backend cuda,opencl --device cuda:0)
  [[ -n $cl_device ]] && devices+=(--device "$cl_device")
  timing=(--repetitions 20 --warmup 3 --time-budget 0.25)
else
  size=128x128 large=256x256 cl_device=opencl:0:0
  devices=(--backend opencl --device "$cl_device")
  timing=(--repetitions 3 --warmup 1 --time-budget 0.05 --no-peaks)
fi
# Options that other work adds to the binary are detected, never assumed.
help=$("$exe" --help 2>&1)
cold=no; grep -q -- '--cold' <<<"$help" && cold=yes

{
  echo "mode=$mode"
  echo "size=$size"
  echo "large=$large"
  echo "radii=$radii"
  echo "large_radii=$large_radii"
  echo "large_rgba_radii=$large_rgba_radii"
  echo "ncu_radii=${ncu_radii[*]}"
  echo "filter=$filter"
  echo "cold=$cold"
  echo "devices=${devices[*]}"
  echo "timing=${timing[*]}"
  tool_versions
} >"$out/meta.txt"
cat "$out/meta.txt"

# run NAME TIMEOUT ARGS...: one convcompare invocation writing OUT/NAME.json (its console table in NAME.txt).
run() {
  local name=$1 limit=$2; shift 2
  step "$name: convcompare $*"
  timeout "$limit" "$exe" "${devices[@]}" --variant "$variants" --filter "$filter" "${timing[@]}" "$@" \
    --json "$out/$name.json" >"$out/$name.txt" 2>"$out/$name.err" || failed "$name (exit $?; $out/$name.err)"
}

# ptxas: the CUDA twins compiled as convcompare builds them (backends/cuda/backend.cmake: nvcc -arch=sm_90, --fmad=true,
# offline kernels once per pixel format; runtime_module.cpp: NVRTC with -std=c++17 --fmad=true and the
# plan's -D options), each with -Xptxas -v. CPU only: runs beside the GPU steps.
ptxas_one() {  # NAME FILE OPTIONS...
  local name=$1 file=$2; shift 2
  { echo "# nvcc -cubin -arch=sm_90 --fmad=true -std=c++17 $* kernels_cuda/$file"
    nvcc -cubin -arch=sm_90 --fmad=true -std=c++17 -I"$repo" "$@" -Xptxas -v "$repo/kernels_cuda/$file" \
      -o "$out/ptxas/$name.cubin" 2>&1; } >"$out/ptxas/$name.txt"
}
ptxas_all() {
  command -v nvcc >/dev/null || { echo "no nvcc: no ptxas table" >"$out/ptxas/none.txt"; return 0; }
  local format variant
  for format in F32 U8 U8X4; do
    for variant in global constant tiled texture; do
      ptxas_one "$variant-$format" "$variant.cu" -DCC_PIXEL=CC_PIXEL_$format &
    done
    wait
  done
  # fast and separable: the -D options of every run above and of the vendor table's configurations
  python3 "$repo/tools/memory_spaces_tables.py" --ptxas-jobs "$out" "$repo/docs/memory-spaces-vendors.csv" |
    while IFS=$'\t' read -r name file options; do
      # shellcheck disable=SC2086  # the options are several words
      ptxas_one "$name" "$file" $options
    done
  if command -v cuobjdump >/dev/null; then
    cuobjdump --dump-resource-usage "$exe" >"$out/resource-usage.txt" 2>&1
    { cuobjdump -sass "$exe"; for cubin in "$out"/ptxas/*.cubin; do echo "# file $(basename "$cubin")"; cuobjdump -sass "$cubin"; done; } \
      >"$out/sass.txt" 2>&1
  fi
  rm -f "$out"/ptxas/*.cubin
}

# --- the runs ------------------------------------------------------------------------------------------
run warm 240 --size "$size" --sweep radius=$radii --pixel f32,u8 --channels 1
run warm-rgba 180 --size "$size" --sweep radius=$radii --pixel u8 --channels 4
step "ptxas (background)"
ptxas_all >"$out/ptxas.log" 2>&1 &
ptxas_pid=$!
if [[ $cold == yes ]]; then
  run cold 240 --size "$size" --sweep radius=$radii --pixel f32,u8 --channels 1 --cold
  run cold-rgba 180 --size "$size" --sweep radius=3,12 --pixel u8 --channels 4 --cold
else
  step "cold: this convcompare has no --cold option; the page says so"
fi
run large 300 --size "$large" --sweep radius=$large_radii --pixel f32,u8 --channels 1
# RGBA8 at 8192^2 only where DRAM bounds: the CPU reference of four channels at r = 12 alone took minutes.
run large-rgba 240 --size "$large" --sweep radius=$large_rgba_radii --pixel u8 --channels 4

# --- Nsight Compute: the CUDA kernels' counters -----------------------------------------------------------
# Hopper (GH100) names. Each is checked against `ncu --query-metrics` first, so a name this ncu lacks is
# dropped (and listed in ncu/missing.txt) instead of failing the run.
METRICS=(
  gpu__time_duration.sum                                     # the profiled launch (caches flushed: cold)
  dram__bytes_read.sum dram__bytes_write.sum                 # DRAM traffic
  l1tex__t_sector_hit_rate.pct lts__t_sector_hit_rate.pct    # L1 and L2 hit rates
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum   # shared-memory bank conflicts, loads
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum   # and stores
  l1tex__data_pipe_lsu_wavefronts_mem_shared.sum             # shared-memory wavefronts (the conflicts' base)
  sm__inst_issued.avg.pct_of_peak_sustained_active           # issue-slot utilisation
  sm__warps_active.avg.pct_of_peak_sustained_active          # achieved occupancy
  sm__maximum_warps_per_active_cycle_pct                     # theoretical occupancy
  launch__registers_per_thread launch__shared_mem_per_block_dynamic launch__shared_mem_per_block_static
  launch__occupancy_limit_registers launch__occupancy_limit_shared_mem
  sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active  # FMA pipe use
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum             # global loads through L1 (sectors)
  l1tex__t_sectors_pipe_tex_mem_texture.sum                  # texture fetches (sectors)
  smsp__inst_executed_pipe_tex.sum                           # texture instructions
  smsp__inst_executed_op_ldc.sum                             # constant-bank loads (LDC)
  smsp__inst_executed_op_global_ld.sum smsp__inst_executed_op_shared_ld.sum
)
if [[ $mode == gpu ]] && command -v ncu >/dev/null; then
  step "ncu: which metrics this ncu knows"
  ncu --query-metrics >"$out/ncu/query.txt" 2>&1 || ncu --query-metrics --chip gh100 >"$out/ncu/query.txt" 2>&1
  known=()
  : >"$out/ncu/missing.txt"
  if (($(grep -c "__" "$out/ncu/query.txt") < 100)); then
    echo "   ncu --query-metrics listed no metrics (ncu/query.txt): asking for all of them unchecked"
    known=("${METRICS[@]}")
  else
    for metric in "${METRICS[@]}"; do
      base=${metric%%.*}
      if grep -qE "(^|[ \",])$base([ \",]|$)" "$out/ncu/query.txt" || [[ $base == launch__* ]]; then known+=("$metric")
      else echo "$metric" >>"$out/ncu/missing.txt"; fi
    done
  fi
  metrics=$(IFS=,; echo "${known[*]}")
  [[ -s $out/ncu/missing.txt ]] && { echo "   not in this ncu:"; sed 's/^/     /' "$out/ncu/missing.txt"; }
  # The brief's six, which every Hopper ncu has: what a profile falls back to when ncu refuses the list.
  core=dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct
  core+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  core+=,sm__inst_issued.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
  core+=,gpu__time_duration.sum,launch__registers_per_thread
  ncu_once() {  # NAME METRICS VARIANT PIXEL RADIUS
    timeout 90 ncu --clock-control none --kernel-name "regex:.*convolve_$3.*" --launch-skip 1 --launch-count 1 \
      --metrics "$2" --csv --page raw --print-units base --log-file "$out/ncu/$1.csv" \
      "$exe" --backend cuda --device cuda:0 --no-peaks --quiet --variant "$3" --pixel "$4" \
      --size "$size" --filter "$filter,r=$5" --repetitions 1 --warmup 0 --time-budget 0.01 >"$out/ncu/$1.out" 2>&1
  }
  profile() {  # VARIANT PIXEL RADIUS
    local name=$1-$2-r$3
    step "ncu $name"
    ncu_once "$name" "$metrics" "$@" && grep -q '^"[0-9]' "$out/ncu/$name.csv" && return 0
    echo "   ncu refused the full list ($out/ncu/$name.out, $name.csv): again with the core metrics"
    mv "$out/ncu/$name.csv" "$out/ncu/$name.refused.log" 2>/dev/null
    ncu_once "$name" "$core" "$@" || failed "ncu $name (exit $?; $out/ncu/$name.out)"
  }
  for radius in "${ncu_radii[@]}"; do
    for variant in "${ncu_variants[@]}"; do profile "$variant" f32 "$radius"; done
    # what the texture unit converts for free, and the tile at a quarter of the bytes
    profile texture u8 "$radius"
    profile tiled u8 "$radius"
  done
else
  step "ncu: skipped ($mode mode or no ncu on PATH): the profiler blocks will say not measured"
  echo "ncu not run: $mode mode" >"$out/ncu/none.txt"
fi

step "waiting for ptxas"
wait "$ptxas_pid" || failed "ptxas ($out/ptxas.log)"
step "done: python3 tools/memory_spaces_tables.py $out docs/memory-spaces-evidence.md"
exit $status
