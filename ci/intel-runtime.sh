#!/usr/bin/env bash
# Installs Intel's CPU runtime for OpenCL (PyPI: intel-opencl-rt, the runtime with device-side
# enqueue on x86 CPUs) into a virtual environment inside the build tree, and registers it with
# the ICD loader through a vendors folder of its own. Nothing is installed system-wide.
#   ci/intel-runtime.sh DIR   -> DIR/venv, DIR/vendors/intel.icd; prints DIR/venv/lib
set -euo pipefail
dir=${1:?usage: ci/intel-runtime.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
lib="$dir/venv/lib"
if [ ! -f "$lib/libintelocl.so" ]; then
  bash "$(dirname "$0")/venv.sh" "$dir/venv"
  # pinned: the versions CI was verified with (OpenCL 3.1, device enqueue, collectives)
  "$dir/venv/bin/pip" install -q --disable-pip-version-check intel-opencl-rt==2026.2.0 \
    intel-cmplr-lib-rt==2026.2.0 >&2
fi
test -f "$lib/libintelocl.so" || { echo "intel-runtime: $lib/libintelocl.so missing after install" >&2; exit 1; }
mkdir -p "$dir/vendors"
echo "$lib/libintelocl.so" > "$dir/vendors/intel.icd"
echo "$lib"
