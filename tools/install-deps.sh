#!/usr/bin/env bash
# install-deps.sh: installs convcompare's build and test dependencies from Debian 12's packages (as root).
# With package names as arguments it installs those instead (tools/vendor_kernels.sh's compilers).
# Installs only what is missing, so it is quick to re-run. CUDA is optional: where the toolkit is
# installed (nvcc on PATH or in /usr/local/cuda/bin) the CUDA backend is built too.
set -euo pipefail
packages=(cmake g++ make pkg-config
          ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd oclgrind clinfo
          mesa-opencl-icd  # Rusticl: a second OpenCL runtime on the CPU (RUSTICL_ENABLE=llvmpipe), docs/portability.md
          libcairo2-dev help2man  # --plot drawn by cairo (PNG, SVG, PDF); the man page from --help
          libstb-dev libspng-dev libturbojpeg0-dev doctest-dev libcli11-dev libfmt-dev nlohmann-json3-dev libvkfft-dev
          clang libclang-rt-14-dev llvm)  # fuzzing: clang, libFuzzer + sanitizer runtimes, llvm-symbolizer
(($#)) && packages=("$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
