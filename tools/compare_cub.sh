#!/usr/bin/env bash
# clqsort beside CUB's DeviceRadixSort on one GPU, in one call: the cases of the performance
# targets (uint32 sizes, other key types and pairs at 2^26, every distribution at 2^24 and 2^26),
# each measured by clqsort-bench and then by clqsort-peer-cub on the same input, appended to one
# CSV, then the ratios (tools/compare_peers.sh). Both programs verify every run.
#   tools/compare_cub.sh BUILD_DIR OUT.csv [RUNS] [sizes|types|dists|all]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR OUT.csv [RUNS] [sizes|types|dists|all]" >&2; exit 2; }
build=$1 csv=$2 runs=${3:-9} what=${4:-all}
both() { # ARGS...: the same case through both programs
  "$build/clqsort-bench" --no-qsort --runs "$runs" --csv "$csv" "$@" 2>/dev/null | grep '^n='
  "$build/clqsort-peer-cub" --runs "$runs" --csv "$csv" "$@" | grep '^n='
}
if [ "$what" = sizes ] || [ "$what" = all ]; then
  both --n 2^16,2^20,2^24,2^26,2^28
fi
if [ "$what" = types ] || [ "$what" = all ]; then
  for t in float uint64 double; do both --n 2^26 --type "$t"; done
  both --n 2^26 --values 4
  both --n 2^26 --values 8
fi
if [ "$what" = dists ] || [ "$what" = all ]; then
  both --n 2^24,2^26 --dist all
fi
"$(dirname "$0")/compare_peers.sh" "$csv"
