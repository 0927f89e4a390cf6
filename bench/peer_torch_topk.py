#!/usr/bin/env python3
"""peer_torch_topk.py - torch.topk(sorted=True) beside clqsort_partial_sort, on a CUDA GPU.

The k smallest of n uniform int32 keys (uint32 values below 2^31, so the order is the same as
clqsort's uint32 keys), largest=False, sorted=True; device time by CUDA events around the call
alone (the input stays on the device), median of --runs after one warm-up; every run is checked
against torch.sort of the same keys (the k values, in order). Rows in clqsort-bench's CSV columns.

    python3 bench/peer_torch_topk.py --n 2^26 --topk 16,1024,65536 --runs 9 --csv out.csv
"""
import argparse
import statistics
import sys

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", default="2^26")
    ap.add_argument("--topk", default="16,1024,65536")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--csv")
    a = ap.parse_args()
    n = 1 << int(a.n[2:]) if a.n.startswith("2^") else int(a.n)
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(12345)
    keys = torch.randint(0, 2**31 - 1, (n,), dtype=torch.int32, device=dev, generator=gen)
    want_all = torch.sort(keys).values
    name = torch.cuda.get_device_name(dev)
    rows = []
    for k in (int(s) for s in a.topk.split(",")):
        times, ok = [], True
        for r in range(a.runs + 1):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            got = torch.topk(keys, k, largest=False, sorted=True).values
            end.record()
            torch.cuda.synchronize()
            ok = ok and torch.equal(got, want_all[:k])
            if r:
                times.append(start.elapsed_time(end))
        med = statistics.median(times)
        print(f"n={n} topk={k}: torch.topk {med:.4f} ms (min {min(times):.4f}), verified={int(ok)}")
        rows.append(f'torch.topk,"{name}",cuda,int32,uniform/topk={k},{n},{a.runs},{med:.4f},'
                    f'{min(times):.4f},0,{n / med / 1e3:.2f},0.000,0,0,0,{int(ok)}\n')
        if not ok:
            print("torch.topk: wrong answer", file=sys.stderr)
            return 1
    if a.csv:
        with open(a.csv, "a") as f:
            f.writelines(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
