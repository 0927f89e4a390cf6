#!/usr/bin/env bash
# Installs what clqsort needs to build and test on a fresh Debian/Ubuntu machine with no GPU:
# a C compiler, CMake, the OpenCL headers and ICD loader, pocl (OpenCL on the CPU), oclgrind, and
# clang with its runtimes (compile check of the OpenCL C 2.0 kernels; libFuzzer for the fuzz
# label). Intel's CPU runtime comes from ci/intel-runtime.sh.
# Packages already present are skipped; needs root (or sudo) only if something is missing.
set -euo pipefail
need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in gcc cmake make pkg-config clang libclang-rt-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd oclgrind clinfo; do
  have "$p" || need+=("$p")
done
if [ ${#need[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi
echo "install-deps: installing ${need[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
