#!/bin/bash
# ab_rounds.sh - two builds of clqsort-bench in turn, for machines whose speed drifts (a 2-core
# virtual machine's neighbours moved pocl's times by 15-30 % within minutes): each round runs
# every build once as a bench (its least of RUNS timed runs, each verified) and once with
# CLQSORT_PROFILE=1 (each kernel's least over the profiled runs), so drift hits every build alike.
#
#   tools/ab_rounds.sh OUT.csv ROUNDS N LABEL=BENCH [LABEL=BENCH ...]
#
# The CLQSORT_* environment (vendor, tuning) applies to every build, and so do the bench's
# flags in BENCH_ARGS (say "--type double --dist power-law"; default: uniform uint32). Rows:
# library,device,build,n,round,min_ms_of_RUNS,count_ms,sort_ms,phase_two_ms
# (count and sort: the sums over the launches of gqcount_kernel and gqsort_kernel).
set -euo pipefail
if [ $# -lt 4 ]; then
    sed -n 2,12p "$0"
    exit 2
fi
out=$1 rounds=$2 n=$3
shift 3
runs=${RUNS:-7}
echo "library,device,build,n,round,min_ms_of_$runs,count_ms,sort_ms,phase_two_ms" > "$out"
for r in $(seq "$rounds"); do
    for b in "$@"; do
        label=${b%%=*} bench=${b#*=}
        output=$("$bench" --no-qsort --n "$n" --runs "$runs" ${BENCH_ARGS:-} 2>&1)
        line=$(grep " median " <<<"$output")
        device=$(sed -n 's/^device: \(.*\), path .*/\1/p' <<<"$output" | head -n 1)
        case $line in *"$runs/$runs runs verified"*) ;; *) echo "not verified: $label: $line" >&2; exit 1 ;; esac
        min=$(sed 's/.*, min \([0-9.]*\) ms.*/\1/' <<<"$line")
        prof=$(CLQSORT_PROFILE=1 "$bench" --no-qsort --n "$n" --runs 4 ${BENCH_ARGS:-} 2>&1 | grep "^clqsort profile" | tail -n 4)
        least() { grep -o "$1 [0-9]* x [0-9.]*" <<<"$prof" | awk '{print $NF}' | sort -g | head -n 1; }
        echo "clqsort,\"${device:-?}\",$label,$n,$r,$min,$(least gqcount_kernel),$(least gqsort_kernel),$(least 'lqsort_kernel or tilesort_kernel')" >> "$out"
        tail -n 1 "$out"
    done
done
