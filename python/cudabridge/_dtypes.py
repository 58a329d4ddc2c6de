"""The dtypes the device computes in, and numpy's promotion rules for them."""

import functools

import numpy as np

# numpy dtype -> the SDK's cb_dtype code (sdk/include/cudabridge/gpu.h).
CODES = {
    np.dtype(np.float32): 0,
    np.dtype(np.float64): 1,
    np.dtype(np.int32): 2,
    np.dtype(np.int64): 3,
    np.dtype(np.uint8): 4,
    np.dtype(np.int8): 5,
    np.dtype(np.int16): 6,
    np.dtype(np.bool_): 7,
    np.dtype(np.uint16): 8,
    np.dtype(np.uint32): 9,
    np.dtype(np.uint64): 10,
    np.dtype(np.float16): 11,
    np.dtype(np.complex64): 12,
    np.dtype(np.complex128): 13,
}
SUPPORTED = tuple(CODES)
# Every dtype an array holds is one of these objects (check() and the rules below return them),
# so the operators may key their caches by identity, without hashing a dtype on every call.
_CANONICAL = {d: d for d in CODES}


def check(dtype):
    """numpy dtype of `dtype`, or TypeError when the device has no such type."""
    try:
        d = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"data type {dtype!r} not understood") from None
    if d not in CODES:
        names = ", ".join(str(t) for t in SUPPORTED)
        raise TypeError(f"dtype {d} is not supported on the device (supported: {names})")
    return _CANONICAL[d]


def code(dtype):
    return CODES[dtype]


_PROBES = {d: np.zeros(1, d) for d in SUPPORTED}


@functools.lru_cache(maxsize=None)
def result(ufunc_name, a, b=None):
    """The dtype numpy gives `ufunc(a_array, b_array)` (array-array promotion, as the kernels do)."""
    ufunc = getattr(np, ufunc_name)
    with np.errstate(all="ignore"):
        d = ufunc(_PROBES[a]).dtype if b is None else ufunc(_PROBES[a], _PROBES[b]).dtype
    return _CANONICAL.get(d, d)


# (ufunc name, id(a), id(b)) -> (result dtype, its code, its itemsize), for canonical a and b:
# what an operator on two arrays needs, found with one lookup of a key that hashes cheaply.
OPERATOR_RESULTS = {}


# (reduction, id(dtype)) -> (result dtype, its code, its itemsize), the same for reductions.
REDUCTION_RESULTS = {}


# (ufunc name, id(dtype)) -> (result dtype, its code, its itemsize) of a device kernel `ufunc(a)`.
UNARY_RESULTS = {}


def remember_unary(ufunc_name, a, result_dtype):
    """Keeps the result of a unary kernel `ufunc_name` on canonical dtype `a` in UNARY_RESULTS."""
    if _canonical(a, result_dtype):
        UNARY_RESULTS[(ufunc_name, id(a))] = (result_dtype, CODES[result_dtype], result_dtype.itemsize)


def _canonical(*dtypes):
    """True when every dtype is one of the canonical objects, whose ids are never reused."""
    return all(_CANONICAL.get(d) is d for d in dtypes)


def operator_result(ufunc_name, a, b):
    """(dtype, code, itemsize) of `ufunc(a_array, b_array)`; remembered in OPERATOR_RESULTS."""
    d = result(ufunc_name, a, b)
    if d not in CODES:
        raise TypeError(f"{ufunc_name} of {a} and {b} gives {d}, which is not supported on the device")
    info = (d, CODES[d], d.itemsize)
    if _canonical(a, b):
        OPERATOR_RESULTS[(ufunc_name, id(a), id(b))] = info
    return info


def reduction_result(op, dtype):
    """(dtype, code, itemsize) of reduction `op` of a `dtype` array; remembered in
    REDUCTION_RESULTS."""
    d = reduction(op, dtype)
    info = (d, CODES[d], d.itemsize)
    if _canonical(dtype):
        REDUCTION_RESULTS[(op, id(dtype))] = info
    return info


def scalar_dtype(array_dtype, value):
    """The dtype numpy 1.24 computes `array op python_scalar` in (value-based casting)."""
    if isinstance(value, (bool, np.bool_)):
        return np.result_type(array_dtype, np.bool_)
    return np.result_type(array_dtype, value)


@functools.lru_cache(maxsize=None)
def reduction(op, dtype):
    """The dtype of a reduction's result, numpy's: sum and prod of unsigned integers are uint64, of
    signed integers and bool int64; mean of integers and bool is float64; floating and complex
    arrays keep their dtype."""
    if op in ("max", "min", "nanmax", "nanmin"):
        return _CANONICAL[dtype]
    if op == "mean":
        return _CANONICAL[dtype] if dtype.kind in "fc" else _CANONICAL[np.dtype(np.float64)]
    # sum, prod
    if dtype.kind in "fc":
        return _CANONICAL[dtype]
    return _CANONICAL[np.dtype(np.uint64 if dtype.kind == "u" else np.int64)]


def standard_accumulation(dtype, requested):
    """The dtype the array API standard (2022.12) gives sum, prod and trace of `dtype` when
    `requested` is None: float64 (complex128) for a narrower float (complex); otherwise numpy's."""
    if requested is not None or dtype.kind not in "fc":
        return requested
    return np.result_type(dtype, np.float64)
