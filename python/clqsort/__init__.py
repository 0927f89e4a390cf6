"""clqsort: GPU-Quicksort on OpenCL devices, for PyOpenCL and NumPy arrays.

    sort(a, *, descending=False)                               the keys, sorted
    argsort(a, *, descending=False, stable=False)              the uint32 positions that sort `a`
    sort_by_key(keys, values, *, descending=False, stable=False)
                                                               keys sorted, values moved with them
    partial_sort(keys, k, values=None, *, descending=False, stable=False)
                                                               the k smallest sorted at the front
    sort_segments(keys, offsets, values=None, *, descending=False, stable=False)
                                                               each segment sorted on its own

A ``pyopencl.array.Array`` is sorted in place on its own queue and context and returned; a
``numpy.ndarray`` gives new arrays, sorted on the device that the ``CLQSORT_*`` environment
variables choose (as for the C library: the first GPU, else the first device).

Keys are uint32, int32, float32, uint64, int64 or float64, 1-D and contiguous, at most
``MAX_COUNT`` of them, in the C library's order: integers by value; floats
``-inf < negatives < -0.0 < +0.0 < positives < +inf < NaN``, every bit pattern kept;
``descending=True`` is the exact reverse. Sorting is not stable unless ``stable=True`` (32-bit
keys only): equal keys, and the values beside them, come out in no promised order.

Bad arguments raise ``TypeError`` or ``ValueError`` before any data is touched; a failure of the
library raises ``clqsort.Error`` with its status and message.

    release(queue=None)                              give back what is kept for a queue (or all)

One clqsort context (with its device scratch) is kept per PyOpenCL queue that sorted; see
``release`` for when it goes.
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import threading
from collections import OrderedDict
from typing import Any, Callable, Iterator, Optional, Tuple, TypeVar

import numpy as np

from . import _lib

__all__ = ["sort", "argsort", "sort_by_key", "partial_sort", "sort_segments", "release", "Error", "MAX_COUNT"]
__version__ = "0.1.0"

MAX_COUNT: int = _lib.MAX_COUNT
"""The most keys one call sorts (2**32 - 1): positions are 32-bit on the device."""

try:  # PyOpenCL is optional: NumPy arrays need only the C library
    import pyopencl as _cl
    import pyopencl.array as _cla
except ImportError:  # pragma: no cover - exercised where PyOpenCL is absent
    _cl = None
    _cla = None

A = TypeVar("A")  # numpy.ndarray or pyopencl.array.Array: what goes in comes out


class Error(RuntimeError):
    """A failure of the C library.

    Attributes: ``status`` (the ``clqsort_status`` value, negative), ``status_name``
    (``"CLQSORT_ERROR_..."``) and ``message`` (the library's message, naming the cause).
    """

    def __init__(self, status: int, message: str):
        self.status = status
        self.status_name = _lib.STATUS_NAMES.get(status, "unknown status")
        self.message = message
        super().__init__(f"{self.status_name} ({status}): {message}")


# ---- contexts: one per (OpenCL context, queue), and one for NumPy arrays --------------------


class _Context:
    """A clqsort context, and the lock that keeps its calls one at a time (the C library refuses
    a context that another thread is inside of)."""

    def __init__(self, handle: ctypes.c_void_p, queue: Any = None):
        self.handle = handle
        self.lock = threading.Lock()
        # The event a sort adds to its arrays: the C call returns once the keys are sorted, so the
        # sort's event is complete by then; one complete user event serves every call (an
        # enqueued marker would cost the next call a wake-up of the runtime's queue thread).
        self.done = None
        if queue is not None:
            self.done = _cl.UserEvent(queue.context)
            self.done.set_status(_cl.command_execution_status.COMPLETE)

    def check(self, status: int) -> None:
        if status != _lib.SUCCESS:
            raise Error(status, _lib.last_error(self.handle).decode("utf-8", "replace"))


_contexts: "OrderedDict[Tuple[int, int], _Context]" = OrderedDict()
_numpy_context: Optional[_Context] = None
_contexts_lock = threading.Lock()


def _created(status: int, handle: ctypes.c_void_p, queue: Any = None) -> _Context:
    if status != _lib.SUCCESS:
        raise Error(status, _lib.last_error(None).decode("utf-8", "replace"))
    return _Context(handle, queue)


def _drop(c: _Context) -> None:
    """Release a context taken out of the cache; waits for a sort running in it. A thread that
    looked it up before sees handle None under the lock and looks again (_using)."""
    with c.lock:
        if c.handle is not None:
            _lib.release(c.handle)
            c.handle = None
            c.done = None


KEPT_QUEUES: int = 8
"""The most queues whose contexts are kept at once; the least recently used goes first."""


def _context_of_queue(queue: Any) -> _Context:
    # PyOpenCL's queue objects cannot be watched with weakref, and OpenCL's reference counts are
    # not meant for deciding anything (runtimes hold references of their own), so a context
    # cannot learn that its queue is gone: the cache is bounded instead, and release() is there.
    key = (queue.context.int_ptr, queue.int_ptr)
    evicted = []
    with _contexts_lock:
        c = _contexts.get(key)
        if c is None:
            handle = ctypes.c_void_p()
            c = _contexts[key] = _created(_lib.create_with_queue(ctypes.byref(handle), queue.int_ptr, None), handle,
                                          queue)
            while len(_contexts) > KEPT_QUEUES:
                evicted.append(_contexts.pop(next(iter(_contexts))))
        else:
            _contexts.move_to_end(key)
    for old in evicted:
        _drop(old)
    return c


def _context_of_numpy() -> _Context:
    global _numpy_context
    with _contexts_lock:
        if _numpy_context is None:
            handle = ctypes.c_void_p()
            _numpy_context = _created(_lib.create(ctypes.byref(handle), None), handle)
        return _numpy_context


@contextlib.contextmanager
def _using(find: Callable[[], _Context]) -> Iterator[_Context]:
    """The context that find() gives, locked, and one that is not released meanwhile."""
    while True:
        c = find()
        with c.lock:
            if c.handle is not None:
                yield c
                return


def release(queue: Any = None) -> None:
    """Release what clqsort keeps for ``queue`` (a ``pyopencl.CommandQueue``): its clqsort
    context, the device scratch sized for the largest sort so far, and its references to the
    queue and its OpenCL context. With no argument: every context kept, the one for NumPy arrays
    too. A sort running in another thread finishes first; the next sort makes a new context.

    A context is made on a queue's first sort and kept for the next ones: for the last
    ``KEPT_QUEUES`` queues that sorted (a sort on a ninth releases the context of the one used
    longest ago), until this call, or until exit. clqsort cannot see a queue object go, so a
    program that makes a queue per task and lets it go should call this when the task ends.
    """
    global _numpy_context
    with _contexts_lock:
        if queue is None:
            gone = list(_contexts.values()) + ([_numpy_context] if _numpy_context is not None else [])
            _contexts.clear()
            _numpy_context = None
        else:
            c = _contexts.pop((queue.context.int_ptr, queue.int_ptr), None)
            gone = [c] if c is not None else []
    for c in gone:
        _drop(c)


atexit.register(release)


# ---- arguments ------------------------------------------------------------------------------


def _is_device_array(a: Any) -> bool:
    return _cla is not None and isinstance(a, _cla.Array)


def _kind(a: Any, what: str) -> str:
    if isinstance(a, np.ndarray):
        return "numpy"
    if _is_device_array(a):
        return "pyopencl"
    raise TypeError(f"{what} is a {type(a).__module__}.{type(a).__qualname__}; clqsort sorts numpy.ndarray and "
                    "pyopencl.array.Array objects")


def _key_type(dtype: np.dtype, what: str) -> int:
    t = _lib.KEY_TYPES.get((dtype.kind, dtype.itemsize))
    if t is None or not dtype.isnative:
        raise TypeError(f"{what} has dtype {dtype.str!r} ({dtype}); keys are uint32, int32, float32, uint64, int64 "
                        "or float64, in native byte order")
    return t


def _value_size(dtype: np.dtype, what: str) -> int:
    if dtype.itemsize not in (4, 8) or dtype.hasobject:
        raise TypeError(f"{what} has dtype {dtype} of {dtype.itemsize} bytes; values are 4 or 8 bytes each, "
                        "without Python objects")
    return dtype.itemsize


def _check_shape(a: Any, what: str) -> None:
    if a.ndim != 1:
        raise ValueError(f"{what} is {a.ndim}-dimensional (shape {a.shape}); clqsort sorts 1-D arrays")
    if a.size > MAX_COUNT:
        raise ValueError(f"{what} holds {a.size} elements; clqsort sorts at most {MAX_COUNT}")
    if not a.flags.c_contiguous:
        raise ValueError(f"{what} is not contiguous (strides {a.strides}); sort a contiguous copy")


def _element_offset(a: Any, what: str) -> int:
    if a.offset % a.dtype.itemsize:
        raise ValueError(f"{what} starts {a.offset} bytes into its buffer, not at a whole element")
    return a.offset // a.dtype.itemsize


def _buffer_of(a: Any, what: str) -> Any:
    if a.base_data is None and a.size == 0:  # PyOpenCL allocates nothing for an empty array
        return None
    if not isinstance(a.base_data, _cl.MemoryObjectHolder):
        raise TypeError(f"{what} lives in {type(a.base_data).__name__}, not in an OpenCL buffer; clqsort sorts "
                        "arrays of buffers (not shared virtual memory)")
    return a.base_data


def _queue_of(a: Any, what: str) -> Any:
    if a.queue is None:
        raise ValueError(f"{what} has no queue; set its queue (a.with_queue(queue)) to sort it")
    return a.queue


def _wait(c: _Context, queue: Any, arrays: Tuple[Any, ...]) -> None:
    """Wait for the arrays' events but the sorts' own (complete) and those of `queue` itself: the
    sort runs on that queue, which is in-order (the C library refuses others), so they are done
    before it starts anyway."""
    mine = queue.int_ptr
    events = [e for a in arrays for e in a.events
              if e is not c.done and (e.command_queue is None or e.command_queue.int_ptr != mine)]
    if events:
        _cl.wait_for_events(events)


def _mark(c: _Context, arrays: Tuple[Any, ...]) -> None:
    """The sort's event, added to the arrays as PyOpenCL's own operations do."""
    for a in arrays:
        a.add_event(c.done)


# ---- the calls ------------------------------------------------------------------------------


def _keys_of(keys: Any, what: str = "keys") -> Tuple[str, int]:
    """The checks of the keys that every call makes first; returns their kind and key type."""
    kind = _kind(keys, what)
    key_type = _key_type(keys.dtype, what)
    _check_shape(keys, what)
    return kind, key_type


def sort(a: A, *, descending: bool = False) -> A:
    """Sort the 1-D array ``a`` of uint32, int32, float32, uint64, int64 or float64 keys.

    A ``pyopencl.array.Array`` (a slice of a larger one too) is sorted in place on its own queue
    and returned, after the events it carries; the sort's event is added to it (complete: the
    call returns once the keys are sorted). A
    ``numpy.ndarray`` is left as it is and a sorted copy is returned, like ``numpy.sort``.
    ``descending=True`` sorts from largest to smallest. Floats: -0.0 before +0.0, NaNs last.

    Raises TypeError (not an array of those dtypes, or not in an OpenCL buffer), ValueError (not
    1-D and contiguous, more than ``MAX_COUNT`` keys, or no queue) and clqsort.Error (the library
    failed).
    """
    kind, key_type = _keys_of(a, "the array")
    flags = _lib.DESCENDING if descending else 0
    if kind == "numpy":
        out = np.array(a, copy=True)
        if out.size >= 2:
            with _using(_context_of_numpy) as c:
                c.check(_lib.sort_host(c.handle, out.ctypes.data, out.size, key_type, flags))
        return out
    queue = _queue_of(a, "the array")
    buffer = _buffer_of(a, "the array")
    offset = _element_offset(a, "the array")
    if a.size < 2:
        return a
    with _using(lambda: _context_of_queue(queue)) as c:
        _wait(c, queue, (a,))
        c.check(_lib.sort_at(c.handle, buffer.int_ptr, offset, a.size, key_type, flags))
        _mark(c, (a,))
    return a


def _flags(descending: bool, stable: bool) -> int:
    return (_lib.DESCENDING if descending else 0) | (_lib.STABLE if stable else 0)


def _check_values(keys: Any, values: Any, kind: str) -> int:
    """The checks of values beside keys (both already of kind `kind`); returns the value size."""
    if _kind(values, "values") != kind:
        raise TypeError(f"keys is a {type(keys).__name__} and values a {type(values).__name__}; give two NumPy "
                        "arrays or two PyOpenCL arrays")
    value_size = _value_size(values.dtype, "values")
    _check_shape(values, "values")
    if keys.size != values.size:
        raise ValueError(f"keys holds {keys.size} elements and values {values.size}; they must be as many")
    if kind == "pyopencl":
        if keys.context.int_ptr != values.context.int_ptr:
            raise ValueError("keys and values belong to different OpenCL contexts")
        kbuf, vbuf = _buffer_of(keys, "keys"), _buffer_of(values, "values")
        if (keys.size and kbuf.int_ptr == vbuf.int_ptr and keys.offset < values.offset + values.nbytes
                and values.offset < keys.offset + keys.nbytes):
            raise ValueError(f"keys (bytes {keys.offset}..{keys.offset + keys.nbytes}) and values (bytes "
                             f"{values.offset}..{values.offset + values.nbytes}) overlap in one buffer")
    return value_size


def _unchanged(keys: Any, values: Any, kind: str) -> Any:
    """What a call with nothing to sort returns: copies of NumPy arrays, PyOpenCL arrays as they are."""
    if kind == "numpy":
        keys = np.array(keys, copy=True)
        values = None if values is None else np.array(values, copy=True)
    return keys if values is None else (keys, values)


def _run(keys: Any, values: Any, kind: str, on_host: Callable[..., int], on_device: Callable[..., int],
         extra: Tuple[Any, ...] = ()) -> Any:
    """Runs a sort of keys (and values, or None): NumPy arrays as copies through
    on_host(handle, keys_ptr, values_ptr), PyOpenCL arrays in place through
    on_device(handle, kbuf, koff, vbuf, voff) on the keys' queue after the events of the arrays and
    of `extra` (more arrays the sort reads). Returns what the public call returns."""
    if kind == "numpy":
        k = np.array(keys, copy=True)
        v = None if values is None else np.array(values, copy=True)
        with _using(_context_of_numpy) as c:
            c.check(on_host(c.handle, k.ctypes.data, None if v is None else v.ctypes.data))
        return k if v is None else (k, v)
    queue = _queue_of(keys, "keys")
    kbuf = _buffer_of(keys, "keys")
    vbuf = None if values is None else _buffer_of(values, "values")
    koff = _element_offset(keys, "keys")
    voff = 0 if values is None else _element_offset(values, "values")
    if keys.size == 0:  # PyOpenCL allocates no buffer to name: nothing to sort or check on the device
        return _unchanged(keys, values, kind)
    arrays = (keys,) + (() if values is None else (values,))
    with _using(lambda: _context_of_queue(queue)) as c:
        _wait(c, queue, arrays + extra)
        c.check(on_device(c.handle, kbuf.int_ptr, koff,
                          None if vbuf is None else vbuf.int_ptr, voff))
        _mark(c, arrays + extra)
    return keys if values is None else (keys, values)


def sort_by_key(keys: A, values: A, *, descending: bool = False, stable: bool = False) -> Tuple[A, A]:
    """Sort ``keys`` and move each element of ``values`` with its key.

    ``keys`` as for ``sort``; ``values`` an array of the same kind and length with elements of 4
    or 8 bytes (any such dtype). PyOpenCL arrays (of one context) are sorted in place on the
    keys' queue and returned; NumPy arrays are left as they are and sorted copies are returned.
    Values of equal keys come out in no promised order; with ``stable=True`` (32-bit keys) in
    their input order.

    Raises TypeError (kinds or dtypes, arrays not in OpenCL buffers), ValueError (shape, lengths
    that differ, contexts that differ, keys and values overlapping in one buffer, too many keys)
    and clqsort.Error (the library failed, or ``stable=True`` with 64-bit keys:
    CLQSORT_ERROR_UNSUPPORTED_TYPE).
    """
    kind, key_type = _keys_of(keys)
    value_size = _check_values(keys, values, kind)
    flags = _flags(descending, stable)
    n = keys.size
    return _run(keys, values, kind,
                lambda h, k, v: _lib.sort_pairs_host(h, k, v, n, key_type, value_size, flags),
                lambda h, kb, ko, vb, vo: _lib.sort_pairs_at(h, kb, ko, vb, vo, n, key_type, value_size, flags))


def partial_sort(keys: A, k: int, values: Optional[A] = None, *, descending: bool = False,
                 stable: bool = False) -> Any:
    """Leave the ``k`` smallest keys (largest with ``descending=True``) sorted at the front of
    ``keys`` and the others after them in no promised order, the whole a permutation of the
    input; ``values`` (optional, as for ``sort_by_key``) move with their keys.

    Like ``torch.topk(sorted=True)`` or ``numpy.partition`` followed by a sort of the front, in
    one call: ``partial_sort(a, k)[:k]`` is ``sort(a)[:k]``. PyOpenCL arrays are sorted in place
    and returned, NumPy arrays left as they are with the result in copies; with values the call
    returns ``(keys, values)``. ``stable=True`` (32-bit keys) keeps equal keys among the first
    ``k`` in input order. 0 <= k <= len(keys).

    Raises as ``sort_by_key`` does, and ValueError for k outside [0, len(keys)].
    """
    kind, key_type = _keys_of(keys)
    value_size = 0 if values is None else _check_values(keys, values, kind)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k is a {type(k).__name__}; it is an int")
    if not 0 <= k <= keys.size:
        raise ValueError(f"k is {k}; it lies in [0, {keys.size}] for {keys.size} keys")
    flags = _flags(descending, stable)
    n, k = keys.size, int(k)
    return _run(keys, values, kind,
                lambda h, kp, vp: _lib.partial_sort_host(h, kp, vp, n, key_type, value_size, k, flags),
                lambda h, kb, ko, vb, vo: _lib.partial_sort_at(h, kb, ko, vb, vo, n, key_type, value_size, k, flags))


def sort_segments(keys: A, offsets: A, values: Optional[A] = None, *, descending: bool = False,
                  stable: bool = False) -> Any:
    """Sort each segment ``keys[offsets[i]:offsets[i + 1]]`` on its own, in one call.

    ``offsets`` is a 1-D uint32 array of the same kind as ``keys`` (for PyOpenCL, of the same
    context), nondecreasing, within ``[0, len(keys)]``: ``len(offsets) - 1`` segments; keys before
    ``offsets[0]`` and after ``offsets[-1]`` stay where they are, and so do their values.
    ``values`` (optional) as for ``sort_by_key``. PyOpenCL arrays are sorted in place and
    returned, NumPy arrays left as they are with the result in copies; with values the call
    returns ``(keys, values)``; with no keys in PyOpenCL arrays (which have no buffer then) nothing
    is read or checked. A 2-D NumPy array ``a`` of rows sorts row by row as
    ``sort_segments(a.ravel(), np.arange(0, a.size + 1, a.shape[1], dtype=np.uint32))``.

    Raises as ``sort_by_key`` does, TypeError for offsets that are not uint32 or not of the keys'
    kind, and clqsort.Error with status CLQSORT_ERROR_INVALID_SEGMENTS for offsets that decrease
    or pass the end (found by the device; nothing is changed).
    """
    kind, key_type = _keys_of(keys)
    value_size = 0 if values is None else _check_values(keys, values, kind)
    if _kind(offsets, "offsets") != kind:
        raise TypeError(f"keys is a {type(keys).__name__} and offsets a {type(offsets).__name__}; give arrays of "
                        "one kind")
    if offsets.dtype != np.uint32:
        raise TypeError(f"offsets has dtype {offsets.dtype}; offsets are uint32")
    _check_shape(offsets, "offsets")
    if offsets.size == 0:
        raise ValueError("offsets is empty; it holds one offset more than there are segments")
    segments = offsets.size - 1
    flags = _flags(descending, stable)
    n = keys.size
    if kind == "numpy":
        offs = np.ascontiguousarray(offsets)
        return _run(keys, values, kind,
                    lambda h, kp, vp: _lib.sort_segments_host(h, kp, vp, n, key_type, value_size, offs.ctypes.data, None,
                                                              segments, flags),
                    None)
    if offsets.context.int_ptr != keys.context.int_ptr:
        raise ValueError("keys and offsets belong to different OpenCL contexts")
    obuf = _buffer_of(offsets, "offsets")
    if _element_offset(offsets, "offsets"):
        raise ValueError("offsets starts inside its buffer; the library reads offsets from a buffer's first byte "
                         "(pass a copy)")
    return _run(keys, values, kind, None,
                lambda h, kb, ko, vb, vo: _lib.sort_segments_at(h, kb, ko, vb, vo, n, key_type, value_size,
                                                                obuf.int_ptr, None, segments, flags),
                (offsets,))


def argsort(a: A, *, descending: bool = False, stable: bool = False) -> A:
    """The positions (uint32) that sort ``a``: ``a[argsort(a)]`` is ``sort(a)``.

    Returns the same kind of array as ``a`` (a PyOpenCL array on ``a``'s queue); ``a`` itself is
    unchanged. Positions of equal keys come out in no promised order; with ``stable=True``
    (32-bit keys) in increasing order, as ``numpy.argsort(kind="stable")``. Raises as ``sort``
    does.
    """
    kind = _kind(a, "the array")
    _key_type(a.dtype, "the array")
    _check_shape(a, "the array")
    if kind == "numpy":
        return sort_by_key(a, np.arange(a.size, dtype=np.uint32), descending=descending, stable=stable)[1]
    queue = _queue_of(a, "the array")
    _buffer_of(a, "the array")
    positions = _cla.arange(queue, a.size, dtype=np.uint32)
    sort_by_key(a.copy(queue=queue), positions, descending=descending, stable=stable)
    return positions
