"""numpy's sort, argsort and unique on the device.

The sort and argsort kernels sort each row of the last axis (numpy's ascending order, NaN last;
argsort is stable); another axis is moved last and made contiguous first. unique is composed of
them: a stable argsort of the flat values, the sorted values, a flag where each new value starts
(NaNs collapse to one, numpy 1.24's equal_nan=True), and those flags' positions (a scan and a
put). Only the number of unique values comes back to the host, to size the result.
"""

import numpy as np

from ._array import _axis, _binary, _launch, _unary, asarray, ndarray
from ._indexing import _arange, _positions, _take_flat
from ._manipulation import concatenate, moveaxis

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
    out = ndarray._new(src.shape, np.dtype(dtype) if dtype is not None else src.dtype)
    if out.size:
        _launch(kernel, out, [src, out])
    return out if out.ndim == 1 or ax == out.ndim - 1 else moveaxis(out, -1, ax)


def sort(a, axis=-1, kind=None, order=None):
    """A sorted copy (numpy's ascending order, NaN last) along axis (None: the flattened array)."""
    return _run("sort", a, axis, kind, order, None)


def argsort(a, axis=-1, kind=None, order=None):
    """The int64 indices that sort a along axis; equal values keep their order (stable), one of
    the orders numpy's default quicksort may give."""
    return _run("argsort", a, axis, kind, order, np.int64)


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


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True):
    """numpy's unique over the flattened array: the sorted unique values and, on request, the
    first index of each, the inverse (ar.flat == unique[inverse]) and the counts."""
    if axis is not None:
        raise TypeError("unique: axis= is not supported on the device (only the flattened array)")
    if not equal_nan:
        raise TypeError("unique: equal_nan=False is not supported on the device")
    flat = asarray(ar).reshape(-1)
    n = flat.size
    order = argsort(flat) if n else None
    s = _take_flat(flat, order) if n else flat.copy()
    starts = _starts(s) if n else ndarray._new((0,), np.dtype(np.bool_))
    first = _positions(starts)
    values = _take_flat(s, first) if n else s
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
    return (values, *extra) if extra else values
