"""Making arrays on the device as numpy 1.24 does: ranges, identity matrices and the *_like family.
Values are written by the device's kernels (arange, fill, cast); nothing is computed on the host
and uploaded."""

import math
import numbers
import operator

import numpy as np

from . import _dtypes
from ._array import _fill, _launch, full, ndarray
from ._linalg import diagonal


def _number(x, what):
    if isinstance(x, ndarray):
        if x.ndim:
            raise TypeError(f"{what} must be a number, not an array of shape {x.shape}")
        x = x.item()
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Real, np.number)):
        raise TypeError(f"{what} must be a real number, not {type(x).__name__}")
    return x.item() if isinstance(x, np.generic) else x


def arange(start, stop=None, step=1, dtype=None):
    """Evenly spaced values in [start, stop), as numpy.arange (int64 for integers, float64 otherwise)."""
    if stop is None:
        start, stop = 0, start
    start, stop, step = _number(start, "start"), _number(stop, "stop"), _number(step, "step")
    if step == 0:
        raise ZeroDivisionError("arange: step must not be zero")
    length = max(0, math.ceil((stop - start) / step))
    if dtype is None:
        dtype = np.result_type(start, stop, step)
    dtype = _dtypes.check(dtype)
    out = ndarray._new((length,), dtype)
    if length:
        _launch("arange", out, [out], [start, step])
    return out


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced values from start to stop (inclusive with endpoint), as numpy.linspace."""
    if axis != 0:
        raise NotImplementedError("linspace: only axis=0 is supported")
    start, stop = _number(start, "start"), _number(stop, "stop")
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else float("nan")
    result_dtype = _dtypes.check(np.result_type(start, stop, 1.0) if dtype is None else dtype)
    values = ndarray._new((num,), np.dtype(np.float64))
    if num:
        _launch("arange", values, [values], [float(start), 0.0 if div <= 0 else float(step)])
    if endpoint and num > 1:
        _fill(values[num - 1:], float(stop))  # exactly `stop`, as numpy's last sample is
    out = values if result_dtype == values.dtype else values.astype(result_dtype)
    return (out, step) if retstep else out


def eye(N, M=None, k=0, dtype=np.float64):
    """A 2-D array with ones on the k-th diagonal and zeros elsewhere."""
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    k = operator.index(k)
    out = full((N, M), 0, dtype)
    ones = diagonal(out, k)
    if ones.size:
        _fill(ones, 1)
    return out


def identity(n, dtype=np.float64):
    return eye(n, dtype=dtype)


def empty_like(a, dtype=None, shape=None):
    """An uninitialized device array with the shape and dtype of `a` (unless given)."""
    if not isinstance(a, ndarray):
        a = np.asarray(a)
    return ndarray(a.shape if shape is None else shape, a.dtype if dtype is None else dtype)


def full_like(a, fill_value, dtype=None, shape=None):
    out = empty_like(a, dtype, shape)
    _fill(out, fill_value)
    return out


def zeros_like(a, dtype=None, shape=None):
    return full_like(a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None):
    return full_like(a, 1, dtype, shape)
