#!/usr/bin/env bash
# The test command: installs dependencies, builds, and runs the test suite with ctest on pocl
# (CPU OpenCL) and under oclgrind. Long sweeps carry the ctest label "large" and are left out
# here; run them with: ctest --test-dir build -L large
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
bash ci/build.sh
clinfo -l || true
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -LE large
