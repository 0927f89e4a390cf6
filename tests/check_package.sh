#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds tests/package/consumer.c against it
# twice, through the CMake package and through pkg-config; both programs must sort.
#   tests/check_package.sh BUILD_DIR C_COMPILER
set -euo pipefail
build=$1 cc=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$here/package" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$tmp/cmake" >/dev/null
"$tmp/cmake/consumer"
pc_dir=$(dirname "$(find "$tmp/prefix" -name clqsort.pc | head -1)")
# shellcheck disable=SC2046 # the flags are words
"$cc" "$here/package/consumer.c" -o "$tmp/consumer-pc" $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs clqsort)
"$tmp/consumer-pc"
