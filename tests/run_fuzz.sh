#!/usr/bin/env bash
# run_fuzz.sh FUZZER CORPUS RUNS [libFuzzer options...]: runs RUNS inputs of the libFuzzer target,
# mutated from the seed corpus with a fixed seed. New inputs go to a temporary folder, so the
# committed corpus stays as it is.
set -euo pipefail
fuzzer=$1 corpus=$2 runs=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$fuzzer" -runs="$runs" -seed=1 -max_len=4200 -timeout=120 -print_final_stats=1 "$@" "$work" "$corpus"
