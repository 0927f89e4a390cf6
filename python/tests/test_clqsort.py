"""Tests of the clqsort package against NumPy, on the device CLQSORT_VENDOR names (pocl in CI).

Every result is checked two ways: against numpy.sort / numpy.argsort (values equal, NaNs equal),
and against the documented order written here apart from the library (a sort key made from the
bits: -0.0 before +0.0, every NaN last) together with the bit patterns of the input (a
permutation, NaN payloads and signed zeros kept).
"""
import gc
import os
import re
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import clqsort
from clqsort import _lib

import pyopencl as cl  # required: a skipped PyOpenCL path would pass unseen
import pyopencl.array as cla

DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]
UINT = {4: np.uint32, 8: np.uint64}


@pytest.fixture(scope="module")
def queue():
    """A queue on the device the C library's tests use (CLQSORT_VENDOR, else the first)."""
    want = os.environ.get("CLQSORT_VENDOR", "").lower()
    for p in cl.get_platforms():
        if want in p.name.lower() or want in p.vendor.lower():
            ctx = cl.Context([p.get_devices()[0]])
            return cl.CommandQueue(ctx)
    pytest.fail(f"no OpenCL platform matches CLQSORT_VENDOR={want!r}")


# ---- the documented order, written apart from the library --------------------------------------


def order_key(a):
    """An unsigned key with the documented order: integers by value, floats with -0.0 < +0.0 and
    every NaN above +inf (NaNs tie)."""
    a = np.asarray(a)
    u = UINT[a.dtype.itemsize]
    bits = a.view(u)
    top = u(1) << u(8 * a.dtype.itemsize - 1)
    if a.dtype.kind == "u":
        return bits
    if a.dtype.kind == "i":
        return bits ^ top
    key = np.where(bits & top, ~bits, bits | top)
    return np.where(np.isnan(a), np.iinfo(u).max, key)


def check_sorted(out, inp, descending=False):
    out, inp = np.asarray(out), np.asarray(inp)
    assert out.dtype == inp.dtype and out.shape == inp.shape
    u = UINT[inp.dtype.itemsize]
    assert np.array_equal(np.sort(out.view(u)), np.sort(inp.view(u))), "not a permutation of the input's bits"
    k = order_key(out)
    assert np.all(k[1:] <= k[:-1]) if descending else np.all(k[:-1] <= k[1:]), "not in the documented order"
    ref = np.sort(inp)
    if descending:
        ref = ref[::-1]
    assert np.array_equal(out, ref, equal_nan=inp.dtype.kind == "f"), "differs from numpy.sort"


def check_positions(idx, inp, descending=False):
    idx = np.asarray(idx)
    assert idx.dtype == np.uint32
    assert np.array_equal(np.sort(idx), np.arange(inp.size, dtype=np.uint32)), "positions are not a permutation"
    check_sorted(np.asarray(inp)[idx], inp, descending)
    by_numpy = np.asarray(inp)[np.argsort(inp, kind="stable")]
    if not descending:
        assert np.array_equal(np.asarray(inp)[idx], by_numpy, equal_nan=inp.dtype.kind == "f")


def keys_of(dtype, min_size=0, max_size=3000):
    """Arrays of the dtype with edge values: NaNs, infinities, signed zeros, subnormals, limits."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        elements = st.floats(width=8 * dtype.itemsize, allow_nan=True, allow_infinity=True, allow_subnormal=True)
    else:
        info = np.iinfo(dtype)
        elements = st.integers(int(info.min), int(info.max))
    return hnp.arrays(dtype, st.integers(min_size, max_size), elements=elements)


PROPERTY = settings(max_examples=25, deadline=None)


# ---- NumPy arrays ------------------------------------------------------------------------------


@PROPERTY
@given(data=st.data(), dtype=st.sampled_from(DTYPES), descending=st.booleans())
def test_numpy_sort(data, dtype, descending):
    a = data.draw(keys_of(dtype))
    before = a.copy()
    out = clqsort.sort(a, descending=descending)
    assert out is not a and np.array_equal(a.view(UINT[a.itemsize]), before.view(UINT[a.itemsize]))
    check_sorted(out, a, descending)


@PROPERTY
@given(data=st.data(), dtype=st.sampled_from(DTYPES), descending=st.booleans())
def test_numpy_argsort(data, dtype, descending):
    a = data.draw(keys_of(dtype))
    check_positions(clqsort.argsort(a, descending=descending), a, descending)


@PROPERTY
@given(data=st.data(), dtype=st.sampled_from(DTYPES), vdtype=st.sampled_from([np.int32, np.float32, np.uint64,
                                                                              np.complex64, np.float64]))
def test_numpy_sort_by_key(data, dtype, vdtype):
    a = data.draw(keys_of(dtype))
    values = np.arange(a.size).astype(vdtype)
    k, v = clqsort.sort_by_key(a, values)
    check_sorted(k, a)
    positions = np.real(v).astype(np.int64)
    assert np.array_equal(np.sort(positions), np.arange(a.size)), "values are not a permutation"
    u = UINT[a.itemsize]
    assert np.array_equal(k.view(u), a[positions].view(u)), "a value left its key"


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_large(dtype):
    rng = np.random.default_rng(5)
    n = 300_001
    if np.dtype(dtype).kind == "f":
        a = rng.standard_normal(n).astype(dtype)
        a[::997] = np.nan
        a[1::991] = -0.0
    else:
        a = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, n, dtype=dtype, endpoint=True)
    check_sorted(clqsort.sort(a), a)
    check_sorted(clqsort.sort(a, descending=True), a, True)
    check_positions(clqsort.argsort(a), a)


def test_numpy_signed_zeros_and_nans():
    a = np.array([0.0, np.nan, -0.0, -np.inf, np.inf, -np.nan, 1.0, -0.0, 0.0], dtype=np.float32)
    out = clqsort.sort(a)
    assert np.array_equal(np.signbit(out[1:5]), [True, True, False, False])  # -0.0 -0.0 0.0 0.0
    assert np.all(np.isnan(out[-2:]))
    desc = clqsort.sort(a, descending=True)
    assert np.all(np.isnan(desc[:2])) and desc[2] == np.inf


# ---- PyOpenCL arrays -----------------------------------------------------------------------------


@PROPERTY
@given(data=st.data(), dtype=st.sampled_from(DTYPES), descending=st.booleans())
def test_pyopencl_sort_in_place(queue, data, dtype, descending):
    a = data.draw(keys_of(dtype))
    d = cla.to_device(queue, a)
    events = len(d.events)
    assert clqsort.sort(d, descending=descending) is d
    assert len(d.events) == events + (1 if a.size >= 2 else 0), "the sort's event was not added"
    check_sorted(d.get(), a, descending)


@PROPERTY
@given(data=st.data(), dtype=st.sampled_from(DTYPES), start=st.integers(0, 40), tail=st.integers(0, 40))
def test_pyopencl_slice(queue, data, dtype, start, tail):
    """A slice starts at any element of its buffer; what lies around it stays as it was."""
    a = data.draw(keys_of(dtype, max_size=2000))
    rng = np.random.default_rng(start)
    whole = np.concatenate([rng.integers(0, 100, start).astype(dtype), a, rng.integers(0, 100, tail).astype(dtype)])
    d = cla.to_device(queue, whole)
    part = d[start:start + a.size]
    clqsort.sort(part)
    got = d.get()
    u = UINT[a.itemsize]
    check_sorted(got[start:start + a.size], a)
    assert np.array_equal(got[:start].view(u), whole[:start].view(u))
    assert np.array_equal(got[start + a.size:].view(u), whole[start + a.size:].view(u))


@PROPERTY
@given(data=st.data(), dtype=st.sampled_from(DTYPES), descending=st.booleans())
def test_pyopencl_argsort(queue, data, dtype, descending):
    a = data.draw(keys_of(dtype))
    d = cla.to_device(queue, a)
    idx = clqsort.argsort(d, descending=descending)
    assert isinstance(idx, cla.Array)
    check_positions(idx.get(), a, descending)
    u = UINT[a.itemsize]
    assert np.array_equal(d.get().view(u), a.view(u)), "argsort changed its input"


@pytest.mark.parametrize("vdtype", [np.uint32, np.float32, np.int64, np.float64])
def test_pyopencl_sort_by_key_slices(queue, vdtype):
    rng = np.random.default_rng(3)
    n = 50_000
    keys = rng.standard_normal(n + 7)
    values = np.arange(n + 3).astype(vdtype)
    dk, dv = cla.to_device(queue, keys), cla.to_device(queue, values)
    k, v = clqsort.sort_by_key(dk[7:], dv[3:], descending=True)
    check_sorted(k.get(), keys[7:], True)
    positions = v.get().astype(np.int64) - 3
    assert np.array_equal(keys[7:][positions], k.get())
    assert np.array_equal(dk.get()[:7], keys[:7]) and np.array_equal(dv.get()[:3], values[:3])


@pytest.mark.parametrize("dtype", DTYPES)
def test_pyopencl_large(queue, dtype):
    rng = np.random.default_rng(11)
    n = 400_003
    a = (rng.standard_normal(n) * 1e6).astype(dtype) if np.dtype(dtype).kind == "f" else \
        rng.integers(0, np.iinfo(dtype).max, n, dtype=dtype)
    d = cla.to_device(queue, a)
    check_sorted(clqsort.sort(d).get(), a)


def test_pyopencl_waits_for_the_arrays_events(queue):
    """The sort starts only once the events the array carries are complete."""
    a = np.arange(5000, 0, -1, dtype=np.uint32)
    d = cla.to_device(queue, a)
    gate = cl.UserEvent(queue.context)
    d.add_event(gate)
    done = []
    t = threading.Thread(target=lambda: done.append(clqsort.sort(d)))
    t.start()
    time.sleep(0.2)
    assert not done, "the sort did not wait for the array's event"
    gate.set_status(cl.command_execution_status.COMPLETE)
    t.join(30)
    assert done
    check_sorted(d.get(), a)


def test_pyopencl_threads_share_a_queue(queue):
    """One queue from several threads: calls take turns instead of being refused as busy."""
    arrays = [np.random.default_rng(i).integers(0, 2**32, 20_000, dtype=np.uint32) for i in range(6)]
    errors = []

    def run(a):
        try:
            for _ in range(5):
                check_sorted(clqsort.sort(cla.to_device(queue, a)).get(), a)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(a,)) for a in arrays]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


# ---- contexts: kept per queue, released with release() or once their queue is gone ---------------


def test_contexts_released(queue):
    """Contexts kept for the last KEPT_QUEUES queues, the least recently used released first;
    release(queue) and release() give them back, and the next sort makes a new one."""
    a = np.arange(3000, 0, -1, dtype=np.uint32)

    def sort_on(q):
        d = cla.to_device(q, a)
        clqsort.sort(d)
        check_sorted(d.get(), a)
        return q.context.int_ptr, q.int_ptr

    clqsort.release()
    assert not clqsort._contexts
    queues = [cl.CommandQueue(queue.context) for _ in range(clqsort.KEPT_QUEUES + 3)]
    keys = [sort_on(q) for q in queues[: clqsort.KEPT_QUEUES]]
    sort_on(queues[0])  # now the most recently used
    keys += [sort_on(q) for q in queues[clqsort.KEPT_QUEUES:]]
    # q1, q2 and q3 were used longest ago when q8, q9 and q10 came
    assert list(clqsort._contexts) == keys[4:8] + [keys[0]] + keys[8:], \
        "more contexts kept than KEPT_QUEUES, or the wrong ones released"
    assert len(clqsort._contexts) == clqsort.KEPT_QUEUES
    clqsort.release(queues[0])
    assert keys[0] not in clqsort._contexts and len(clqsort._contexts) == clqsort.KEPT_QUEUES - 1
    sort_on(queues[0])  # a new context after a release
    sort_on(queues[1])  # released by the bound before: made again
    clqsort.release()
    assert not clqsort._contexts
    check_sorted(clqsort.sort(a), a)  # the NumPy context is made again too
    sort_on(queue)


def test_release_while_another_thread_sorts(queue):
    """release() from one thread while another sorts on that queue: the sort finishes first, and
    the next one makes a new context; every result right."""
    a = np.random.default_rng(7).integers(0, 2**32, 50_000, dtype=np.uint32)
    errors, stop = [], threading.Event()

    def run():
        try:
            while not stop.is_set():
                check_sorted(clqsort.sort(cla.to_device(queue, a)).get(), a)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    for _ in range(20):
        clqsort.release(queue)
        time.sleep(0.005)
    stop.set()
    t.join()
    assert not errors, errors


def test_release_between_lookup_and_sort(queue, monkeypatch):
    """The narrow case of the test above, made certain: the context is released after a call
    looked it up and before it locked it; the call makes a new one instead of using the old."""
    lookup, released = clqsort._context_of_queue, []

    def racing(q):
        c = lookup(q)
        if not released:
            released.append(c)
            clqsort.release(q)  # as if another thread's release() came now
        return c

    monkeypatch.setattr(clqsort, "_context_of_queue", racing)
    a = np.random.default_rng(3).integers(0, 2**32, 5000, dtype=np.uint32)
    check_sorted(clqsort.sort(cla.to_device(queue, a)).get(), a)
    assert released and released[0].handle is None


# ---- errors: named, and raised before any data is touched -------------------------------------


def test_errors_types(queue):
    with pytest.raises(TypeError, match="clqsort sorts numpy.ndarray"):
        clqsort.sort([3, 1, 2])
    for bad in (np.int16, np.float16, np.uint8, object, np.complex64):
        a = np.zeros(4, dtype=bad)
        with pytest.raises(TypeError, match="dtype"):
            clqsort.sort(a)
    with pytest.raises(TypeError, match="native byte order"):
        clqsort.sort(np.zeros(4, dtype=">f4"))
    with pytest.raises(TypeError, match="4 or 8 bytes"):
        clqsort.sort_by_key(np.zeros(4, np.uint32), np.zeros(4, np.int16))
    with pytest.raises(TypeError, match="values is a builtins.list"):
        clqsort.sort_by_key(np.zeros(4, np.uint32), [0, 1, 2, 3])
    with pytest.raises(TypeError, match="two NumPy arrays or two PyOpenCL"):
        clqsort.sort_by_key(np.zeros(4, np.uint32), cla.to_device(queue, np.zeros(4, np.uint32)))
    with pytest.raises(TypeError, match="dtype"):
        clqsort.argsort(cla.to_device(queue, np.zeros(4, np.int16)))


def test_errors_values(queue):
    with pytest.raises(ValueError, match="2-dimensional"):
        clqsort.sort(np.zeros((3, 3), np.float32))
    strided = np.arange(10, dtype=np.int32)[::2]
    with pytest.raises(ValueError, match="not contiguous"):
        clqsort.argsort(strided)
    huge = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint32), shape=(clqsort.MAX_COUNT + 1,), strides=(0,))
    with pytest.raises(ValueError, match="at most 4294967295"):
        clqsort.sort(huge)
    with pytest.raises(ValueError, match="as many"):
        clqsort.sort_by_key(np.zeros(4, np.uint32), np.zeros(5, np.uint32))
    k = cla.to_device(queue, np.arange(8, 0, -1, dtype=np.uint32))
    other = cl.CommandQueue(cl.Context([queue.device]))
    v = cla.to_device(other, np.arange(8, dtype=np.uint32))
    with pytest.raises(ValueError, match="different OpenCL contexts"):
        clqsort.sort_by_key(k, v)
    assert np.array_equal(k.get(), np.arange(8, 0, -1)), "a refused call changed the keys"
    with pytest.raises(ValueError, match="as many"):
        clqsort.sort_by_key(k, cla.to_device(queue, np.arange(9, dtype=np.uint32)))
    d2 = cla.to_device(queue, np.zeros((2, 2), np.float64))
    with pytest.raises(ValueError, match="2-dimensional"):
        clqsort.sort(d2)
    d = cla.to_device(queue, np.arange(20, 0, -1, dtype=np.uint32))
    for k, v in ((d, d), (d[0:10], d[5:15]), (d[5:15], d[0:10])):
        with pytest.raises(ValueError, match="overlap in one buffer"):
            clqsort.sort_by_key(k, v)
    assert np.array_equal(d.get(), np.arange(20, 0, -1)), "a refused call changed the keys"
    clqsort.sort_by_key(d[0:10], d[10:20])  # one buffer, apart: allowed
    check_sorted(d[0:10].get(), np.arange(20, 10, -1, dtype=np.uint32))


def test_errors_svm(queue):
    """Arrays in shared virtual memory are not buffers: TypeError, before anything runs."""
    if not cl.get_cl_header_version() >= (2, 0) or not (queue.device.svm_capabilities
                                                         & cl.device_svm_capabilities.COARSE_GRAIN_BUFFER):
        pytest.skip("the device has no shared virtual memory")
    alloc = cl.tools.SVMAllocator(queue.context, flags=cl.svm_mem_flags.READ_WRITE, queue=queue)
    a = cla.to_device(queue, np.arange(16, 0, -1, dtype=np.uint32), allocator=alloc)
    for call in (clqsort.sort, clqsort.argsort):
        with pytest.raises(TypeError, match="not in an OpenCL buffer"):
            call(a)
    assert np.array_equal(a.get(), np.arange(16, 0, -1))


def test_library_error_carries_status_and_message(queue, monkeypatch):
    """A failure inside the library (here: kernels built with an invalid CLQSORT_TUNING on a new
    context) raises clqsort.Error with the status and the library's message; the keys stay."""
    monkeypatch.setenv("CLQSORT_TUNING", "gq_wg=3")
    fresh = cl.CommandQueue(cl.Context([queue.device]))
    a = np.arange(100, 0, -1, dtype=np.uint32)
    d = cla.to_device(fresh, a)
    with pytest.raises(clqsort.Error) as e:
        clqsort.sort(d)
    assert e.value.status == -10 and e.value.status_name == "CLQSORT_ERROR_INVALID_OPTION"
    assert "CLQSORT_TUNING" in e.value.message and "clqsort_sort_at" in e.value.message
    assert np.array_equal(d.get(), a)


def test_status_names_match_the_header():
    header = open(os.path.join(os.path.dirname(__file__), "..", "..", "include", "clqsort.h")).read()
    declared = {int(v): n for n, v in re.findall(r"(CLQSORT_(?:SUCCESS|ERROR_\w+)) = (-?\d+)", header)}
    assert declared == _lib.STATUS_NAMES


# ---- partial sorts, segments, stable sorts -------------------------------------------------------


def check_partial(out, pos, inp, k, descending=False, stable=False):
    """The first k keys those of the documented order, the whole a permutation with each value
    (input position) beside its key; stable: equal keys among the first k in input order."""
    out, pos, inp = np.asarray(out), np.asarray(pos).astype(np.int64), np.asarray(inp)
    u = UINT[inp.itemsize]
    assert np.array_equal(np.sort(pos), np.arange(inp.size)), "values are not a permutation of the positions"
    assert np.array_equal(out.view(u), inp[pos].view(u)), "a value left its key"
    ref = np.sort(order_key(inp))
    if descending:
        ref = ref[::-1]
    assert np.array_equal(order_key(out[:k]), ref[:k]), "the first k keys differ from the documented order's"
    if stable:
        same = out[1:k].view(u) == out[:k - 1].view(u) if k > 1 else np.zeros(0, bool)
        assert np.all(pos[1:k][same] > pos[:k - 1][same]), "equal keys left their input order"


def to_kind(queue, kind, *arrays):
    return arrays if kind == "numpy" else tuple(cla.to_device(queue, a) for a in arrays)


def back(a):
    return a if isinstance(a, np.ndarray) else a.get()


@PROPERTY
@given(data=st.data(), dtype=st.sampled_from(DTYPES), descending=st.booleans())
def test_numpy_partial_sort(data, dtype, descending):
    a = data.draw(keys_of(dtype))
    k = data.draw(st.integers(0, a.size))
    before = a.copy()
    out, pos = clqsort.partial_sort(a, k, np.arange(a.size, dtype=np.uint32), descending=descending)
    assert out is not a and np.array_equal(a.view(UINT[a.itemsize]), before.view(UINT[a.itemsize]))
    check_partial(out, pos, a, k, descending)


@pytest.mark.parametrize("kind", ["numpy", "pyopencl"])
@pytest.mark.parametrize("dtype", [np.uint32, np.float32, np.int64])
def test_partial_sort_sizes(queue, kind, dtype):
    """Sizes where 32-bit keys select their candidates first (k = 1, 100) and where they do not;
    duplicates, so that stable has order to keep (32-bit keys)."""
    rng = np.random.default_rng(21)
    n = 300_007
    a = rng.integers(0, 5000, n).astype(dtype)
    for k in (1, 100, 5000, n):
        stable = np.dtype(dtype).itemsize == 4 and k != 5000
        keys, pos = to_kind(queue, kind, a, np.arange(n, dtype=np.uint32))
        out = clqsort.partial_sort(keys, k, pos, stable=stable, descending=k == n)
        assert isinstance(out[0], type(keys))
        check_partial(back(out[0]), back(out[1]), a, k, k == n, stable)
    keys, = to_kind(queue, kind, a)
    out = clqsort.partial_sort(keys, 77)  # keys alone
    assert np.array_equal(order_key(back(out)[:77]), np.sort(order_key(a))[:77])


@pytest.mark.parametrize("kind", ["numpy", "pyopencl"])
@pytest.mark.parametrize("dtype,vdtype", [(np.uint32, np.uint32), (np.float64, np.int64), (np.int32, None)])
def test_sort_segments(queue, kind, dtype, vdtype):
    """Pareto lengths with empty segments, keys before the first and after the last untouched."""
    rng = np.random.default_rng(22)
    n = 100_003
    a = rng.integers(-1000, 1000, n).astype(dtype)
    lengths = np.minimum(rng.pareto(1.2, 20_000).astype(np.int64), 5000)
    ends = 5 + np.cumsum(lengths)
    offsets = np.concatenate([[5], ends[ends <= n - 3]]).astype(np.uint32)
    stable = np.dtype(dtype).itemsize == 4
    pos = np.arange(n, dtype=vdtype) if vdtype else None
    keys, offs = to_kind(queue, kind, a, offsets)
    vals = None if pos is None else to_kind(queue, kind, pos)[0]
    res = clqsort.sort_segments(keys, offs, vals, stable=stable)
    out, vout = (back(res[0]), back(res[1])) if vals is not None else (back(res), None)
    u = UINT[a.itemsize]
    assert np.array_equal(out[:offsets[0]].view(u), a[:offsets[0]].view(u)), "a key before the segments moved"
    assert np.array_equal(out[offsets[-1]:].view(u), a[offsets[-1]:].view(u)), "a key after the segments moved"
    for b, e in zip(offsets[:-1], offsets[1:]):
        seg, ref = out[b:e], a[b:e]
        assert np.array_equal(order_key(seg), np.sort(order_key(ref))), f"segment [{b}, {e}) is not sorted"
        if vout is not None:
            p = vout[b:e].astype(np.int64)
            assert np.array_equal(np.sort(p), np.arange(b, e)), f"values of [{b}, {e}) left their segment"
            assert np.array_equal(seg.view(u), a[p].view(u)), "a value left its key"
            if stable:
                same = seg[1:] == seg[:-1]
                assert np.all(p[1:][same] > p[:-1][same]), "equal keys left their input order"


@pytest.mark.parametrize("kind", ["numpy", "pyopencl"])
def test_argsort_stable(queue, kind):
    a = np.random.default_rng(23).integers(0, 50, 100_000).astype(np.float32)
    x, = to_kind(queue, kind, a)
    assert np.array_equal(back(clqsort.argsort(x, stable=True)), np.argsort(a, kind="stable"))


def test_errors_partial_and_segments(queue):
    a = np.arange(10, 0, -1, dtype=np.uint32)
    for bad in (-1, 11):
        with pytest.raises(ValueError, match="lies in"):
            clqsort.partial_sort(a, bad)
    with pytest.raises(TypeError, match="it is an int"):
        clqsort.partial_sort(a, 2.0)
    with pytest.raises(TypeError, match="offsets are uint32"):
        clqsort.sort_segments(a, np.array([0, 10], np.int64))
    with pytest.raises(TypeError, match="one kind"):
        clqsort.sort_segments(a, cla.to_device(queue, np.array([0, 10], np.uint32)))
    for kind in ("numpy", "pyopencl"):
        keys, offs = to_kind(queue, kind, a, np.array([0, 6, 3, 10], np.uint32))  # decreasing
        with pytest.raises(clqsort.Error) as e:
            clqsort.sort_segments(keys, offs)
        assert e.value.status_name == "CLQSORT_ERROR_INVALID_SEGMENTS" and "segment 1" in e.value.message
        assert np.array_equal(back(keys), a), "a refused call changed the keys"
        with pytest.raises(clqsort.Error) as e:
            clqsort.sort_by_key(*to_kind(queue, kind, np.arange(4, dtype=np.uint64), np.arange(4, dtype=np.uint32)),
                                stable=True)
        assert e.value.status_name == "CLQSORT_ERROR_UNSUPPORTED_TYPE"
