#!/usr/bin/env bash
# run_oclgrind.sh OCLGRIND PROGRAM ARGS...: runs PROGRAM under oclgrind, which always checks
# every memory access against its buffer's bounds, with its API, data-race and
# uninitialized-value checks. Fails if the program fails or anything reaches stderr, where
# oclgrind writes its reports (and the tests their failures).
# Not --log: oclgrind 21.10 reopens and empties its log file for every context, so a test that
# takes a new context per case left only its last case's reports there.
set -u
checks="--data-races --uninitialized"
oclgrind=$1; shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086
"$oclgrind" $checks --check-api "$@" 2> "$log"
rc=$?
if [ -s "$log" ]; then
  echo "oclgrind reported problems (or the program wrote to stderr):"; head -c 20000 "$log"
  exit 1
fi
echo "oclgrind: no reports"
exit $rc
