#!/usr/bin/env bash
# vendor_kernels.sh: compiles AND links every OpenCL kernel, in every configuration the backend can choose, with AMD's and Intel's own compilers, and writes their resource table.
# Usage: tools/vendor_kernels.sh PATH/TO/cl_configurations [TABLE.md]   (as root: installs what it needs)
#        KERNEL_FILES="async.cl shuffle.cl" tools/vendor_kernels.sh ... TABLE.md: builds those kernels_cl/ files
#        only and puts their rows into TABLE.md and its .csv, keeping every other file's rows from the .csv
#        (the full run takes the better part of an hour on two cores; a new kernel file needs minutes).
#
# AMD: ROCm's OpenCL pipeline as its runtime runs it (ROCclr + comgr): clang -x cl with ROCm's device
# libraries (Debian's rocm-device-libs, built by LLVM 15, hence clang-15 and lld-15), -D__OPENCL_VERSION__
# from the device version, -O3, then ld.lld links the code object, where a helper left undefined fails
# ("undefined hidden symbol", docs/portability.md). Targets gfx1030 (RDNA2) and gfx90a (CDNA2).
# Intel: ocloc, the offline front of Intel's compute runtime (Debian's intel-opencl-icd), for tgllp (Xe-LP)
# and acm-g10 (Xe-HPG), in the zebin format, whose .ze_info carries each kernel's resources; tensor.cl's
# sub-group matrix products for acm-g10 (8 lanes) and pvc (Xe-HPC, 16 lanes), which have them.
# The configurations come from cl_configurations (the project's shape code, each pixel format included);
# every other kernels_cl/ file is built once per pixel format it reads (common/geometry/pixel.h: f32,
# and -DCC_PIXEL=CC_PIXEL_U8 / CC_PIXEL_U8X4 where the file uses cc_pixel). Exit 1 on any compile or
# link error, after building everything.
set -uo pipefail

configurations=${1:?usage: vendor_kernels.sh PATH/TO/cl_configurations [TABLE.md]}
table=${2:-}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

bash "$repo/tools/install-deps.sh" clang-15 lld-15 rocm-device-libs intel-opencl-icd llvm python3 >/dev/null ||
  { echo "vendor_kernels.sh: could not install the vendor compilers (tools/install-deps.sh)" >&2; exit 2; }
device_libs=$(dirname "$(dpkg -L rocm-device-libs | grep -m1 '/ocml\.bc$')")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/out"
# Each program as the backend builds it (backends/opencl/opencl_backend.cpp): common/geometry/conv_args.h,
# then common/geometry/pixel.h, then the kernel file.
for kernel in "$repo"/kernels_cl/*.cl; do
  cat "$repo/common/geometry/conv_args.h" "$repo/common/geometry/pixel.h" "$kernel" >"$work/src/$(basename "$kernel")"
done

# The jobs: one line per (kernel file, options, target).
{
  # CONFIGURATIONS_SHARE=N (CI): one in N of the shape code's configurations, picked by a hash of the
  # options and of HEAD's commit, so each commit builds a reproducible share and successive commits
  # others; every kernel file still builds for every pixel format and vendor below (the
  # stage was 18 of CI's 58 minutes). The full table comes from the command without it.
  share=${CONFIGURATIONS_SHARE:-1}
  salt=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo 0)
  "$configurations" | cut -f1,2 | while IFS=$'\t' read -r file options; do
    hash=$(printf '%s %s %s' "$salt" "$file" "$options" | cksum | cut -d' ' -f1)
    if ((hash % share == 0)); then printf '%s\t%s\n' "$file" "$options"; fi
  done
  for kernel in "$repo"/kernels_cl/*.cl; do
    name=$(basename "$kernel")
    "$configurations" | cut -f1 | grep -qx "$name" && continue
    # A kernel that shuffles between sub-group lanes takes the backend's -D for the extension
    # (backends/opencl/cl_devices.cpp): the Khronos one, which Intel's runtime offers.
    shuffle=""
    grep -q CC_SHUFFLE_KHR "$kernel" && shuffle="-DCC_SHUFFLE_KHR "
    printf '%s\t%s\n' "$name" "${shuffle% }"
    if grep -q cc_pixel "$kernel"; then
      printf '%s\t%s\n' "$name" "${shuffle}-DCC_PIXEL=CC_PIXEL_U8" "$name" "${shuffle}-DCC_PIXEL=CC_PIXEL_U8X4"
    fi
  done
} | while IFS=$'\t' read -r file options; do
  [[ -z ${KERNEL_FILES:-} || " $KERNEL_FILES " == *" $file "* ]] || continue
  # The 8-bit formats triple the configurations: they are built for one target of each vendor
  # (gfx1030, tgllp), whose pipelines are what a link error or a rejected construct depends on;
  # ALL_TARGETS=1 builds them for all four, for the full resource table.
  # SECOND_TARGETS_EVERY=N (CI): the second targets (gfx90a, acm-g10) take every float build of a file
  # without configurations but only every Nth configuration of fast.cl and separable.cl: the same
  # compilers and constructs as the first targets, at over a third of the stage's time (930
  # of 2330 CPU-seconds).
  per_file=$([[ $file == "${previous_file:-}" ]] && echo $((per_file + 1)) || echo 0)
  previous_file=$file
  targets=(gfx1030 gfx90a tgllp acm-g10)
  if [[ ${ALL_TARGETS:-0} != 1 ]]; then
    if [[ $options == *CC_PIXEL_U8* ]]; then
      targets=(gfx1030 tgllp)
    elif [[ -n ${SECOND_TARGETS_EVERY:-} && $options == *-D* ]] && ((per_file % SECOND_TARGETS_EVERY != 0)); then
      targets=(gfx1030 tgllp)
    fi
  fi
  # Sub-group shuffles: Intel's targets only. ROCm's clang declares no sub-group shuffle for amdgcn
  # (its opencl-c-base.h defines cl_khr_subgroup_shuffle for SPIR alone), and the backend skips the
  # variant on a device whose CL_DEVICE_EXTENSIONS lacks one.
  [[ $options == *CC_SHUFFLE_* ]] && targets=(tgllp $([[ ${#targets[@]} -eq 4 ]] && echo acm-g10))
  # tensor.cl comes in Intel's sub-group matrix configuration alone (cl_configurations; its other path is
  # inline PTX): for the devices whose DPAS takes its sub-group size, acm-g10 8 lanes and pvc 16, every
  # format. Not tgllp: Xe-LP has no DPAS, and its runtime does not list the extension (ocloc accepts the
  # call there all the same); not AMD, whose clang has no such built-in.
  [[ $options == *CC_TENSOR_INTEL=8* ]] && targets=(acm-g10)
  [[ $options == *CC_TENSOR_INTEL=16* ]] && targets=(pvc)
  for target in "${targets[@]}"; do printf '%s\t%s\t%s\n' "$file" "$options" "$target"; done
done | awk '{ printf "%05d\t%s\n", NR, $0 }' >"$work/jobs"

# build_one NUMBER FILE OPTIONS TARGET: one build; OUT/NUMBER.job names it, .notes / .zeinfo holds the
# resources, .log the compiler's output when it failed.
build_one() {
  local number=$1 file=$2 options=$3 target=$4 out=$work/out/$1
  printf '%s\t%s\t%s\n' "$file" "$options" "$target" >"$out.job"
  # shellcheck disable=SC2086  # the options are several words
  case $target in
    gfx*)
      clang-15 -x cl -cl-std=CL1.2 -target amdgcn-amd-amdhsa -mcpu="$target" -Xclang -finclude-default-header \
        --rocm-device-lib-path="$device_libs" -D__OPENCL_VERSION__=200 -D__IMAGE_SUPPORT__=1 -O3 $options \
        "$work/src/$file" -o "$out.co" >"$out.log" 2>&1 &&
        llvm-readobj --notes "$out.co" >"$out.notes" 2>>"$out.log" && rm -f "$out.co" ;;
    *)
      mkdir -p "$out.d" &&
        ocloc compile -q -file "$work/src/$file" -device "$target" --format zebin -options "-cl-std=CL1.2 $options" \
          -out_dir "$out.d" -output kernel >"$out.log" 2>&1 &&
        llvm-objcopy --dump-section .ze_info="$out.zeinfo" "$out.d"/kernel*.bin "$out.d/stripped" 2>>"$out.log" &&
        rm -rf "$out.d" ;;
  esac || { echo "FAIL  $file [$options] for $target:"; sed 's/^/      /' "$out.log" | head -n 20; return 1; }
}
export -f build_one
export work device_libs

jobs=$(wc -l <"$work/jobs")
echo "vendor compilers: $jobs builds ($(cut -f2,3 "$work/jobs" | sort -u | wc -l) configurations, each for 2 or 4 targets)" \
  "on $(nproc) cores"
start=$SECONDS
failures=0
tr '\t' '\n' <"$work/jobs" | tr '\n' '\0' | xargs -0 -n 4 -P "$(nproc)" bash -c 'build_one "$@"' _ || failures=1
built=$(find "$work/out" -name '*.notes' -o -name '*.zeinfo' | wc -l)
echo "vendor compilers: $built of $jobs builds compiled and linked in $((SECONDS - start)) s"
for target in gfx1030 gfx90a tgllp acm-g10 pvc; do
  count=0
  for job in "$work"/out/*.job; do
    stem=${job%.job}
    [[ $(cut -f3 "$job") == "$target" && ( -e $stem.notes || -e $stem.zeinfo ) ]] && count=$((count + 1))
  done
  echo "  $target: $count built"
done
if ((failures)) || ((built != jobs)); then
  echo "vendor compilers: FAILED"
  exit 1
fi
if [[ -n $table ]]; then
  keep=()
  [[ -n ${KERNEL_FILES:-} ]] && keep=(--keep "${table%.md}.csv")
  python3 "$repo/tools/vendor_resources.py" "${keep[@]}" "$work/out" >"$work/table.md" || exit 1
  mv "$work/table.md" "$table"
  cp "$work/out/vendor-resources.csv" "${table%.md}.csv"
  echo "vendor compilers: resource table written to $table and ${table%.md}.csv"
fi
