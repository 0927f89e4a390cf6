#!/usr/bin/env bash
# Regenerates docs/throughput.png from the CSV files in bench/results/ (gnuplot: Debian's
# gnuplot-nox). Throughput = keys / device-resident median time of random uint32 keys, for
# clqsort and Boost.Compute as measured (clqsort-bench, clqsort-peer-boost), and for VexCL and
# CUB as quoted in the performance issue (dashed: not measured here).
set -euo pipefail
cd "$(dirname "$0")/.."
r=bench/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# n and Mkeys/s of the uint32 uniform rows (columns of clqsort-bench --csv: n = 6, median = 8)
rate() { awk -F, 'NR > 1 && $4 == "uint32" && $5 == "uniform" { print $6, $6 / $8 / 1e3 }' "$1"; }
rate $r/h200-sizes.csv > "$tmp/h200.dat"
rate $r/h200-boost.csv > "$tmp/h200-boost.dat"
rate $r/pocl-sizes.csv > "$tmp/pocl.dat"
rate $r/pocl-boost.csv > "$tmp/pocl-boost.dat"
# quoted-anchors.csv: the device name is quoted and holds no comma; type = 3, n = 4, time = 5
awk -F, -v lib=vexcl '$1 == lib && $3 == "uint32" { print $4, $4 / $5 / 1e3 }' $r/quoted-anchors.csv > "$tmp/vexcl.dat"
awk -F, -v lib=cub-radix-sort '$1 == lib && $3 == "uint32" { print $4, $4 / $5 / 1e3 }' $r/quoted-anchors.csv > "$tmp/cub.dat"
gnuplot <<GP
set terminal pngcairo size 960,600 noenhanced
set output 'docs/throughput.png'
set title 'Sort throughput, random uint32 keys (device-resident median, every run verified)'
set xlabel 'keys'
set ylabel 'million keys per second'
set logscale xy 2
set format x '%.0s%c'
set key right bottom
set yrange [8:*]
set grid
plot '$tmp/h200.dat' with linespoints lw 2 pt 7 title 'clqsort, H200 (NVIDIA OpenCL)', \
     '$tmp/h200-boost.dat' with linespoints lw 2 pt 5 title 'Boost.Compute, H200', \
     '$tmp/vexcl.dat' with linespoints lw 1 dt 2 pt 4 title 'VexCL, H200 (quoted, not measured here)', \
     '$tmp/cub.dat' with linespoints lw 1 dt 2 pt 6 title 'CUB radix sort, CUDA, H200 (quoted)', \
     '$tmp/pocl.dat' with linespoints lw 2 pt 9 title 'clqsort, pocl 3.1, 2 CPU cores', \
     '$tmp/pocl-boost.dat' with linespoints lw 2 pt 11 title 'Boost.Compute, pocl 3.1, 2 CPU cores'
GP
echo "wrote docs/throughput.png"
