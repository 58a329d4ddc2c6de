"""numpy's reduction functions over the device's reduction kernels, with numpy's dtype= and out=
(np.sum(x, dtype=...) and x.sum(out=...) alike)."""

import builtins
import functools
import math
import warnings

import numpy as np

from . import _complex, _dtypes
from ._array import _axis, _binary, _launch_elementwise, _reduce, _unary, asarray, full, ndarray, to_device

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
    _launch_elementwise("cast", out, [result, out])
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
    a = asarray(a)
    if a.dtype.kind == "c" and initial is _NO_VALUE and where is _NO_VALUE:
        return _complex_extreme("max", a, axis, out, keepdims)
    return _run("max", a, axis, None, out, keepdims, initial, where)


def min(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    a = asarray(a)
    if a.dtype.kind == "c" and initial is _NO_VALUE and where is _NO_VALUE:
        return _complex_extreme("min", a, axis, out, keepdims)
    return _run("min", a, axis, None, out, keepdims, initial, where)


def _complex_extreme(op, a, axis, out, keepdims):
    """max / min of a complex array in numpy's order: the reduced axes moved last as one, the
    element argmax (argmin) picks there."""
    keepdims = _keep(keepdims)
    axes = _axes_of(axis, a.ndim)
    if builtins.any(a.shape[x] == 0 for x in axes):  # numpy's ValueError, from an empty stand-in
        getattr(np, op)(np.empty(a.shape, a.dtype), axis=axis)
    from ._manipulation import moveaxis
    from ._shaping import _gather
    kept = [d for d in range(a.ndim) if d not in axes]
    moved = moveaxis(a, list(axes), list(range(len(kept), a.ndim))) if axes else a
    rows = moved.reshape(tuple(a.shape[d] for d in kept) + (-1,))
    picked = _gather(rows, _arg(op, rows, rows.ndim - 1, None, True), rows.ndim - 1)
    result = picked.reshape(_reduced_shape(a.shape, axes, keepdims))
    return result if out is None else _store(result, out, op)


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


def _keep(keepdims):
    return False if keepdims is _NO_VALUE else keepdims


def _axes_of(axis, ndim):
    """The reduced axes, sorted, as numpy checks them (AxisError, duplicates)."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        axes = tuple(sorted({_axis(x, ndim) for x in axis}))
        if len(axes) != len(axis):
            raise ValueError("duplicate value in 'axis'")
        return axes
    return (_axis(axis, ndim),)


def _reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    """numpy.prod: the device's multiply reduction (int64 for integers and bool, wrapping)."""
    a = asarray(a)
    axes = _axes_of(axis, a.ndim)
    if initial is _NO_VALUE and where is _NO_VALUE and builtins.any(a.shape[x] == 0 for x in axes):
        # The product of nothing is 1 (the device kernels are only asked about non-empty runs).
        d = _dtypes.check(dtype) if dtype is not None else _dtypes.reduction("prod", a.dtype)
        result = full(_reduced_shape(a.shape, axes, _keep(keepdims)), 1, d)
        return result if out is None else _store(result, out, "prod")
    return _run("prod", a, axis, dtype, out, keepdims, initial, where)


def _arg(op, a, axis, out, keepdims):
    """argmax / argmin on the device: the slice's max (min), the positions holding it (or a NaN,
    which max and min propagate, so the first NaN wins as in numpy), and the smallest such index
    (n elsewhere) as an int64 min reduction."""
    a = asarray(a)
    keepdims = _keep(keepdims)
    if axis is None:
        flat = a.ravel()
        result = _arg(op, flat, 0, None, False)
        if keepdims:
            result = result.reshape((1,) * a.ndim)
        return result if out is None else _store(result, out, "arg" + op)
    ax = _axis(axis, a.ndim) if a.ndim else None
    if a.ndim == 0:
        if axis not in (0, -1):
            raise np.AxisError(axis, 0)
        result = full((), 0, np.int64)
        return result if out is None else _store(result, out, "arg" + op)
    n = a.shape[ax]
    if n == 0:
        raise ValueError(f"attempt to get arg{op} of an empty sequence")
    if a.ndim == 1 and n >= _ARG_BLOCKED_FROM and a.dtype.kind != "c" and a.is_contiguous:
        result = _arg_blocked(op, a)
        if keepdims:
            result = result.reshape((1,))
        return result if out is None else _store(result, out, "arg" + op)
    k = _row_block(n) if ax == a.ndim - 1 and a.dtype.kind != "c" and a.is_contiguous else None
    if k:
        result = _arg_rows_blocked(op, a.reshape(-1, n), k).reshape(_reduced_shape(a.shape, (ax,), keepdims))
        return result if out is None else _store(result, out, "arg" + op)
    if a.dtype.kind == "c":
        hit = _complex.extreme_hits(op, a, ax)
    else:
        hit = _binary("equal", a, _reduce(op, a, ax, True))
        if a.dtype.kind == "f":
            hit = _binary("logical_or", hit, _unary("isnan", a))
    from ._creation import arange
    from ._indexing import where
    # int32 positions where they fit: the full-size array of them is half the bytes to write and
    # reduce; the (reduced) result is widened to numpy's int64.
    wide = np.int64 if n >= 2**31 - 1 else np.int32
    index = arange(n, dtype=wide).reshape((n,) + (1,) * (a.ndim - ax - 1))
    result = _reduce("min", where(hit, index, wide(n)), ax, keepdims).astype(np.int64)
    return result if out is None else _store(result, out, "arg" + op)


_ARG_BLOCK = 4096  # elements per block of _arg_blocked's two-level search
_ARG_BLOCKED_FROM = 1 << 16
_ARG_BLOCKED_ROWS_FROM = 1 << 12  # rows at least this long, along the last axis


def _arg_blocked(op, a):
    """arg{op} of a long contiguous 1-D array in about one read of it (the general path writes
    an int64 index per element): each block's max (min) in one reduction, the first block holding
    the overall one, then the first hit inside that block. The first occurrence lies in the first
    block whose extreme equals the overall one; with NaNs, in the first block with a NaN, as max
    and min propagate it."""
    from ._indexing import _arange, _take_flat
    from ._manipulation import concatenate
    n, k = a.size, _ARG_BLOCK
    blocks = n // k
    extremes = _reduce(op, a[:blocks * k].reshape(blocks, k), 1, False)
    if n % k:
        extremes = concatenate([extremes, _reduce(op, a[blocks * k:], 0, True)])
    start = _binary("multiply", _arg(op, extremes, 0, None, False), k)
    # A short last block's window wraps to the first elements (take wraps): they are no better
    # than its own, or an earlier block would have been picked, and they come after them.
    window = _binary("add", _arange(k), start)
    return _binary("add", start, _arg(op, _take_flat(a, window), 0, None, False))


@functools.lru_cache(maxsize=256)  # up to ~4,000 divisions per length: asked again for each call
def _row_block(n):
    """The block length of _arg_rows_blocked for rows of n: n's largest divisor up to sqrt(n)
    (4096 at most), so the blocks tile each row as a view; None for rows too short to gain, or
    with no divisor of 16 and up (the general path takes those)."""
    if n < _ARG_BLOCKED_ROWS_FROM:
        return None
    for k in range(builtins.min(_ARG_BLOCK, math.isqrt(n)), 15, -1):
        if n % k == 0:
            return k
    return None


def _arg_rows_blocked(op, rows, k):
    """arg{op} of each row of a contiguous (R, n) array, n a multiple of k: each block's extreme
    in one reduction over the (R, n / k, k) view, the first block holding the row's, then that
    block alone (k elements per row, gathered) searched. As _arg_blocked, row by row."""
    from ._indexing import _arange, _take_flat
    count, n = rows.shape
    extremes = _reduce(op, rows.reshape(count, n // k, k), 2, False)
    start = _binary("multiply", _arg(op, extremes, 1, None, False), k)  # (R,)
    first = _binary("add", _binary("multiply", _arange(count), n), start).reshape(count, 1)
    window = _binary("add", first, _arange(k).reshape(1, k))  # (R, k) flat positions
    return _binary("add", start, _arg(op, _take_flat(rows, window), 1, None, False))


def argmax(a, axis=None, out=None, *, keepdims=False):
    return _arg("max", a, axis, out, keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    return _arg("min", a, axis, out, keepdims)


def _count(a, axes):
    count = 1
    for x in axes:
        count *= a.shape[x]
    return count


def _divide_as(total, count):
    """total / count in total's dtype (numpy's true_divide(..., casting='unsafe') back into it)."""
    q = _binary("divide", total, count)
    return q if q.dtype == total.dtype else q.astype(total.dtype)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NO_VALUE, _name="var"):
    """numpy.var on the device, step by step as numpy's _var: the sum in dtype (float64 for
    integers and bool) / n, the deviations squared, their sum in dtype / max(n - ddof, 0)."""
    if where is not _NO_VALUE:
        raise TypeError(f"{_name}: where= is not supported on the device")
    a = asarray(a)
    keepdims = _keep(keepdims)
    axes = _axes_of(axis, a.ndim)
    n = _count(a, axes)
    if dtype is not None:
        dtype = _dtypes.check(dtype)
    elif a.dtype.kind in "biu":
        dtype = np.dtype(np.float64)
    dof = builtins.max(n - ddof, 0)
    if dof <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
    axis_t = None if axis is None else axes
    center = _divide_as(_run("sum", a, axis_t, dtype, None, True), n)
    dev = _binary("subtract", a, center)
    # numpy sums dev * conj(dev), real for complex: |dev|^2 in the halves' dtype.
    squares = _complex.squared_magnitude(dev)
    sum_dtype = _complex.part_dtype(dtype) if dtype is not None and dtype.kind == "c" else dtype
    total = _run("sum", squares, axis_t, sum_dtype, None, keepdims)
    result = _divide_as(total, dof)
    if _name == "std":  # numpy: the root cast back to var's dtype (std with an integer dtype= truncates)
        root = _unary("sqrt", result)
        if root.dtype != result.dtype:
            if result.ndim or keepdims:  # numpy's sqrt(ret, out=ret) refuses float -> int
                raise TypeError(f"Cannot cast ufunc 'sqrt' output from dtype('{root.dtype}') to "
                                f"dtype('{result.dtype}') with casting rule 'same_kind'")
            root = root.astype(result.dtype)
        result = root
    return result if out is None else _store(result, out, _name)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_NO_VALUE):
    return var(a, axis, dtype, out, ddof, keepdims, where=where, _name="std")


def _nan_to_zero(a):
    """NaN -> 0, every other value kept: fmax(a, 0) + fmin(a, 0) (one of the two is a, the other 0)."""
    return _binary("add", _binary("fmax", a, a.dtype.type(0)), _binary("fmin", a, a.dtype.type(0)))


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    a = asarray(a)
    if a.dtype.kind == "f":
        a = _nan_to_zero(a)
    return _run("sum", a, axis, dtype, out, keepdims, initial, where)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=_NO_VALUE):
    a = asarray(a)
    if a.dtype.kind != "f":
        return mean(a, axis, dtype, out, keepdims, where)
    if where is not _NO_VALUE:
        raise TypeError("nanmean: where= is not supported on the device")
    keepdims = _keep(keepdims)
    total = _run("sum", _nan_to_zero(a), axis, dtype, None, keepdims)
    count = _run("sum", _unary("logical_not", _unary("isnan", a)), axis, None, None, keepdims)
    if not bool(all(count)):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    result = _binary("divide", total, count.astype(total.dtype))
    return result if out is None else _store(result, out, "nanmean")


def _nanextreme(op, a, axis, out, keepdims):
    """nanmax / nanmin: the device's fmax / fmin reduction, one pass that skips NaNs; a slice of
    NaNs only gives NaN, with numpy's warning."""
    a = asarray(a)
    if a.dtype.kind != "f":
        return _run(op, a, axis, None, out, keepdims)
    result = _run("nan" + op, a, axis, None, None, keepdims)
    if result.size and bool(any(_unary("isnan", result))):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
    return result if out is None else _store(result, out, "nan" + op)


def nanmax(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    if initial is not _NO_VALUE or where is not _NO_VALUE:
        raise TypeError("nanmax: initial= and where= are not supported on the device")
    return _nanextreme("max", a, axis, out, keepdims)


def nanmin(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=_NO_VALUE):
    if initial is not _NO_VALUE or where is not _NO_VALUE:
        raise TypeError("nanmin: initial= and where= are not supported on the device")
    return _nanextreme("min", a, axis, out, keepdims)


def count_nonzero(a, axis=None, *, keepdims=False):
    """The number of non-zero values (NaN counts), as an int64 device array (0-d for axis=None)."""
    a = asarray(a)
    flags = a if a.dtype == np.bool_ else _binary("not_equal", a, a.dtype.type(0))
    return _run("sum", flags, axis, None, None, keepdims)


def _hillis_steele(name, y, ax):
    """y scanned in place along axis ax: log2(n) steps of y[k:] = y[k:] (op) y[:-k], each an
    elementwise kernel over every row at once."""
    n = y.shape[ax]
    lead = (slice(None),) * ax
    k = 1
    while k < n:
        y[lead + (slice(k, None),)] = _binary(name, y[lead + (slice(k, None),)], y[lead + (slice(0, n - k),)])
        k *= 2
    return y


_SCAN_ROW = 16  # elements a block of a long 1-D scan holds


def _blocked_scan(name, y):
    """A long contiguous 1-D y scanned in place in blocks of _SCAN_ROW: each block scanned (4
    steps over the whole array instead of log2(n)), the blocks' totals scanned the same way (a
    sixteenth of the work, recursively), each block then combined with the total before it; a tail
    shorter than a block last. About 10 passes over the data for 16M elements instead of 48."""
    n = y.shape[0]
    if n < 64 * _SCAN_ROW:
        return _hillis_steele(name, y, 0)
    m = n // _SCAN_ROW * _SCAN_ROW
    blocks = y[:m].reshape((m // _SCAN_ROW, _SCAN_ROW))
    _hillis_steele(name, blocks, 1)
    totals = _blocked_scan(name, blocks[:, _SCAN_ROW - 1].copy())
    blocks[1:, :] = _binary(name, blocks[1:, :], totals[:-1].reshape((-1, 1)))
    if m < n:
        y[m:] = _binary(name, _hillis_steele(name, y[m:].copy(), 0), y[m - 1])
    return y


def _scan(op, a, axis, dtype, out):
    """cumsum / cumprod: a copy in the result dtype, scanned along the axis (in blocks when it is
    a long 1-D array, _blocked_scan; else Hillis-Steele over every row at once)."""
    a = asarray(a)
    if axis is None:
        a = a.ravel()
        axis = 0
    ax = _axis(axis, a.ndim)
    if dtype is not None:
        d = _dtypes.check(dtype)
    else:
        d = _dtypes.reduction("sum", a.dtype)
    y = a.astype(d)  # a fresh contiguous copy
    name = "add" if op == "cumsum" else "multiply"
    y = _blocked_scan(name, y) if y.ndim == 1 else _hillis_steele(name, y, ax)
    return y if out is None else _store(y, out, op)


def cumsum(a, axis=None, dtype=None, out=None):
    return _scan("cumsum", a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    return _scan("cumprod", a, axis, dtype, out)


_BY_NAME = {"sum": sum, "mean": mean, "max": max, "min": min, "any": any, "all": all, "prod": prod}


def by_name(op, a, axis=None, **kwargs):
    """The reduction `op` (ufunc.reduce's target) with numpy's keyword arguments."""
    return _BY_NAME[op](a, axis=axis, **kwargs)
