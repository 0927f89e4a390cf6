#!/usr/bin/env bash
# Regenerates docs/throughput.png from the CSV files in bench/results/ (gnuplot, Debian's
# gnuplot-nox). Throughput = keys / device-resident median time, for clqsort and the peers.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# clqsort: n and Mkeys/s of the uint32 uniform rows
awk -F, 'NR > 1 && $4 == "uint32" && $5 == "uniform" { print $6, $11 }' bench/results/h100-sizes.csv > "$tmp/h100.dat"
awk -F, 'NR > 1 && $4 == "uint32" && $5 == "uniform" { print $6, $11 }' bench/results/pocl-sizes.csv > "$tmp/pocl.dat"
# Boost.Compute: "boost.compute n=2^k median_ms=T (G Gkeys/s)" -> n, Mkeys/s
parse_boost() { sed -n 's/.*n=2^\([0-9]*\) median_ms=\([0-9.]*\).*/\1 \2/p' "$1" | awk '{ n = 2^$1; print n, n / $2 / 1e3 }'; }
parse_boost bench/results/h100-boost-compute.txt > "$tmp/h100-boost.dat"
parse_boost bench/results/pocl-boost-compute.txt > "$tmp/pocl-boost.dat"
gnuplot <<GP
set terminal pngcairo size 900,560 noenhanced
set output 'docs/throughput.png'
set title 'Sort throughput, random uint32 keys (device-resident median, every run verified)'
set xlabel 'keys'
set ylabel 'million keys per second'
set logscale xy 2
set format x '2^{%L}'
set format x '%.0s%c'
set key right bottom
set grid
plot '$tmp/h100.dat' with linespoints lw 2 title 'clqsort, H100 (NVIDIA OpenCL)', \
     '$tmp/h100-boost.dat' with linespoints lw 2 title 'Boost.Compute, H100', \
     '$tmp/pocl.dat' with linespoints lw 2 title 'clqsort, pocl 2 cores', \
     '$tmp/pocl-boost.dat' with linespoints lw 2 title 'Boost.Compute, pocl 2 cores'
GP
echo "wrote docs/throughput.png"
