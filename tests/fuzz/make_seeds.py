#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_api (tests/fuzz/corpus/): one input per call, key type, order,
value size and buffer shape that the API distinguishes, in the layout of fuzz_api.c's header.
Run it again after changing that layout:  python3 tests/fuzz/make_seeds.py tests/fuzz/corpus"""
import os
import random
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
os.makedirs(out, exist_ok=True)
rng = random.Random(1)
SORT, PAIRS, HOST, SCRATCH = range(4)
RW, RO, WO, NULL, SUB, FOREIGN, HOST_PTR, SAME, OVERLAP, BESIDE = range(10)


def seed(name, call, key_type, flags=0, count_mode=0, count=0, vsize_sel=0, raw_vsize=0, kshape=RW,
         vshape=RW, elems=1000, koff=0, voff=0, keys=None):
    head = struct.pack("<BbIBHBBBBHBB", call, key_type, flags, count_mode, count, vsize_sel, raw_vsize, kshape,
                       vshape, elems, koff, voff)
    body = keys if keys is not None else bytes(rng.getrandbits(8) for _ in range(256))
    with open(os.path.join(out, name), "wb") as f:
        f.write(head + body)


for t in range(6):
    for desc in (0, 1):
        seed(f"sort-t{t}-{'desc' if desc else 'asc'}", SORT, t, desc)
    seed(f"pairs4-t{t}", PAIRS, t, 0, vsize_sel=1)
    seed(f"pairs8-t{t}-desc", PAIRS, t, 1, vsize_sel=2)
    seed(f"host-t{t}", HOST, t)
seed("sort-prefix", SORT, 0, count_mode=1, count=700)
seed("sort-one-past", SORT, 0, count_mode=2, count=0)
seed("pairs-one-past", PAIRS, 1, vsize_sel=2, count_mode=2, count=0)
seed("sort-largest-count", SORT, 0, count_mode=3, count=3)
seed("sort-too-large", SORT, 0, count_mode=3, count=4)
seed("sort-size-max", SORT, 0, count_mode=4)
seed("sort-tiny", SORT, 1, count_mode=5, count=2)
seed("sort-unknown-flags", SORT, 0, flags=0x80000002)
seed("sort-bad-type", SORT, 9)
seed("sort-negative-type", SORT, -1)
for name, shape in (("ro", RO), ("wo", WO), ("null", NULL), ("sub", SUB), ("foreign", FOREIGN), ("hostptr", HOST_PTR)):
    seed(f"sort-keys-{name}", SORT, 2, kshape=shape)
for name, shape in (("same", SAME), ("overlap", OVERLAP), ("beside", BESIDE), ("null", NULL), ("ro", RO),
                    ("foreign", FOREIGN)):
    seed(f"pairs-values-{name}", PAIRS, 3, vsize_sel=1, kshape=SUB, vshape=shape)
seed("pairs-value-size-3", PAIRS, 0, vsize_sel=3)
seed("pairs-value-size-0", PAIRS, 0, vsize_sel=0)
seed("pairs-value-size-raw", PAIRS, 0, vsize_sel=5, raw_vsize=12)
seed("host-null", HOST, 0, kshape=NULL)
seed("sort-at-offset", SORT, 0, koff=3, count_mode=1, count=900)
seed("sort-offset-at-end", SORT, 2, koff=200, elems=200, count_mode=5, count=0)
seed("sort-offset-past-end", SORT, 0, koff=201, elems=200, count_mode=5, count=0)
seed("pairs-at-offsets", PAIRS, 4, vsize_sel=2, koff=5, voff=9, count_mode=1, count=600)
seed("pairs-one-buffer-apart", PAIRS, 0, vsize_sel=1, vshape=SAME, elems=1000, koff=0, voff=250, count_mode=1,
     count=200)
seed("pairs-one-buffer-overlap", PAIRS, 0, vsize_sel=1, vshape=SAME, elems=1000, koff=0, voff=100, count_mode=1,
     count=200)
seed("scratch-u32", SCRATCH, 0, count_mode=6, count=60000)
seed("scratch-pairs8", SCRATCH, 5, vsize_sel=2)
seed("equal-keys", SORT, 0, keys=b"\x07\x00\x00\x00")
seed("float-specials", SORT, 2, keys=struct.pack("<8I", 0x7FC00000, 0xFFC00000, 0x80000000, 0, 0x7F800000,
                                                0xFF800000, 0x00000001, 0x80000001))
seed("large-4096", SORT, 0, elems=4096)
