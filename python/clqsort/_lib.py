"""The C library (libclqsort.so, installed next to this file) through ctypes.

Every function the package calls is declared here with its argument and result types, so that
ctypes converts and checks each argument; the statuses repeat include/clqsort.h (the tests compare
the two).
"""
import ctypes
import os

_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libclqsort.so")
try:
    lib = ctypes.CDLL(_path)
except OSError as e:  # the library or the OpenCL ICD loader it links (libOpenCL.so.1) is missing
    raise ImportError(f"clqsort: cannot load {_path}: {e}") from e

_ptr = ctypes.c_void_p
_size = ctypes.c_size_t
_int = ctypes.c_int  # the C enums (statuses, key types)
_uint = ctypes.c_uint


def _declare(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


create = _declare("clqsort_create", _int, ctypes.POINTER(_ptr), _ptr)
create_with_queue = _declare("clqsort_create_with_queue", _int, ctypes.POINTER(_ptr), _ptr, _ptr)
release = _declare("clqsort_release", None, _ptr)
# (ctx, keys, keys_offset, count, type, flags)
sort_at = _declare("clqsort_sort_at", _int, _ptr, _ptr, _size, _size, _int, _uint)
# (ctx, keys, keys_offset, values, values_offset, count, key_type, value_size, flags)
sort_pairs_at = _declare("clqsort_sort_pairs_at", _int, _ptr, _ptr, _size, _ptr, _size, _size, _int, _size, _uint)
# (ctx, keys, keys_offset, values, values_offset, count, key_type, value_size, k, flags)
partial_sort_at = _declare("clqsort_partial_sort", _int, _ptr, _ptr, _size, _ptr, _size, _size, _int, _size, _size, _uint)
# (ctx, keys, keys_offset, values, values_offset, count, key_type, value_size, begin, end, segments, flags)
sort_segments_at = _declare("clqsort_sort_segments", _int, _ptr, _ptr, _size, _ptr, _size, _size, _int, _size, _ptr, _ptr,
                            _size, _uint)
# (ctx, keys, values, count, key_type, value_size, k, flags)
partial_sort_host = _declare("clqsort_partial_sort_host", _int, _ptr, _ptr, _ptr, _size, _int, _size, _size, _uint)
# (ctx, keys, values, count, key_type, value_size, begin, end, segments, flags)
sort_segments_host = _declare("clqsort_sort_segments_host", _int, _ptr, _ptr, _ptr, _size, _int, _size, _ptr, _ptr,
                              _size, _uint)
# (ctx, keys, count, type, flags)
sort_host = _declare("clqsort_sort_host", _int, _ptr, _ptr, _size, _int, _uint)
# (ctx, keys, values, count, key_type, value_size, flags)
sort_pairs_host = _declare("clqsort_sort_pairs_host", _int, _ptr, _ptr, _ptr, _size, _int, _size, _uint)
last_error = _declare("clqsort_last_error", ctypes.c_char_p, _ptr)

SUCCESS = 0
MAX_COUNT = 2**32 - 1  # CLQSORT_MAX_COUNT
DESCENDING = 1  # CLQSORT_DESCENDING
STABLE = 2  # CLQSORT_STABLE

# clqsort_key_type, by NumPy (dtype.kind, dtype.itemsize)
KEY_TYPES = {("u", 4): 0, ("i", 4): 1, ("f", 4): 2, ("u", 8): 3, ("i", 8): 4, ("f", 8): 5}

STATUS_NAMES = {
    0: "CLQSORT_SUCCESS",
    -1: "CLQSORT_ERROR_INVALID_ARGUMENT",
    -2: "CLQSORT_ERROR_NULL_CONTEXT",
    -3: "CLQSORT_ERROR_NULL_BUFFER",
    -4: "CLQSORT_ERROR_INVALID_BUFFER",
    -5: "CLQSORT_ERROR_WRONG_CONTEXT",
    -6: "CLQSORT_ERROR_BUFFER_ACCESS",
    -7: "CLQSORT_ERROR_COUNT_EXCEEDS_BUFFER",
    -8: "CLQSORT_ERROR_COUNT_TOO_LARGE",
    -9: "CLQSORT_ERROR_UNSUPPORTED_TYPE",
    -10: "CLQSORT_ERROR_INVALID_OPTION",
    -11: "CLQSORT_ERROR_NO_DEVICE",
    -12: "CLQSORT_ERROR_PATH_UNSUPPORTED",
    -13: "CLQSORT_ERROR_INVALID_QUEUE",
    -14: "CLQSORT_ERROR_BUILD",
    -15: "CLQSORT_ERROR_OUT_OF_MEMORY",
    -16: "CLQSORT_ERROR_OPENCL",
    -17: "CLQSORT_ERROR_INTERNAL",
    -18: "CLQSORT_ERROR_OVERLAPPING_BUFFERS",
    -19: "CLQSORT_ERROR_CONTEXT_BUSY",
    -20: "CLQSORT_ERROR_INVALID_SEGMENTS",
}
