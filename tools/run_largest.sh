#!/usr/bin/env bash
# run_largest.sh BUILD_DIR CSV [SET]: the largest sorts of README.md's "Reliability" section, each
# verified (tests/test_largest.c), one CSV row each; then the sort that does not fit. Needs a device
# with about 40 GiB of memory and as much host memory (SET: small | u32 | u64 | all, default all;
# small runs the same cases at 2^20 keys, to try the script anywhere).
set -uo pipefail
build=$1 csv=$2 set=${3:-all}
t=$build/tests/test_largest
rc=0
run() { "$t" --csv "$csv" "$@" || rc=1; }
if [ "$set" = small ]; then
  run --n 2^20 --dist uniform; run --n 2^20 --dist few; run --n 2^20 --dist perm
  run --type uint64 --n 2^20 --dist uniform; run --type uint64 --values 8 --n 2^20 --dist perm
fi
if [ "$set" = u32 ] || [ "$set" = all ]; then
  run --n 2^31 --dist uniform; run --n 2^31 --dist few
  run --n max --dist perm; run --n max --dist few
fi
if [ "$set" = u64 ] || [ "$set" = all ]; then
  run --type uint64 --n 2^30 --dist uniform
  run --type uint64 --values 8 --n 2^30 --dist perm; run --type uint64 --values 8 --n 2^30 --dist few
fi
"$t" --does-not-fit; r=$?
[ $r -eq 0 ] || [ $r -eq 77 ] || rc=1
exit $rc
