#!/usr/bin/env python3
"""bench_python.py - the Python package beside what Python users sort with today.

Per size and dtype: clqsort on a PyOpenCL array (in place, on the device), clqsort on a NumPy
array (a sorted copy: transfers included), pyopencl.algorithm.RadixSort (uint32 keys, used the way
its documentation shows), pyopencl.bitonic_sort.BitonicSort (power-of-two sizes) and numpy.sort
(on the host). Device inputs are restored from a device copy before every run (not timed); the
timed region is the call and a queue.finish(); median of --runs after one warm-up run; every run,
warm-up included, is checked against numpy.sort of the input (values equal, NaNs equal). A peer
that took longer than --budget seconds at one size is not run at larger ones (said so in the
table; no CSV row).

--overhead measures what a call costs above the C library: clqsort.sort on a 1024-key PyOpenCL
array against the C function called through ctypes with the same arguments, and a ctypes call
that does nothing.

    CLQSORT_VENDOR=pocl python3 bench/bench_python.py --sizes 2^16,2^20 --csv results.csv
"""
import argparse
import csv
import os
import statistics
import sys
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import clqsort
from clqsort import _lib


def parse_sizes(text):
    return [1 << int(s[2:]) if s.startswith("2^") else int(s) for s in text.split(",")]


def pick_queue():
    want = os.environ.get("CLQSORT_VENDOR", "").lower()
    gpu_first = sorted(cl.get_platforms(), key=lambda p: not any(d.type & cl.device_type.GPU for d in p.get_devices()))
    for p in gpu_first:
        if want in p.name.lower() or want in p.vendor.lower():
            return cl.CommandQueue(cl.Context([p.get_devices()[0]]))
    sys.exit(f"bench_python: no OpenCL platform matches CLQSORT_VENDOR={want!r}")


def make_input(dtype, n, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(n).astype(dtype)
    return rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, n, dtype=dtype, endpoint=True)


def same(out, ref):
    return np.array_equal(out, ref, equal_nan=ref.dtype.kind == "f")


def measure(run, check, runs):
    """run() returns (seconds, output); check(output) -> bool. The median of `runs` after a warm-up."""
    times, verified = [], 0
    for i in range(runs + 1):
        t, out = run()
        verified += bool(check(out))
        if i:
            times.append(t)
    return statistics.median(times), min(times), verified


def device_runner(queue, src, work, call):
    """Restore `work` from `src` (a device copy, not timed), then time call(work) and a finish."""
    def run():
        cl.enqueue_copy(queue, work.data, src.data)
        queue.finish()
        t0 = time.perf_counter()
        out = call(work)
        queue.finish()
        return time.perf_counter() - t0, out
    return run


def peers(queue, dtype, n):
    """(name, kind, make_runner) for every peer that applies to this dtype and size."""
    ctx = queue.context
    out = [("clqsort", "pyopencl", lambda src, work: device_runner(queue, src, work, clqsort.sort))]

    def host_runner(sort):  # a NumPy copy of the input, sorted by `sort` into a new array
        def make(src, work):
            host = src.get()

            def run():
                t0 = time.perf_counter()
                r = sort(host)
                return time.perf_counter() - t0, r
            return run
        return make
    out.append(("clqsort", "numpy (copy, transfers included)", host_runner(clqsort.sort)))
    if np.dtype(dtype) == np.uint32:
        from pyopencl.algorithm import RadixSort
        radix = RadixSort(ctx, "unsigned int *ary", key_expr="ary[i]", sort_arg_names=["ary"], key_dtype=np.uint32)
        out.append(("pyopencl.algorithm.RadixSort", "pyopencl",
                    lambda src, work: device_runner(queue, src, work,
                                                    lambda a: radix(a, key_bits=32, queue=queue)[0][0])))
    if n & (n - 1) == 0:
        from pyopencl.bitonic_sort import BitonicSort
        bitonic = BitonicSort(ctx)

        def bitonic_call(a):
            bitonic(a, queue=queue)
            return a
        out.append(("pyopencl.bitonic_sort.BitonicSort", "pyopencl",
                    lambda src, work: device_runner(queue, src, work, bitonic_call)))

    out.append(("numpy.sort", "numpy (host)", host_runner(np.sort)))
    return out


def overhead(queue, runs=3001):
    """Microseconds per call: clqsort.sort, the C function through ctypes with the same arguments,
    and the median difference of the two called in turn; the ctypes call doing nothing."""
    a = cla.to_device(queue, np.sort(make_input(np.uint32, 1024, 1)))
    clqsort.sort(a)
    queue.finish()
    ctx = clqsort._context_of_queue(queue)
    ptr, n = a.base_data.int_ptr, a.size

    def c_call():
        with ctx.lock:
            ctx.check(_lib.sort_at(ctx.handle, ptr, 0, n, 0, 0))
    nothing = _lib.lib.clqsort_status_string
    nothing.restype, nothing.argtypes = _lib.ctypes.c_char_p, [_lib.ctypes.c_int]
    py, c, diff, noop = [], [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        clqsort.sort(a)
        t1 = time.perf_counter()
        c_call()
        t2 = time.perf_counter()
        nothing(0)
        t3 = time.perf_counter()
        py.append(t1 - t0), c.append(t2 - t1), diff.append((t1 - t0) - (t2 - t1)), noop.append(t3 - t2)
    us = lambda v: statistics.median(v) * 1e6  # noqa: E731
    return us(py), us(c), us(diff), us(noop)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="2^16,2^18,2^20,2^22,2^24,2^26")
    ap.add_argument("--dtypes", default="uint32,int32,float32,uint64,int64,float64")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--budget", type=float, default=20.0, help="seconds a peer's run may take before larger sizes are left out")
    ap.add_argument("--csv")
    ap.add_argument("--overhead", action="store_true")
    args = ap.parse_args()
    queue = pick_queue()
    device = queue.device.name.strip()
    print(f"device: {device} ({queue.device.platform.name.strip()}), clqsort {clqsort.__version__}")
    fields = ["library", "kind", "device", "dtype", "n", "runs", "median_ms", "min_ms", "verified"]

    def record(**row):  # each row written at once: a run cut short keeps what it measured
        if not args.csv:
            return
        new = not os.path.exists(args.csv) or os.path.getsize(args.csv) == 0
        with open(args.csv, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            if new:
                w.writeheader()
            w.writerow(row)
    if args.overhead:
        py, c, diff, noop = overhead(queue)
        print(f"overhead, 1024 uint32 keys on a PyOpenCL array: clqsort.sort {py:.1f} us, the C call through ctypes "
              f"{c:.1f} us (medians); called in turn, clqsort.sort takes {diff:.1f} us more (median), and a ctypes "
              f"call doing nothing {noop:.2f} us: {diff + noop:.1f} us above the C library")
        record(library="clqsort overhead above C", kind="pyopencl", device=device, dtype="uint32", n=1024, runs=3001,
               median_ms=round((diff + noop) / 1e3, 6), min_ms="", verified="")
    for dname in args.dtypes.split(","):
        dtype = np.dtype(dname)
        too_slow = set()
        for n in parse_sizes(args.sizes):
            host = make_input(dtype, n, n)
            ref = np.sort(host)
            src = cla.to_device(queue, host)
            work = cla.empty_like(src)
            for name, kind, make in peers(queue, dtype, n):
                if (name, kind) in too_slow:
                    print(f"{dname:>8} n={n:>9} {name} [{kind}]: left out (over {args.budget:.0f} s at a smaller size)")
                    continue
                run = make(src, work)
                median, best, verified = measure(run, lambda out: same(out.get() if hasattr(out, "get") else out, ref),
                                                 args.runs)
                print(f"{dname:>8} n={n:>9} {name} [{kind}]: median {median * 1e3:.3f} ms, min {best * 1e3:.3f} ms, "
                      f"{verified}/{args.runs + 1} runs verified", flush=True)
                if verified != args.runs + 1:
                    sys.exit(f"bench_python: {name} gave a wrong result")
                record(library=name, kind=kind, device=device, dtype=dname, n=n, runs=args.runs,
                       median_ms=round(median * 1e3, 4), min_ms=round(best * 1e3, 4), verified=verified)
                if median > args.budget:
                    too_slow.add((name, kind))


if __name__ == "__main__":
    main()
