#!/usr/bin/env bash
# The main job: installs dependencies, builds, then sorts and verifies 2048 x 2048 random uint32
# keys on the default OpenCL device (the first GPU, else pocl on the CPU), 5 times, beside qsort.
# Extra arguments go to clqsort-bench (see: build/clqsort-bench --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
bash ci/build.sh
"${BUILD_DIR:-build}/clqsort-bench" 5 2048 2048 show_CL "$@"
