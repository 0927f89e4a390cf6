#!/usr/bin/env bash
# check_cl_calls.sh SRC_DIR LAYER_SOURCE: fails if the library calls an OpenCL entry point that
# the fault layer does not list (FL_ENTRIES), since test_faults could not fail that call.
set -euo pipefail
src=$1 layer=$2
used=$(grep -ohE '\bcl[A-Z][A-Za-z]+' "$src"/*.c | sort -u)
listed=$(sed -n '/#define FL_ENTRIES/,/^$/p' "$layer" | grep -oE 'X\(cl[A-Za-z]+\)' | sed 's/X(\(.*\))/\1/' | sort -u)
missing=$(comm -23 <(echo "$used") <(echo "$listed"))
if [ -n "$missing" ]; then
  echo "OpenCL calls in $src that the fault layer cannot fail:"; echo "$missing"
  exit 1
fi
echo "every OpenCL call of the library ($(echo "$used" | wc -l) entry points) goes through the fault layer"
