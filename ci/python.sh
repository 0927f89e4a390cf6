#!/usr/bin/env bash
# The Python package: installs it with the README's command into a virtual environment of the
# build tree (with PyOpenCL, pytest and hypothesis from the package index, pinned to the versions
# CI was verified with), then runs its tests on pocl.   ci/python.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
env=${1:-build}/pyenv
bash ci/venv.sh "$env"
"$env/bin/pip" install -q --disable-pip-version-check ./python pyopencl==2026.1.4 mako==1.4.3 numpy==2.4.6 \
  pytest==9.2.0 hypothesis==6.170.15
# PyOpenCL's wheel brings its own ICD loader (ocl-icd), the package's library links the system's:
# both read the same vendor registry and load the same pocl (README.md, "Python")
CLQSORT_VENDOR=${CLQSORT_VENDOR:-pocl} "$env/bin/pytest" -q python/tests
