#!/usr/bin/env bash
# The test command: installs dependencies (Debian packages, and Intel's CPU runtime for OpenCL
# into the build tree), builds, and runs the test suite with ctest: on pocl (host loop), under
# oclgrind, and on Intel's runtime through the device-enqueue path and the host loop, plus a
# clang compile check of the OpenCL C 2.0 kernels; then installs the Python package into a
# virtual environment and runs its tests on pocl (ci/python.sh). Long sweeps carry the ctest label
# "large" and are left out here; run them with: ctest --test-dir build -L large
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
bash ci/install-deps.sh
intel_lib=$(bash ci/intel-runtime.sh "$build/intel-rt")
bash ci/build.sh -DCLQSORT_INTEL_RT_LIB="$intel_lib"
clinfo -l || true
OCL_ICD_VENDORS="$build/intel-rt/vendors" clinfo -l || true
# two tests at a time: most are single-threaded on the host for much of their run (reference
# sorts, oclgrind, sanitizers), and serially the suite took 37 minutes on 2 cores (2026-11-24)
ctest --test-dir "$build" --output-on-failure -LE large -j "$(nproc)"
bash ci/python.sh "$build"
