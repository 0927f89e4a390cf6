#!/usr/bin/env python3
"""Where the host's time goes in the bench's timed calls, from bench/time_layer.c's lines.

A timed call is what runs between two clFinish calls of the bench with at least one launch
between them: the library's calls, from the end of the first clFinish. Calls of the same
sequence of entries are put together, and for each entry of the sequence the median over them
is printed: when it started (us after the first clFinish returned), how long it took, and the
host's own time before it (since the previous call returned: the library's code). The last
line is the bench's clFinish after the call, which returns once the queue is empty.

Use: time_layer_report.py calls.txt [--skip N] (N: the first timed calls to leave out, the
warm-up that builds the programs; default 1)."""
import statistics
import sys


def windows(lines):
    win, started = None, None
    for entry, start, dur, detail in lines:
        if entry == "clFinish":
            if win is not None and any(e == "clEnqueueNDRangeKernel" for e, *_ in win):
                win.append((entry, start - started, dur, detail))
                yield win
            win, started = [], start + dur
        elif win is not None:
            win.append((entry, start - started, dur, detail))


def main():
    args = sys.argv[1:]
    skip = 1
    if "--skip" in args:
        i = args.index("--skip")
        skip = int(args[i + 1])
        del args[i : i + 2]
    rows = []
    with open(args[0]) as f:
        for line in f:
            e, s, d, x = line.split()
            rows.append((e, float(s), float(d), int(x)))
    groups = {}
    for w in list(windows(rows))[skip:]:
        groups.setdefault(tuple((e, x) for e, _, _, x in w), []).append(w)
    for shape, ws in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"== {len(ws)} timed calls of {len(shape)} entries")
        total_host = []
        for i, (e, x) in enumerate(shape):
            starts = [w[i][1] for w in ws]
            durs = [w[i][2] for w in ws]
            gaps = [w[i][1] - (w[i - 1][1] + w[i - 1][2]) if i else w[i][1] for w in ws]
            print(f"{i:3d} {e:24s} {x:>10d}  start {statistics.median(starts):8.1f}  "
                  f"took {statistics.median(durs):7.1f}  own before {statistics.median(gaps):6.1f}")
        for w in ws:
            total_host.append(w[-1][1] + w[-1][2])
        print(f"    whole (to the bench's clFinish return): median {statistics.median(total_host):.1f} us")


if __name__ == "__main__":
    main()
