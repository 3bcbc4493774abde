# memory_spaces_paths.sh: `memory_spaces.sh --paths`: the runs, profiles and listings behind the memory paths.
# Sourced by tools/memory_spaces.sh (which sets exe, out, repo and mode=gpu|local); not run on its own.
# shellcheck disable=SC2154  # exe, out, repo, mode: memory_spaces.sh's
#
#   bash tools/memory_spaces.sh --paths build-gpu/convcompare OUT            GPU host: CUDA + NVIDIA's OpenCL
#   bash tools/memory_spaces.sh --paths --local build/convcompare OUT        anywhere: opencl:0:0, small sizes
#   python3 tools/perf_tables.py paths OUT docs/performance.md               the tables of docs/performance.md
#   python3 tools/memory_spaces_tables.py OUT docs/memory-spaces-evidence.md          the path blocks of that page
#
# Each step writes its files as it ends, so a run cut by a timeout keeps every step before the cut; the
# steps run in the order of what the issues need most. The whole is held to PATHS_BUDGET_S seconds (default
# 330, for a 6-minute slot on the H100 host): each step's timeout is the smaller of its own (below; the
# expected time on the H100's 16 cores is about half of it, the CPU reference of 8192^2 at r = 32 alone
# some 10 s) and what is left, and a step with under 10 s left is skipped and reported. PATHS_STEPS (a comma
# list of the names below: host-frame, host-memory, paths-2048, paths-8192-f32, ncu, probes, lowrank-8192,
# paths-8192-u8) runs only those, for a second slot that finishes what a first one's budget cut.
#   paths-meta.txt          the mode, sizes, radii, variants, devices, tool versions
#   host-frame.json   45 s  seed 000's job: 2048x2048 3-channel u8 and f32, 3x3 (box:r=1), fast, tiled
#                           and global, --memory pinned,pageable,mapped,managed, one frame host to host, and
#                           --stream 30 (the per-frame PCIe floor, max(h2d, d2h), measured alone on slot 0);
#                           its own time budget (1.5 s a run) so the host-to-host phase is never cut
#   host-memory.json  45 s  docs/memory-spaces.md's mapped / managed sections' runs: 2048x2048 f32, r = 1, 3, 12
#   paths-2048.json   90 s  every memory path: 2048x2048, r = 1,2,3,7,13,16,32, f32 and u8 (1 channel): tiled,
#                           fast, async, shuffle, cluster (and tma where --list has it), both APIs
#   paths-8192-f32.json 150 s the same at 8192x8192, f32 (70 runs with tma: 90 s cuts the last)
#   ncu/paths-r3.csv, ncu/paths-r16.csv   60 s each: Nsight Compute on every path's CUDA kernel, 8192x8192
#                           f32 r = 3 and 16: DRAM and L2 bytes, occupancy, stall reasons (WarpStateStats),
#                           L1 and shared wavefronts
#   peaks.txt               tools/probes/bandwidth_probe.cu: L2, L1 and shared-memory read peaks (5 s)
#   ptx/VARIANT-r3.ptx      NVIDIA OpenCL's program binary (PTX) of async, tiled and shuffle as paths-2048
#                           built them (tools/probes/cl_program_binary.cpp); --local: PoCL's binary, not PTX
#   lowrank-8192.json 240 s LoG and DoG at the sigma giving r = 7, 13, 16, 32 (radius = ceil(4 sigma),
#                           common/domain/filter.cpp), 8192x8192 f32, clamp border (NPP's): lowrank, tiled,
#                           fast, fft, global, npp
#   paths-8192-u8.json 240 s every memory path at 8192x8192, u8 (70 runs: 150 s cuts it at 56)
#   sass-paths.txt          cuobjdump -sass of the binary's offline kernels and of fast's NVRTC source built
#                           by nvcc at r = 3 and 16 (CPU only, beside the runs from the start)
# Exit 1 when any step failed (the others still ran).

paths_status=0
paths_budget=${PATHS_BUDGET_S:-330}
paths_start=$SECONDS
pstep() { echo "== $(date -u +%H:%M:%S) $*"; }
pfailed() { echo "   FAILED: $*"; paths_status=1; }
# budget LIMIT: the seconds a step may take, LIMIT or what is left of PATHS_BUDGET_S; 0 when under 10 are left.
wanted() { [[ -z ${PATHS_STEPS:-} || ,$PATHS_STEPS, == *,$1,* ]]; }
budget() {
  local left=$((paths_budget - (SECONDS - paths_start)))
  ((left < 10)) && { echo 0; return; }
  echo $((left < $1 ? left : $1))
}
mkdir -p "$out/ncu" "$out/ptx"
listed=$("$exe" --list 2>&1)
# The variants of LIST that `--list` shows for BACKEND (tma appears once it exists; cluster is CUDA's only).
offered() {  # BACKEND LIST
  local backend=$1 variant found=()
  for variant in ${2//,/ }; do
    grep -qE "^  $variant +.*\[[^]]*$backend" <<<"$listed" && found+=("$variant")
  done
  (IFS=,; echo "${found[*]}")
}
filter=gaussian:sigma=3.2  # the page's filter; --sweep gives each run its radius
if [[ $mode == gpu ]]; then
  size=2048x2048 large=8192x8192 radii=1,2,3,7,13,16,32 memory_radii=1,3,12 log_radii=(7 13 16 32)
  cl_device=$(grep -E "^  opencl:[0-9]+:[0-9]+ .*NVIDIA" <<<"$listed" | head -1 | awk '{print $1}')
  # shellcheck disable=SC2054  # cuda,opencl is one argument, a comma list
  devices=(--backend cuda,opencl --device cuda:0)
  [[ -n $cl_device ]] && devices+=(--device "$cl_device")
  path_variants=$(offered cuda tiled,fast,async,shuffle,cluster,tma)
  lowrank_variants=lowrank,tiled,fast,fft,global,npp
  # Enough samples for a median at small radii, the budget a cap where one launch takes 75 ms (tiled, r = 32);
  # no peaks: no table here reads "% of bound", and measuring them costs each process seconds per device.
  timing=(--repetitions 10 --warmup 1 --time-budget 0.25 --no-peaks)
  # One frame host to host is the figure the host memory modes are judged by (docs/performance.md): a budget
  # that the samples of a mapped global kernel (every tap over the host link) cannot spend
  # before the host-to-host phase.
  frame_timing="--repetitions 5 --warmup 1 --time-budget 1.5 --no-peaks"
  host_memory=pinned,pageable,mapped,managed
else
  size=64x64 large=96x96 radii=1,3,16 memory_radii=1,3 log_radii=(7 16)
  cl_device=opencl:0:0
  devices=(--backend opencl --device "$cl_device")
  path_variants=$(offered opencl tiled,fast,async,shuffle,cluster,tma)
  lowrank_variants=$(offered opencl lowrank,tiled,fast,fft,global,npp)
  timing=(--repetitions 3 --warmup 1 --time-budget 0.05 --no-peaks)
  frame_timing="--repetitions 3 --warmup 1 --time-budget 0.2 --no-peaks"
  # PoCL offers no SVM on every build: managed is then skipped with the reason, which the table shows.
  host_memory=pinned,pageable,mapped,managed
fi
# LoG and DoG at the sigma whose natural radius, ceil(4 sigma), is r; DoG's sigma1 = sigma2 / 1.6, the
# ratio that makes DoG approximate LoG (Marr and Hildreth).
log_filters=()
for r in "${log_radii[@]}"; do
  sigma=$(python3 -c "print($r / 4)")
  log_filters+=(--filter "log:sigma=$sigma" --filter "dog:sigma1=$(python3 -c "print($r / 4 / 1.6)"),sigma2=$sigma")
done

{
  echo "mode=$mode"
  echo "size=$size"
  echo "large=$large"
  echo "radii=$radii"
  echo "memory_radii=$memory_radii"
  echo "log_radii=${log_radii[*]}"
  echo "filter=$filter"
  echo "variants=$path_variants"
  echo "devices=${devices[*]}"
  echo "timing=${timing[*]}"
  tool_versions
} >"$out/paths-meta.txt"
cat "$out/paths-meta.txt"

prun() {  # NAME TIMEOUT [--timing "OPTIONS"] ARGS...: one convcompare run writing OUT/NAME.json (console: NAME.txt)
  local name=$1 limit; limit=$(budget "$2"); shift 2
  local timing_now=("${timing[@]}")
  if [[ ${1:-} == --timing ]]; then read -ra timing_now <<<"$2"; shift 2; fi
  wanted "$name" || return 0
  ((limit)) || { pfailed "$name: skipped, the PATHS_BUDGET_S of $paths_budget s is spent"; return; }
  pstep "$name ($limit s at most): convcompare $*"
  timeout "$limit" "$exe" "${devices[@]}" "${timing_now[@]}" "$@" --json "$out/$name.json" \
    >"$out/$name.txt" 2>"$out/$name.err" || pfailed "$name (exit $?; $out/$name.err)"
}

# CPU-only listings beside the GPU steps: the probes' builds and the SASS of every path kernel.
listings() {
  if command -v nvcc >/dev/null && [[ $mode == gpu ]]; then
    timeout 120 nvcc -O3 -arch=sm_90 "$repo/tools/probes/bandwidth_probe.cu" -o "$out/bandwidth_probe" \
      >"$out/bandwidth_probe.log" 2>&1
  fi
  # The OpenCL headers and library the build found (on the GPU host: .gpu's sysroot), else the system's.
  local cache cl_include cl_library
  cache="$(dirname "$exe")/CMakeCache.txt"
  cl_include=$(sed -n 's/^OpenCL_INCLUDE_DIR:PATH=//p' "$cache" 2>/dev/null)
  cl_library=$(sed -n 's/^OpenCL_LIBRARY:FILEPATH=//p' "$cache" 2>/dev/null)
  timeout 120 c++ -std=c++17 -O1 ${cl_include:+-I"$cl_include"} "$repo/tools/probes/cl_program_binary.cpp" "${cl_library:--lOpenCL}" \
    -o "$out/cl_program_binary" >"$out/cl_program_binary.log" 2>&1
  command -v cuobjdump >/dev/null || { echo "no cuobjdump: no SASS listing" >"$out/sass-paths.txt"; return 0; }
  # Only the path kernels and what they are measured against: the binary holds every offline kernel.
  only_paths() { awk '/Function : /{keep = ($0 ~ /convolve_(tiled|fast|async|shuffle|cluster|tma)/)} keep'; }
  { timeout 120 cuobjdump -sass "$exe" | only_paths
    # fast is built by NVRTC at run time: its SASS is nvcc's of the same source and -D options (the shapes of
    # fast_shape.h at r = 3, quads, and r = 16, rows: the runs' compile_time says the same).
    local options
    for options in "-DRADIUS_X=3 -DRADIUS_Y=3 -DBLOCK_X=32 -DBLOCK_Y=8 -DOUT_X=4 -DOUT_Y=4" \
                   "-DRADIUS_X=16 -DRADIUS_Y=16 -DBLOCK_X=8 -DBLOCK_Y=16 -DOUT_X=8 -DOUT_Y=4"; do
      # shellcheck disable=SC2086  # the options are several words
      timeout 120 nvcc -cubin -arch=sm_90 --fmad=true -std=c++17 -I"$repo" $options "$repo/kernels_cuda/fast.cu" \
        -o "$out/fast-paths.cubin" && echo "# file fast $options" &&
        timeout 60 cuobjdump -sass "$out/fast-paths.cubin" | only_paths
    done
    rm -f "$out/fast-paths.cubin"; } >"$out/sass-paths.txt" 2>&1
}
pstep "listings (background): probes' builds, cuobjdump -sass"
listings >"$out/listings.log" 2>&1 &
listings_pid=$!

# --- seed 000's job, one frame host to host, in every host-memory mode ---------------------------------
prun host-frame 45 --timing "$frame_timing" --size "$size" --channels 3 --pixel u8,f32 --filter box:r=1 --border clamp \
  --variant "$(offered "${devices[1]%%,*}" fast,tiled,global)" --memory "$host_memory" --stream 30
# --- docs/memory-spaces.md's mapped and managed sections' runs --------------------------------------------------------------
prun host-memory 45 --timing "$frame_timing" --size "$size" --pixel f32 --filter "$filter" --sweep radius=$memory_radii \
  --variant "$(offered "${devices[1]%%,*}" global,tiled,separable,fast)" --memory pinned,mapped,managed
# --- every memory path beside tiled and fast --------------------------------------------------------------
prun paths-2048 90 --size "$size" --pixel f32,u8 --channels 1 --filter "$filter" --sweep radius=$radii \
  --variant "$path_variants"
# --- every memory path at 8192^2, one file per pixel type so a cut keeps f32 ---------------------------------------------
prun paths-8192-f32 150 --size "$large" --pixel f32 --channels 1 --filter "$filter" --sweep radius=$radii \
  --variant "$path_variants"

# --- Nsight Compute on every path's CUDA kernel ---------------------------------------------------------------
# One process per radius profiles each kernel's launches (the warm-up and the timed one: ncu flushes the caches
# before each, so they are alike; the tables take the first). A metric this ncu does not know fails the
# whole list, so the second try leaves out the two an older ncu may lack (L2 bytes,
# L1 wavefronts) and the third keeps the four basic ones (PATH_CORE); WarpStateStats (the stalls) stays in each.
PATH_KNOWN=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
PATH_KNOWN+=,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct
PATH_KNOWN+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,launch__registers_per_thread
PATH_KNOWN+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
PATH_KNOWN+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
PATH_METRICS=$PATH_KNOWN,lts__t_bytes.sum,l1tex__data_pipe_lsu_wavefronts.sum
PATH_CORE=gpu__time_duration.sum,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active
PATH_CORE+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
cuda_paths=$path_variants
if ! wanted ncu; then
  :
elif [[ $mode == gpu ]] && command -v ncu >/dev/null; then
  for radius in 3 16; do
    name=paths-r$radius
    for metrics in "$PATH_METRICS" "$PATH_KNOWN" "$PATH_CORE"; do
      limit=$(budget 60)
      ((limit)) || break
      pstep "ncu $name ($limit s at most; $metrics)"
      timeout "$limit" ncu --clock-control none --kernel-name "regex:.*convolve_(${cuda_paths//,/|}).*" --launch-count 24 \
        --section WarpStateStats --metrics "$metrics" --csv --page raw --print-units base \
        --log-file "$out/ncu/$name.csv" "$exe" --backend cuda --device cuda:0 --no-peaks --quiet \
        --variant "$cuda_paths" --pixel f32 --size "$large" --filter "$filter,r=$radius" --repetitions 1 --warmup 0 \
        --time-budget 0.01 >"$out/ncu/$name.out" 2>&1
      grep -q '^"[0-9]' "$out/ncu/$name.csv" 2>/dev/null && break
      echo "   ncu gave no rows ($out/ncu/$name.out)"
      mv "$out/ncu/$name.csv" "$out/ncu/$name.refused.log" 2>/dev/null
    done
    grep -q '^"[0-9]' "$out/ncu/$name.csv" 2>/dev/null || pfailed "ncu $name (or the budget was spent)"
  done
else
  echo "ncu not run: $mode mode or no ncu" >"$out/ncu/paths-none.txt"
fi

# --- the listings that need the GPU or the runs above: the probes ------------------------------------------
pstep "waiting for the listings"
wait "$listings_pid" || pfailed "listings ($out/listings.log)"
if [[ -x $out/bandwidth_probe ]] && wanted probes && (($(budget 30))); then
  pstep "bandwidth probe: L2, L1, shared"
  timeout "$(budget 30)" "$out/bandwidth_probe" >"$out/peaks.txt" 2>&1 || pfailed "bandwidth probe ($out/peaks.txt)"
fi
# What the OpenCL driver made of async_work_group_copy, beside tiled's own loads and shuffle: the program
# binary of the run's own build (its options from paths-2048.json's compile_time), at r = 3, f32.
if [[ -x $out/cl_program_binary && -f $out/paths-2048.json ]] && wanted probes; then
  platform=${cl_device#opencl:} platform_device=${platform#*:} platform=${platform%%:*}
  for variant in async tiled shuffle; do
    options=$(python3 "$repo/tools/memory_spaces_paths.py" --options "$out/paths-2048.json" "$variant" 3)
    if [[ -z $options ]] || ! (($(budget 60))); then continue; fi
    pstep "OpenCL program binary: $variant ($options)"
    timeout "$(budget 60)" "$out/cl_program_binary" "$platform" "$platform_device" "$options" "$out/ptx/$variant-r3.ptx" \
      "$repo/common/geometry/conv_args.h" "$repo/common/geometry/pixel.h" "$repo/kernels_cl/$variant.cl" \
      >>"$out/ptx/build.log" 2>&1 || pfailed "program binary of $variant ($out/ptx/build.log)"
  done
fi

# --- LoG and DoG, lowrank against today's variants and NPP ------------------------------------------------
prun lowrank-8192 240 --size "$large" --pixel f32 --border clamp "${log_filters[@]}" --variant "$lowrank_variants"

prun paths-8192-u8 240 --size "$large" --pixel u8 --channels 1 --filter "$filter" --sweep radius=$radii \
  --variant "$path_variants"

rm -f "$out/bandwidth_probe" "$out/cl_program_binary"
pstep "done: python3 tools/perf_tables.py paths $out docs/performance.md; python3 tools/memory_spaces_tables.py $out docs/memory-spaces-evidence.md"
return "$paths_status"
