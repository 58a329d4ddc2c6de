"""numpy's sort, argsort, searchsorted and unique on the device.

The sort and argsort kernels sort each row of the last axis (numpy's ascending order, NaN last;
argsort is stable); another axis is moved last and made contiguous first. unique is composed of
them: a stable argsort of the flat values, the sorted values, a flag where each new value starts
(NaNs collapse to one, numpy 1.24's equal_nan=True), and those flags' positions (a scan and a
put). Only the number of unique values comes back to the host, to size the result. unique with
axis= orders the slices along the axis by stable argsorts of their elements, the last first
(a lexicographic sort), and flags a slice that differs from the one before in any element.
searchsorted is one stable argsort of a and v together: each v's answer is the number of a's
elements sorted before it, a scan of "came from a" flags put back in v's order.
"""

import warnings

import numpy as np

from . import _complex, _dtypes
from ._array import _axis, _binary, _launch, _reduce, _size, _unary, asarray, full, ndarray, to_device
from ._indexing import _arange, _positions, _take_axis, _take_flat
from ._manipulation import concatenate, flip, moveaxis

_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _rows(a, axis, kind, order, name):
    """The array with `axis` last and contiguous, and that axis; axis=None flattens."""
    if kind not in _KINDS:
        raise ValueError(f"{name} kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")
    if order is not None:
        raise ValueError(f"{name}: order= applies to structured arrays, which the device does not have")
    a = asarray(a)
    if axis is None:
        return a.reshape(-1), 0
    if a.ndim == 0:
        raise np.AxisError(axis, 0)
    ax = _axis(axis, a.ndim)
    moved = moveaxis(a, ax, -1)
    return (moved if moved.is_contiguous else moved.copy()), ax


def _run(kernel, a, axis, kind, order, dtype):
    src, ax = _rows(a, axis, kind, order, kernel)
    if src.dtype.kind == "c" and src.size:
        out = _complex_rows(kernel, src)
    else:
        out = ndarray._new(src.shape, np.dtype(dtype) if dtype is not None else src.dtype)
        if out.size:
            _launch(kernel, out, [src, out])
    return out if out.ndim == 1 or ax == out.ndim - 1 else moveaxis(out, -1, ax)


def _complex_rows(kernel, rows):
    """sort / argsort of complex rows in numpy's order: stable argsorts by the order's keys
    (lexsort), and for sort the elements gathered in that order."""
    from ._shaping import _gather, lexsort
    order = lexsort(_complex.sort_keys(rows), axis=-1)
    return order if kernel == "argsort" else _gather(rows, order, rows.ndim - 1)


def sort(a, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """A sorted copy (numpy's ascending order, NaN last) along axis (None: the flattened array).
    The array API's keywords: descending=True reverses it (NaN first); every sort here is stable,
    so stable= (True, False or None) changes nothing."""
    out = _run("sort", a, axis, kind, order, None)
    return flip(out, 0 if axis is None else axis) if descending and out.ndim else out


def argsort(a, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """The int64 indices that sort a along axis; equal values keep their order (stable), one of
    the orders numpy's default quicksort may give. descending=True (the array API's keyword) puts
    the largest first, equal values still in their order: the ascending argsort of the reversed
    axis, reversed and counted from its end."""
    if not descending:
        return _run("argsort", a, axis, kind, order, np.int64)
    a = asarray(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.ndim == 0:
        return _run("argsort", a, axis, kind, order, np.int64)  # numpy's AxisError
    ax = _axis(axis, a.ndim)
    ascending = _run("argsort", flip(a, ax), ax, kind, order, np.int64)
    return (a.shape[ax] - 1) - flip(ascending, ax)


def _side(side):
    """numpy 1.24's search side: 'left' or 'right'; another string starting with l or r (any
    case) still works, with numpy's DeprecationWarning."""
    if not isinstance(side, str):
        raise TypeError(f"search side must be str, not {type(side).__name__}")
    if side in ("left", "right"):
        return side
    if side[:1] not in ("l", "L", "r", "R"):
        raise ValueError(f"search side must be 'left' or 'right' (got {side!r})")
    warnings.warn("inexact matches and case insensitive matches for search side are deprecated, please use one "
                  "of 'left' or 'right' instead.", DeprecationWarning, stacklevel=3)
    return "left" if side[0] in "lL" else "right"


def _sorter(sorter, n):
    """searchsorted's sorter= as int64 indices into a, with numpy's checks: 1-d, of integers, one
    per element of a, each in [0, n) (numpy raises for a bad index only when its binary search
    reads it; here for any)."""
    s = sorter if isinstance(sorter, ndarray) else np.asarray(sorter)
    if s.ndim != 1:
        raise TypeError("could not parse sorter argument")
    if s.dtype.kind not in "iu":
        raise TypeError("sorter must only contain integers")
    if s.dtype == np.uint64:  # numpy casts sorter to intp safely
        raise ValueError("could not parse sorter argument")
    if s.size != n:
        raise ValueError("sorter.size must equal a.size")
    s = s if isinstance(s, ndarray) else to_device(s)
    s = s.astype(np.int64, copy=False)
    if n and (int(_reduce("min", s, None, False)) < 0 or int(_reduce("max", s, None, False)) >= n):
        raise ValueError("Sorter index out of range.")
    return s


def searchsorted(a, v, side="left", sorter=None):
    """numpy's searchsorted: where v's elements would go in the sorted 1-d a (a[sorter] when
    given) to keep it sorted (NaN last), the first such place (side='left') or the last
    ('right'); int64 of v's shape. a and v are compared in numpy's common dtype of the two."""
    side = _side(side)
    v_dtype = v.dtype if isinstance(v, ndarray) else np.asarray(v).dtype
    a = asarray(a)
    if a.ndim != 1:
        raise ValueError("object of too small depth for desired array" if a.ndim == 0 else
                         "object too deep for desired array")
    dtype = _dtypes.check(np.promote_types(a.dtype, v_dtype))
    if sorter is not None:
        a = _take_flat(a, _sorter(sorter, a.size))
    v = asarray(v)
    n, m = a.size, v.size
    if n == 0 or m == 0:
        return full(v.shape, 0, np.int64)
    a, flat = a.astype(dtype, copy=False), v.reshape(-1).astype(dtype, copy=False)
    # Stable: a v placed before a's elements equal to it goes left of them, after them right.
    left = side == "left"
    order = argsort(concatenate([flat, a] if left else [a, flat]))
    from_a = _binary("greater_equal", order, m) if left else _binary("less", order, n)
    from ._reductions import cumsum
    before = cumsum(from_a, dtype=np.int64)  # a's elements at or before each sorted position
    placed = ndarray._new((n + m,), np.dtype(np.int64))
    _launch("put", placed, [before, order, placed])
    return (placed[:m] if left else placed[n:]).reshape(v.shape)


def _starts(s):
    """Flags of a sorted 1-d array: True where a new value starts (NaNs count as one value)."""
    flags = ndarray._new(s.shape, np.dtype(np.bool_))
    flags[:1] = True
    if s.size > 1:
        new = _binary("not_equal", s[1:], s[:-1])
        if s.dtype.kind == "f":  # NaN != NaN: a run of NaNs is one value
            both_nan = _binary("logical_and", _unary("isnan", s[1:]), _unary("isnan", s[:-1]))
            new = _binary("logical_and", new, _unary("logical_not", both_nan))
        flags[1:] = new
    return flags


def _column_order(key):
    """The stable order of one column as numpy 1.24 compares slices' elements: NaN last, but first
    in float16 (its half compare puts NaN first): then a second stable argsort, of "not NaN"."""
    order = argsort(key)
    if key.dtype == np.float16:
        not_nan = _unary("logical_not", _unary("isnan", _take_flat(key, order)))
        order = _take_flat(order, argsort(not_nan))
    return order


def _row_order(rows):
    """The stable order of a 2-d array's rows, lexicographic by element: a stable sort of each
    column through the order so far, the last column first."""
    n, m = rows.shape
    if n == 0 or m == 0:
        return _arange(n)
    cols = rows.T.copy()  # each column contiguous
    order = None
    for c in reversed(range(m)):
        step = _column_order(cols[c] if order is None else _take_flat(cols[c], order))
        order = step if order is None else _take_flat(order, step)
    return order


def _row_starts(s):
    """Flags of lexicographically sorted rows: True where a row differs from the one before in any
    element. NaN != NaN, as in numpy's comparison of the rows: a row holding NaN is its own."""
    n, m = s.shape
    flags = ndarray._new((n,), np.dtype(np.bool_))
    if n:
        flags[:1] = True
    if n > 1:
        flags[1:] = _reduce("max", _binary("not_equal", s[1:], s[:-1]), 1, False) if m else False
    return flags


def _extras(order, starts, first, return_index, return_inverse, return_counts):
    """unique's optional results, from the sorting order, the flags where each unique value starts
    in it and their positions: the first index of each, the inverse and the counts."""
    n = starts.size
    extra = []
    if return_index:
        extra.append(_take_flat(order, first) if n else first)
    if return_inverse:
        inverse = ndarray._new((n,), np.dtype(np.int64))
        if n:
            from ._reductions import cumsum
            rank = _binary("subtract", cumsum(starts, dtype=np.int64), 1)
            _launch("put", inverse, [rank, order, inverse])
        extra.append(inverse)
    if return_counts:
        ends = concatenate([first[1:], _arange(1) + n]) if n else first
        extra.append(_binary("subtract", ends, first) if n else first)
    return extra


def _unique_flat(ar, flags):
    """The sorted unique values of the flattened array, and the optional results."""
    flat = asarray(ar).reshape(-1)
    n = flat.size
    order = argsort(flat) if n else _arange(0)
    s = _take_flat(flat, order) if n else flat.copy()
    starts = _starts(s) if n else ndarray._new((0,), np.dtype(np.bool_))
    first = _positions(starts)
    return (_take_flat(s, first) if n else s), _extras(order, starts, first, *flags)


def _unique_axis(ar, axis, flags):
    """The unique slices along axis in lexicographic order (numpy's, axis moved first and each
    slice compared element by element), and the optional results."""
    ar = asarray(ar)
    ax = _axis(axis, ar.ndim)  # numpy's AxisError, also for a 0-d array
    moved = moveaxis(ar, ax, 0)
    rows = moved.reshape((moved.shape[0], _size(moved.shape[1:])))
    order = _row_order(rows)
    s = _take_axis(rows, order, 0) if rows.size else rows
    starts = _row_starts(s)
    first = _positions(starts)
    values = _take_axis(s, first, 0) if rows.size else s[:first.size]
    values = moveaxis(values.reshape((first.size,) + moved.shape[1:]), 0, ax)
    return values, _extras(order, starts, first, *flags)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True):
    """numpy's unique: the sorted unique values of the flattened array (axis=None) or the unique
    slices along axis and, on request, the first index of each, the inverse (ar.flat ==
    unique[inverse], or the slices' equivalent) and the counts."""
    flags = (return_index, return_inverse, return_counts)
    if axis is None:
        if not equal_nan:
            raise TypeError("unique: equal_nan=False is not supported on the device")
        values, extra = _unique_flat(ar, flags)
    else:  # numpy 1.24 ignores equal_nan here: a slice holding NaN never equals another
        values, extra = _unique_axis(ar, axis, flags)
    return (values, *extra) if extra else values
