#!/usr/bin/env bash
# Makes a Python virtual environment at DIR unless one is there (Debian's system Python keeps venv
# in a package of its own, installed if missing).   ci/venv.sh DIR
set -euo pipefail
dir=${1:?usage: ci/venv.sh DIR}
[ -x "$dir/bin/pip" ] && exit 0
if ! python3 -m venv "$dir" >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
  python3 -m venv "$dir"
fi
