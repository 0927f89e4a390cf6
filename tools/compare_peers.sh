#!/usr/bin/env bash
# Prints, for every case measured by more than one library in the given CSV files (the columns
# of clqsort-bench --csv and clqsort-peer-boost --csv), each library's median and its ratio to
# clqsort's: how many times longer the peer took.
#   tools/compare_peers.sh bench/results/h200-sizes.csv bench/results/h200-boost.csv
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 FILE.csv [FILE.csv ...]" >&2; exit 2; }
awk -F, '
  FNR == 1 { next }                           # header of each file
  {
    key = $2 "," $4 "," $5 "," $6           # device, type, dist, n
    t[key, $1] = $8; libs[$1] = 1
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
  }
  END {
    for (i = 1; i <= n; i++) {
      k = order[i]; split(k, f, ",")
      if (!((k, "clqsort") in t)) continue
      line = sprintf("%s %s %s n=%s: clqsort %.3f ms", f[1], f[2], f[3], f[4], t[k, "clqsort"])
      peers = 0
      for (l in libs)
        if (l != "clqsort" && (k, l) in t) {
          line = line sprintf("; %s %.3f ms (%.1fx)", l, t[k, l], t[k, l] / t[k, "clqsort"]); peers++
        }
      if (peers) print line
    }
  }' "$@"
