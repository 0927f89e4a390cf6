#!/usr/bin/env bash
# run_oclgrind.sh OCLGRIND PROGRAM ARGS...: runs PROGRAM under oclgrind with data-race,
# uninitialized-value and API checks; fails if the program fails or oclgrind reports anything.
set -u
oclgrind=$1; shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$oclgrind" --data-races --uninitialized --check-api --log "$log" "$@"
rc=$?
if [ -s "$log" ]; then
  echo "oclgrind reported problems:"; head -c 20000 "$log"
  exit 1
fi
echo "oclgrind: no reports"
exit $rc
