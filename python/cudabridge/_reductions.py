"""numpy's reduction functions over the device's reduction kernels, with numpy's dtype= and out=
(np.sum(x, dtype=...) and x.sum(out=...) alike)."""

import numpy as np

from . import _dtypes
from ._array import _launch, _reduce, asarray, ndarray, to_device

_NO_VALUE = np._NoValue


def _store(result, out, op):
    """Writes a reduction's result into out= (cast to its dtype, as numpy does)."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError("out must be a single array")
        out = out[0]
    if not isinstance(out, ndarray):
        raise TypeError(f"{op}: out must be a cudabridge.ndarray, not {type(out).__name__}")
    if out.shape != result.shape:
        raise ValueError(f"output parameter for reduction operation {op} has the wrong shape {out.shape}; "
                         f"the result has shape {result.shape}")
    _launch("cast", out, [result, out])
    return out


def _run(op, a, axis, dtype, out, keepdims, initial=_NO_VALUE, where=_NO_VALUE):
    if initial is not _NO_VALUE or where is not _NO_VALUE:
        raise TypeError(f"{op}: initial= and where= are not supported on the device")
    if keepdims is _NO_VALUE:
        keepdims = False
    a = asarray(a)
    if dtype is not None:
        dtype = _dtypes.check(dtype)
        if dtype != a.dtype:
            a = a.astype(dtype)  # numpy accumulates in dtype; the kernels then accumulate as they do for it
    result = _reduce(op, a, axis, keepdims)
    if dtype is not None and result.dtype != dtype:
        result = result.astype(dtype)
    return result if out is None else _store(result, out, op)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    return _run("sum", a, axis, dtype, out, keepdims, initial, where)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=_NO_VALUE):
    return _run("mean", a, axis, dtype, out, keepdims, where=where)


def max(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    return _run("max", a, axis, None, out, keepdims, initial, where)


def min(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    return _run("min", a, axis, None, out, keepdims, initial, where)


amax, amin = max, min


def _logical(op, a, axis, out, keepdims):
    """any / all as max / min of the array cast to bool (NaN counts as True, as numpy's)."""
    a = asarray(a)
    if keepdims is _NO_VALUE:
        keepdims = False
    flags = a if a.dtype == np.bool_ else a.astype(np.bool_)
    if a.size == 0:  # no data: numpy's answer (True for all, False for any) over an empty stand-in
        empty = np.empty(a.shape, np.bool_)
        result = to_device(np.asarray(getattr(np, op)(empty, axis=axis, keepdims=keepdims)))
    else:
        result = _reduce("min" if op == "all" else "max", flags, axis, keepdims)
    return result if out is None else _store(result, out, op)


def any(a, axis=None, out=None, keepdims=False, where=_NO_VALUE):
    if where is not _NO_VALUE:
        raise TypeError("any: where= is not supported on the device")
    return _logical("any", a, axis, out, keepdims)


def all(a, axis=None, out=None, keepdims=False, where=_NO_VALUE):
    if where is not _NO_VALUE:
        raise TypeError("all: where= is not supported on the device")
    return _logical("all", a, axis, out, keepdims)


def array_equal(a1, a2, equal_nan=False):
    """True when both have the same shape and elements (compared on the device)."""
    if equal_nan:
        raise TypeError("array_equal: equal_nan=True is not supported on the device")
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape != a2.shape:
        return False
    return bool(all(a1 == a2))


_BY_NAME = {"sum": sum, "mean": mean, "max": max, "min": min, "any": any, "all": all}


def by_name(op, a, axis=None, **kwargs):
    """The reduction `op` (ufunc.reduce's target) with numpy's keyword arguments."""
    return _BY_NAME[op](a, axis=axis, **kwargs)
