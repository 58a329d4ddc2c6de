"""The eight dtypes the device computes in, and numpy's promotion rules for them."""

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
}
SUPPORTED = tuple(CODES)


def check(dtype):
    """numpy dtype of `dtype`, or TypeError when the device has no such type."""
    try:
        d = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"data type {dtype!r} not understood") from None
    if d not in CODES:
        names = ", ".join(str(t) for t in SUPPORTED)
        raise TypeError(f"dtype {d} is not supported on the device (supported: {names})")
    return d


def code(dtype):
    return CODES[dtype]


_PROBES = {d: np.zeros(1, d) for d in SUPPORTED}


@functools.lru_cache(maxsize=None)
def result(ufunc_name, a, b=None):
    """The dtype numpy gives `ufunc(a_array, b_array)` (array-array promotion, as the kernels do)."""
    ufunc = getattr(np, ufunc_name)
    with np.errstate(all="ignore"):
        if b is None:
            return ufunc(_PROBES[a]).dtype
        return ufunc(_PROBES[a], _PROBES[b]).dtype


def scalar_dtype(array_dtype, value):
    """The dtype numpy 1.24 computes `array op python_scalar` in (value-based casting)."""
    if isinstance(value, (bool, np.bool_)):
        return np.result_type(array_dtype, np.bool_)
    return np.result_type(array_dtype, value)


@functools.lru_cache(maxsize=None)
def reduction(op, dtype):
    """The dtype of a reduction's result; the kernels' rule (sum of uint8 is int64: no uint64)."""
    if op in ("max", "min"):
        return dtype
    if op == "mean":
        return dtype if dtype.kind == "f" else np.dtype(np.float64)
    # sum
    if dtype.kind == "f":
        return dtype
    return np.dtype(np.int64)
