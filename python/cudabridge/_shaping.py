"""numpy's remaining array-building, reshaping and selection functions on the device, composed
from the device's kernels (copies, views, where, take, sort, elementwise ops).

Each follows numpy 1.24 (result dtypes and shapes, views where numpy gives views, its exceptions).
Values stay on the device: a result is read back only where numpy's result shape or dtype depends
on the data (argwhere's row count, real_if_close's dtype) or where an index argument given as a
device array must be checked (pad widths, partition's kth). Device operands promote by dtype, as
everywhere in cudabridge; numpy 1.24's value-based casting applies to host scalars.
"""

import math
import numbers
import operator

import numpy as np

from . import _array_api, _complex, _dtypes
from ._array import (_axis, _binary, _contiguous_strides, _into_out, _launch_elementwise, _reduce, _unary,
                     asarray, ndarray, zeros)
from ._creation import arange, full_like, zeros_like
from ._indexing import (_arange, _as_device, _broadcast_copy, _indices, _normalized, _put_flat, _take_flat,
                        _values_for, nonzero, where)
from ._linalg import diagonal
from ._manipulation import (_along, atleast_2d, broadcast_arrays, broadcast_to, concatenate,
                            expand_dims, flip, moveaxis, split, stack, tile)
from ._reductions import all as _all
from ._sorting import argsort, searchsorted, sort


def _host_scalar(x):
    return isinstance(x, (numbers.Number, np.generic))


def _dtype_of(x):
    """x's dtype for numpy's promotion: a device array's, else numpy's view of the host value
    (value-based for scalars and 0-d host arrays, as numpy 1.24)."""
    return x.dtype if isinstance(x, ndarray) else x if _host_scalar(x) else np.asarray(x)


# ---- differences and joining --------------------------------------------------------------------

def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """numpy's diff: the n-th discrete difference along axis, a[1:] - a[:-1] repeated n times
    (not_equal for bool); prepend / append (a scalar is broadcast to one slice) are joined first."""
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    a = asarray(a)
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _axis(axis, a.ndim)
    parts = []
    for extra in (prepend, a, append):
        if extra is np._NoValue:
            continue
        extra = asarray(extra)
        if extra.ndim == 0:
            extra = broadcast_to(extra, a.shape[:axis] + (1,) + a.shape[axis + 1:])
        parts.append(extra)
    if len(parts) > 1:
        a = concatenate(parts, axis)
    op = "not_equal" if a.dtype == np.bool_ else "subtract"
    for _ in range(n):
        m = a.shape[axis]
        a = _binary(op, _along(a, axis, 1, max(m, 1)), _along(a, axis, 0, max(m - 1, 0)))
    return a


def append(arr, values, axis=None):
    """numpy's append: arr and values joined along axis (both flattened when axis is None)."""
    arr = asarray(arr)
    if axis is None:
        arr = arr.reshape(-1) if arr.ndim != 1 else arr
        values = asarray(values).reshape(-1)
        axis = arr.ndim - 1
    return concatenate((arr, values), axis)


def column_stack(tup):
    """numpy's column_stack: 1-D (and 0-d) arrays become columns, then joined along axis 1."""
    arrays = []
    for v in tup:
        v = asarray(v)
        arrays.append(atleast_2d(v).T if v.ndim < 2 else v)
    return concatenate(arrays, 1)


def _atleast_3d_one(a):
    a = asarray(a)
    if a.ndim == 0:
        return a.reshape(1, 1, 1)
    if a.ndim == 1:
        return expand_dims(a, (0, 2))  # (n,) -> (1, n, 1), numpy's choice
    return expand_dims(a, 2) if a.ndim == 2 else a


def atleast_3d(*arys):
    """numpy's atleast_3d: views with at least three dimensions ((n,) -> (1, n, 1), (m, n) ->
    (m, n, 1)); one array for one input, else a list."""
    results = [_atleast_3d_one(a) for a in arys]
    return results[0] if len(results) == 1 else results


def dstack(tup):
    """numpy's dstack: the arrays made at least 3-D, joined along the third axis."""
    return concatenate([_atleast_3d_one(a) for a in tup], 2)


# ---- splitting and flipping (views) ---------------------------------------------------------------

def vsplit(ary, indices_or_sections):
    """numpy's vsplit: split along axis 0 (views); at least 2-D."""
    ary = asarray(ary)
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def hsplit(ary, indices_or_sections):
    """numpy's hsplit: split along axis 1 (axis 0 for 1-D arrays)."""
    ary = asarray(ary)
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


def dsplit(ary, indices_or_sections):
    """numpy's dsplit: split along axis 2; at least 3-D."""
    ary = asarray(ary)
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


def fliplr(m):
    """numpy's fliplr: the columns (axis 1) reversed, a view; at least 2-D."""
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


def flipud(m):
    """numpy's flipud: the rows (axis 0) reversed, a view; at least 1-D."""
    m = asarray(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


def rot90(m, k=1, axes=(0, 1)):
    """numpy's rot90: k quarter turns from the first axis towards the second (a view)."""
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    m = asarray(m)
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if not all(-m.ndim <= x < m.ndim for x in axes):
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    order = list(range(m.ndim))
    order[axes[0]], order[axes[1]] = order[axes[1]], order[axes[0]]
    return flip(m, axes[1]).transpose(order) if k == 1 else flip(m.transpose(order), axes[1])


def resize(a, new_shape):
    """numpy's resize: the flattened array repeated (tiled on the device) to fill new_shape."""
    shape = (new_shape,) if isinstance(new_shape, (numbers.Integral, np.integer)) else tuple(new_shape)
    a = asarray(a).reshape(-1)
    size = 1
    for n in shape:
        size *= n
        if n < 0:
            raise ValueError("all elements of `new_shape` must be non-negative")
    if a.size == 0 or size == 0:
        return zeros_like(a, shape=shape)
    return tile(a, -(-size // a.size))[:size].reshape(shape)


# ---- pad ------------------------------------------------------------------------------------------

# numpy's modes and the keywords each takes; _PAD_DONE are the ones the device pads.
_PAD_KEYWORDS = {"constant": {"constant_values"}, "edge": set(), "wrap": set(), "reflect": {"reflect_type"},
                 "symmetric": {"reflect_type"}, "empty": set(), "linear_ramp": {"end_values"},
                 "maximum": {"stat_length"}, "mean": {"stat_length"}, "median": {"stat_length"},
                 "minimum": {"stat_length"}}
_PAD_DONE = {"constant", "edge", "wrap", "reflect", "symmetric", "empty"}


def _pairs(x, ndim):
    """numpy's (before, after) for each axis from one value, one pair, or a pair per axis; a
    device array gives 0-d views of itself."""
    device = isinstance(x, ndarray)
    x = x if device else np.array(x)
    if x.ndim < 3 and x.size == 1:
        v = x.reshape(()) if device else x.reshape(-1)[0]
        return [(v, v)] * ndim
    if x.ndim < 3 and x.size == 2 and x.shape != (2, 1):
        v = x.reshape(-1)
        return [(v[0], v[1])] * ndim
    b = broadcast_to(x, (ndim, 2)) if device else np.broadcast_to(x, (ndim, 2))
    return [(b[i, 0], b[i, 1]) for i in range(ndim)]


def _pad_widths(pad_width, ndim):
    # The widths size the result: a device array of them is read back.
    w = np.asarray(pad_width.get() if isinstance(pad_width, ndarray) else pad_width)
    if w.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    if w.size and w.min() < 0:
        raise ValueError("index can't contain negative values")
    return [(int(lo), int(hi)) for lo, hi in _pairs(w, ndim)]


def _set_sides(roi, axis, lo, hi, left, right):
    """The lo first and hi last positions of roi along axis set to left and right (broadcast)."""
    n = roi.shape[axis]
    if lo:
        _along(roi, axis, 0, lo)[...] = left
    if hi:
        _along(roi, axis, n - hi, n)[...] = right


def _pad_wrap(roi, axis, lo, hi):
    """numpy 1.24's wrap: each round copies the far end of what is filled so far (a pad already
    written on the other side included) into the pads, at most the filled length at a time."""
    total = roi.shape[axis]
    while lo > 0 or hi > 0:
        period = total - lo - hi
        new_lo = new_hi = 0
        if lo > 0:
            c = min(period, lo)
            _along(roi, axis, lo - c, lo)[...] = _along(roi, axis, total - hi - c, total - hi)
            new_lo = lo - c
        if hi > 0:
            c = min(period, hi)
            _along(roi, axis, total - hi, total - hi + c)[...] = _along(roi, axis, lo, lo + c)
            new_hi = hi - c
        lo, hi = new_lo, new_hi


def _pad_reflect(roi, axis, lo, hi, symmetric, odd):
    """numpy's reflect (edge not repeated) and symmetric (edge repeated): each round mirrors the
    filled part about its current edges; reflect_type='odd' takes 2 * edge - mirrored value."""
    total = roi.shape[axis]
    skip = 0 if symmetric else 1  # reflect mirrors about the edge element itself
    while lo > 0 or hi > 0:
        span = total - lo - hi - skip  # the values there are to mirror on each side
        if lo > 0:
            c = min(span, lo)
            chunk = flip(_along(roi, axis, lo + skip, lo + skip + c), axis)
            if odd:
                chunk = _binary("subtract", _binary("multiply", 2, _along(roi, axis, lo, lo + 1)), chunk)
            _along(roi, axis, lo - c, lo)[...] = chunk
            lo -= c
        if hi > 0:
            end = total - hi  # the first position to fill; the edge is just before it
            c = min(span, hi)
            chunk = flip(_along(roi, axis, end - skip - c, end - skip), axis)
            if odd:
                chunk = _binary("subtract", _binary("multiply", 2, _along(roi, axis, end - 1, end)), chunk)
            _along(roi, axis, end, end + c)[...] = chunk
            hi -= c


def pad(array, pad_width, mode="constant", **kwargs):
    """numpy's pad with modes 'constant' (constant_values=), 'edge', 'wrap', 'reflect' and
    'symmetric' (reflect_type=) and 'empty'; pad_width as numpy takes it (one width, one
    (before, after) pair, or a pair per axis). The array is copied into a new one and the pads
    filled axis by axis, each over the pads of the axes before it (numpy's order, so corners
    follow the later axis); wrap keeps numpy 1.24's result for pads longer than the axis. The
    statistic modes (mean, maximum, ...) and a callable mode raise TypeError."""
    a = asarray(array)
    widths = _pad_widths(pad_width, a.ndim)
    if callable(mode) or (mode in _PAD_KEYWORDS and mode not in _PAD_DONE):
        raise TypeError(f"numpy.pad with mode={mode!r} has no implementation on the device (cudabridge)")
    if mode not in _PAD_KEYWORDS:
        raise ValueError(f"mode '{mode}' is not supported")
    unsupported = set(kwargs) - _PAD_KEYWORDS[mode]
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    padded = ndarray._new(tuple(n + lo + hi for n, (lo, hi) in zip(a.shape, widths)), a.dtype)
    inner = tuple(slice(lo, lo + n) for n, (lo, _) in zip(a.shape, widths))
    padded[inner] = a
    if mode == "empty":
        return padded
    if mode == "constant":
        values = _pairs(kwargs.get("constant_values", 0), a.ndim)
    elif a.size == 0:  # only constant and empty can extend an empty axis
        for axis, (lo, hi) in enumerate(widths):
            if a.shape[axis] == 0 and (lo or hi):
                raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'")
        return padded
    for axis, (lo, hi) in enumerate(widths):
        if not (lo or hi):
            continue
        # The axes after this one are not padded yet: work on their original part only.
        roi = padded[tuple(slice(None) if d <= axis else inner[d] for d in range(a.ndim))]
        n = roi.shape[axis]
        if mode == "constant":
            _set_sides(roi, axis, lo, hi, *values[axis])
        elif mode == "edge" or (mode in ("reflect", "symmetric") and a.shape[axis] == 1):
            _set_sides(roi, axis, lo, hi, _along(roi, axis, lo, lo + 1), _along(roi, axis, n - hi - 1, n - hi))
        elif mode == "wrap":
            _pad_wrap(roi, axis, lo, hi)
        else:
            _pad_reflect(roi, axis, lo, hi, mode == "symmetric", kwargs.get("reflect_type", "even") == "odd")
    return padded


# ---- matrices -------------------------------------------------------------------------------------

def diag(v, k=0):
    """numpy's diag: the k-th diagonal of a 2-D array (a view), or a 2-D array with the 1-D v
    on its k-th diagonal and zeros elsewhere."""
    v = asarray(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = v.shape[0] + abs(k)
    res = zeros((n, n), v.dtype)
    diagonal(res, k)[...] = v
    return res


def diagflat(v, k=0):
    """numpy's diagflat: the flattened input on the k-th diagonal of a new 2-D array."""
    return diag(asarray(v).reshape(-1), k)


def tri(N, M=None, k=0, dtype=float, *, like=None):
    """numpy's tri: an N x M array with ones at and below the k-th diagonal (row >= col - k)."""
    M = N if M is None else M
    rows = arange(N, dtype=np.int64).reshape(-1, 1)
    cols = arange(-k, M - k).reshape(1, -1)
    return _binary("greater_equal", rows, cols).astype(_dtypes.check(dtype), copy=False)


def _no_0d_triangle(m):
    m = asarray(m)
    if m.ndim == 0:  # numpy's tril/triu call tri(*m.shape[-2:]), which has no N for a 0-d array
        raise TypeError("tri() missing 1 required positional argument: 'N'")
    return m


def _np_tril(m, k=0):
    """numpy's tril (cb.tril, the array API's, with numpy's k= positional and 0-d error)."""
    return _array_api.tril(_no_0d_triangle(m), k=k)


def _np_triu(m, k=0):
    """numpy's triu (cb.triu, the array API's, with numpy's k= positional and 0-d error)."""
    return _array_api.triu(_no_0d_triangle(m), k=k)


def kron(a, b):
    """numpy's kron: every element of a times the whole of b, blocks laid out as a's elements.
    Both are given the same number of dimensions and interleaved with length-1 axes, so one
    broadcast multiply makes the (a0, b0, a1, b1, ...) array that is reshaped; up to 16-D (an
    array's 32 dimensions). A 0-d b is a plain multiply (by value for a host scalar with an array a)."""
    a = asarray(a)
    if not isinstance(b, ndarray) and np.ndim(b) == 0 and a.ndim:
        return _binary("multiply", a, np.asarray(b)[()])  # a host scalar: by value, as numpy's
    b = asarray(b)
    if a.ndim == 0 and b.ndim == 0:
        return _binary("multiply", a, b)
    nd = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    product = _binary("multiply", expand_dims(a, tuple(range(1, 2 * nd, 2))),
                      expand_dims(b, tuple(range(0, 2 * nd, 2))))
    return product.reshape(tuple(x * y for x, y in zip(a.shape, b.shape)))


def _named_axis(axis, ndim, name):
    if not -ndim <= operator.index(axis) < ndim:
        raise np.AxisError(axis, ndim, msg_prefix=name)
    return operator.index(axis) % ndim


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """numpy's cross of 3- (or 2-) vectors along axisa / axisb (axis= sets all three), broadcast
    over the other axes; two 2-vectors give the z component alone. Each component is a
    difference of products in the promoted dtype (bool raises TypeError, as numpy's subtract)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = asarray(a), asarray(b)
    a = moveaxis(a, _named_axis(axisa, a.ndim, "axisa"), -1)
    b = moveaxis(b, _named_axis(axisb, b.ndim, "axisb"), -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    if 3 in (a.shape[-1], b.shape[-1]):
        axisc = _named_axis(axisc, len(shape) + 1, "axisc")
    dtype = np.promote_types(a.dtype, b.dtype)
    a, b = a.astype(dtype, copy=False), b.astype(dtype, copy=False)

    def mul(x, y):
        return _binary("multiply", x, y)

    def sub(x, y):
        return _binary("subtract", x, y)

    a0, a1, a2 = (a[..., i] if i < a.shape[-1] else None for i in range(3))
    b0, b1, b2 = (b[..., i] if i < b.shape[-1] else None for i in range(3))
    c2 = sub(mul(a0, b1), mul(a1, b0))
    if a2 is None and b2 is None:
        return c2
    if a2 is None:  # a's z is 0
        c0, c1 = mul(a1, b2), _unary("negative", mul(a0, b2))
    elif b2 is None:  # b's z is 0
        c0, c1 = _unary("negative", mul(a2, b1)), mul(a2, b0)
    else:
        c0, c1 = sub(mul(a1, b2), mul(a2, b1)), sub(mul(a2, b0), mul(a0, b2))
    return moveaxis(stack([c0, c1, c2], -1), -1, axisc)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """numpy's meshgrid: coordinate arrays from 1-D (or flattened) inputs; 'xy' swaps the first
    two axes, sparse=True keeps the length-1 axes, copy=False returns broadcast views."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    out = [asarray(x).reshape((1,) * i + (-1,) + (1,) * (ndim - i - 1)) for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        out[0] = out[0].reshape((1, -1) + (1,) * (ndim - 2))
        out[1] = out[1].reshape((-1, 1) + (1,) * (ndim - 2))
    if not sparse:
        out = broadcast_arrays(*out)
    return [x.copy() for x in out] if copy else list(out)


# ---- selection ------------------------------------------------------------------------------------

def argwhere(a):
    """numpy's argwhere: the indices of the non-zero elements, one row each (int64, (N, a.ndim)).
    N is counted on the device and read back, as nonzero's is: it is the result's shape."""
    a = asarray(a)
    if a.ndim == 0:  # numpy: one row (or none) of no columns
        return stack(nonzero(a.reshape(1)), 1)[:, :0]
    return stack(nonzero(a), 1)


def copyto(dst, src, casting="same_kind", where=True):
    """numpy's copyto: src (broadcast, cast under `casting`) written into the device array dst
    where `where` (a bool array, broadcast) is True. Returns None."""
    if not isinstance(dst, ndarray):
        raise TypeError(f"copyto() argument 1 must be a cudabridge.ndarray, not {type(dst).__name__} (copy device "
                        f"data to the host explicitly with cb.asnumpy)")
    probe = _dtype_of(src)
    if not np.can_cast(probe, dst.dtype, casting):
        what = "scalar" if np.ndim(probe) == 0 and not isinstance(src, ndarray) else "array data"
        raise TypeError(f"Cannot cast {what} from {np.result_type(probe)!r} to {dst.dtype!r} according to the rule "
                        f"{casting!r}")
    mask = None
    if not (isinstance(where, (bool, np.bool_)) and where):
        mask = where if isinstance(where, ndarray) else np.asarray(where)
        if mask.dtype != np.bool_:
            raise TypeError(f"Cannot cast array data from {mask.dtype!r} to dtype('bool') according to the rule "
                            f"'safe'")
        mask = asarray(mask)
    if not isinstance(src, ndarray) and np.ndim(src) == 0:  # a host scalar: cast (wrapping) as numpy casts it
        src = np.asarray(src).astype(dst.dtype)[()]
    vals = _as_device(src, dst.dtype)
    for name, x in (("input array", vals), ("where mask", mask)):
        if x is not None and not _broadcasts_into(x.shape, dst.shape):
            raise ValueError(f"could not broadcast {name} from shape {x.shape} into shape {dst.shape}")
    if vals._block is dst._block:  # overlapping source: read it from a copy, as numpy does
        vals = vals.copy()
    if dst.size:
        if mask is None:
            _launch_elementwise("cast", dst, [vals, dst])
        else:
            _launch_elementwise("copyto", dst, [vals, mask, dst])
    return None


def _broadcasts_into(shape, into):
    try:
        return np.broadcast_shapes(shape, into) == into
    except ValueError:
        return False


def select(condlist, choicelist, default=0):
    """numpy's select: from the first condition that holds, the matching choice; default where
    none does. The result's dtype is numpy's for the choices, then the default; its shape that of
    the first condition and choice; the choices are copied in, last first, under their masks."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    choices = [c if isinstance(c, ndarray) else np.asarray(c) for c in choicelist]
    try:
        dtype = np.result_type(*(_dtype_of(c) for c in choices))
        dtype = np.result_type(dtype, _dtype_of(default if isinstance(default, ndarray) else np.asarray(default)))
    except TypeError as e:
        raise TypeError(f"Choicelist elements do not have a common dtype: {e}") from None
    conds = [c if isinstance(c, ndarray) else np.asarray(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    shape = conds[0].shape if choices[0].ndim == 0 else np.broadcast_shapes(conds[0].shape, choices[0].shape)
    result = ndarray._new(shape, _dtypes.check(dtype))
    copyto(result, default, casting="unsafe")
    for choice, cond in zip(choices[::-1], conds[::-1]):
        copyto(result, choice, where=cond)
    return result


def _along_axis_positions(shape, idx, axis):
    """C-order flat positions in an array of `shape` of numpy's fancy index along `axis`
    (indices idx in range, with every other axis indexed by its arange, all broadcast), and the
    index's shape."""
    try:
        out_shape = tuple(i if d == axis else np.broadcast_shapes((n,), (i,))[0]
                          for d, (n, i) in enumerate(zip(shape, idx.shape)))
    except ValueError:
        raise IndexError(f"shape mismatch: indexing arrays could not be broadcast together with shapes "
                         f"{idx.shape} {shape}") from None
    strides = _contiguous_strides(shape)
    flat = _binary("multiply", idx, strides[axis])
    for d, n in enumerate(shape):
        if d != axis and n > 1:
            flat = _binary("add", flat, _binary("multiply", _arange(n), strides[d]).reshape(
                (1,) * d + (n,) + (1,) * (len(shape) - d - 1)))
    return _broadcast_copy(flat, out_shape), out_shape


def put_along_axis(arr, indices, values, axis):
    """numpy's put_along_axis: arr[..., indices, ...] = values along axis (in place; axis=None:
    the flattened array), values broadcast to the indices' shape. A repeated index keeps the
    last value on the simulated GPU (numpy's), one of them on a real GPU."""
    if not isinstance(arr, ndarray):
        raise TypeError(f"put_along_axis: arr must be a cudabridge.ndarray, not {type(arr).__name__}")
    if (indices.dtype if isinstance(indices, ndarray) else np.asarray(indices).dtype).kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    idx = _indices(indices)
    if axis is None:
        shape, ax = (arr.size,), 0
    else:
        shape, ax = arr.shape, _axis(axis, arr.ndim)
    if idx.ndim != len(shape):
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    idx = _normalized(idx, shape[ax], ax, "raise")
    flat, result_shape = _along_axis_positions(shape, idx, ax)
    _put_flat(arr, flat, _values_for(values, arr.dtype, result_shape, flat.shape))


def _gather(a, order, axis):
    """a's elements at `order` (in range, a's shape) along axis: take_along_axis without checks."""
    return _take_flat(a, _along_axis_positions(a.shape, order, axis)[0])


# ---- partial sorts --------------------------------------------------------------------------------

def _check_kth(kth, n):
    """numpy's checks of partition's kth: integers, at most 1-D, each in [-n, n)."""
    k = kth if isinstance(kth, ndarray) else np.asarray(kth)
    if k.dtype.kind not in "biu":
        raise TypeError("Partition index must be integer")
    if k.ndim > 1:
        raise ValueError("object too deep for desired array")
    if not k.size:
        return
    # A device kth is checked by its extremes (two values read back), a host one in order.
    values = [int(_reduce("min", k, None, False)), int(_reduce("max", k, None, False))] \
        if isinstance(k, ndarray) else k.reshape(-1).tolist()
    for v in values:
        v = v + n if v < 0 else v
        if not 0 <= v < n:
            raise ValueError(f"kth(={v}) out of bounds ({n})")


def _partition_checks(a, kth, axis, kind, order):
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got {kind!r})")
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    a = asarray(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    _check_kth(kth, a.shape[_axis(axis, a.ndim)])
    return a, axis


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """numpy's partition: each kth element where a sort would put it, the smaller before it and
    the larger after. The device sorts the whole axis: a full sort is a valid partition (numpy's
    order within the two sides is unspecified), at a sort's cost."""
    a, axis = _partition_checks(a, kth, axis, kind, order)
    return sort(a, axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """numpy's argpartition: indices that partition a around kth. A full (stable) argsort is one
    valid answer, and the one given here."""
    a, axis = _partition_checks(a, kth, axis, kind, order)
    return argsort(a, axis)


def lexsort(keys, axis=-1):
    """numpy's lexsort: int64 indices that sort by the last key, ties broken by the one before,
    and so on. A stable argsort by each key in turn, the first key first, through the order so
    far (an LSD radix sort over keys); NaN sorts last, as numpy's."""
    if isinstance(keys, ndarray):
        keys = [keys[i] for i in range(keys.shape[0])] if keys.ndim else []
    keys = [asarray(k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if any(k.shape != keys[0].shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    if keys[0].ndim == 0:
        return zeros((), np.int64)
    axis = _axis(axis, keys[0].ndim)
    order = argsort(keys[0], axis)
    for key in keys[1:]:
        order = _gather(order, argsort(_gather(key, order, axis), axis), axis)
    return order


# ---- elementwise ----------------------------------------------------------------------------------

def _masked_fill(d, value, mask):
    copyto(d, value, where=mask)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """numpy's nan_to_num: NaN replaced by `nan`, +inf by `posinf` (the dtype's largest finite
    value by default) and -inf by `neginf` (its lowest), in each half of a complex array; other
    dtypes unchanged. copy=False replaces in x itself (a device array)."""
    x = asarray(x)
    if copy:
        x = x.copy()
    if x.dtype.kind not in "fc":
        return x
    parts = (_complex.real(x), _complex.imag(x)) if x.dtype.kind == "c" else (x,)
    info = np.finfo(parts[0].dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    for d in parts:
        is_nan, is_inf, negative = _unary("isnan", d), _unary("isinf", d), _unary("signbit", d)
        # All three masks before any replacement, as numpy (nan=inf must not become posinf).
        is_neg_inf = _binary("logical_and", is_inf, negative)
        is_pos_inf = _binary("logical_and", is_inf, _unary("logical_not", negative))
        _masked_fill(d, nan, is_nan)
        _masked_fill(d, big, is_pos_inf)
        _masked_fill(d, small, is_neg_inf)
    return x


def fix(x, out=None):
    """numpy's fix: rounding towards zero, floor(x) for x >= 0 and ceil(x) below, in the dtype of
    numpy's ceil (integers become floating, as numpy 1.24's); out= casts under same_kind."""
    x = asarray(x)
    up = _unary("ceil", x)
    result = where(_binary("greater_equal", x, 0), _unary("floor", x), up)
    return _into_out("ceil", result, out)


def _probe(x):
    """A one-element host stand-in for device array x in numpy's promotion: 0-d for a 0-d x
    (numpy promotes 0-d arrays with Python scalars as scalars, by dtype), else 1-d."""
    return np.zeros((1,) if x.ndim else (), x.dtype)


def _loop_dtype(ufunc, *inputs):
    """The dtype numpy's ufunc computes `inputs` in, asked of numpy on one-element probes (its
    TypeError for a dtype it has no loop for)."""
    probes = [_probe(x) if isinstance(x, ndarray) else x if _host_scalar(x) else
              np.asarray(x).reshape(-1)[:1] for x in inputs]
    with np.errstate(all="ignore"):
        return _dtypes.check(ufunc(*probes).dtype)


def heaviside(x1, x2, out=None):
    """numpy's heaviside: 0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0 and NaN where x1 is
    NaN, in numpy's floating loop dtype (float16 / 32 / 64). np.heaviside, a ufunc, reaches it
    through __array_ufunc__ (_dispatch.py)."""
    dtype = _loop_dtype(np.heaviside, x1, x2)
    a, h = _as_device(x1, dtype), _as_device(x2, dtype)
    result = _binary("greater", a, 0).astype(dtype)  # 1 above 0, 0 below (NaN set last)
    result = where(_binary("equal", a, 0), h, result)
    result = where(_unary("isnan", a), np.nan, result)
    return _into_out("heaviside", result, out)


def sinc(x):
    """numpy's sinc: sin(pi x) / (pi x), 1 at 0 (computed as numpy does: x = 0 replaced by 1e-20)."""
    x = asarray(x)
    # where(x == 0, 1e-20, x) in numpy's dtype for it (float64 for a 0-d x: scalars by dtype).
    x = x.astype(np.result_type(_probe(x), 1.0e-20), copy=False)
    y = _binary("multiply", math.pi, where(_binary("equal", x, 0), 1.0e-20, x))
    return _binary("divide", _unary("sin", y), y)


def real_if_close(a, tol=100):
    """numpy's real_if_close: a complex array's real part (a view) when every imaginary part is
    below tol (in machine epsilons when tol > 1), else the array; a real array is returned as is.
    The result's dtype depends on the data: that one flag is read back."""
    a = asarray(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = np.finfo(a.dtype).eps * tol
    close = _all(_binary("less", _unary("absolute", _complex.imag(a)), tol))
    return _complex.real(a) if bool(close) else a


# ---- interpolation and polynomials ----------------------------------------------------------------

def _interp_real(x, xp, fp, left, right):
    """numpy's compiled_interp on float64 device arrays: x (any shape), xp increasing, fp."""
    n = xp.size
    first, last = xp[0], xp[n - 1]
    left = fp[0] if left is None else left
    right = fp[n - 1] if right is None else right
    if n == 1:  # numpy's own case: below, above or at the one point (NaN included)
        r = where(_binary("less", x, first), left, where(_binary("greater", x, first), right, fp[0]))
        return broadcast_to(r, x.shape).copy() if r.shape != x.shape else r
    j = _binary("subtract", searchsorted(xp, x, side="right"), 1)  # xp[j] <= x < xp[j + 1]
    lo = _binary("minimum", _binary("maximum", j, 0), n - 2)
    x0, x1 = _take_flat(xp, lo), _take_flat(xp, _binary("add", lo, 1))
    y0, y1 = _take_flat(fp, lo), _take_flat(fp, _binary("add", lo, 1))
    slope = _binary("divide", _binary("subtract", y1, y0), _binary("subtract", x1, x0))
    r = _binary("add", _binary("multiply", slope, _binary("subtract", x, x0)), y0)
    # numpy's fallbacks where that is NaN: from the right end, then the flat value.
    r = where(_unary("isnan", r), _binary("add", _binary("multiply", slope, _binary("subtract", x, x1)), y1), r)
    r = where(_binary("logical_and", _unary("isnan", r), _binary("equal", y0, y1)), y0, r)
    r = where(_binary("equal", x, x0), y0, r)  # exactly on a point: its value
    r = where(_binary("equal", j, n - 1), fp[n - 1], r)
    r = where(_binary("greater", x, last), right, r)
    r = where(_binary("less", x, first), left, r)
    return where(_unary("isnan", x), x, r)


def _interp_float(v):
    v = asarray(v)
    if v.dtype.kind == "c":
        raise TypeError(f"Cannot cast array data from {v.dtype!r} to dtype('float64') according to the rule 'safe'")
    return v.astype(np.float64, copy=False)


def interp(x, xp, fp, left=None, right=None, period=None):
    """numpy's interp: the piecewise-linear interpolant through (xp, fp) at x (xp increasing),
    left / right (fp[0] / fp[-1] by default) outside, float64 (complex128 for complex fp, each
    half interpolated); period= wraps x and xp. The interval of each x is found by searchsorted
    on the device, and numpy's own rules (NaN, points hit exactly) are applied with where."""
    fp = asarray(fp)
    ftype = np.complex128 if fp.dtype.kind == "c" else np.float64
    fp = fp.astype(ftype, copy=False)
    x, xp = _interp_float(x), _interp_float(xp)
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = right = None
        if xp.ndim != 1 or fp.ndim != 1:
            raise ValueError("Data points must be 1-D sequences")
        if xp.shape[0] != fp.shape[0]:
            raise ValueError("fp and xp are not of the same length")
        x, xp = _binary("remainder", x, period), _binary("remainder", xp, period)
        order = argsort(xp)
        xp, fp = _take_flat(xp, order), _take_flat(fp, order)
        xp = concatenate((_binary("subtract", xp[-1:], period), xp, _binary("add", xp[0:1], period)))
        fp = concatenate((fp[-1:], fp, fp[0:1]))
    for v in (fp, xp):
        if v.ndim != 1:
            raise ValueError("object of too small depth for desired array" if v.ndim == 0 else
                             "object too deep for desired array")
    if xp.size == 0:
        raise ValueError("array of sample points is empty")
    if fp.size != xp.size:
        raise ValueError("fp and xp are not of the same length.")
    if ftype == np.float64:
        return _interp_real(x, xp, fp, None if left is None else _bound(left, float),
                            None if right is None else _bound(right, float))
    halves = [_interp_real(x, xp, part(fp), None if left is None else part(_bound(left, complex)),
                           None if right is None else part(_bound(right, complex)))
              for part in (_complex.real, _complex.imag)]
    return _complex._assemble(halves[0], halves[1], np.dtype(np.complex128))


def _bound(v, kind):
    """interp's left / right: a number (as numpy converts it) or a device array of one."""
    if isinstance(v, ndarray):
        return v.astype(np.complex128 if kind is complex else np.float64, copy=False)
    value = kind(v)
    if kind is complex:  # as a 0-d device array, so its halves are views
        return asarray(np.asarray(value, np.complex128))
    return value


def polyval(p, x):
    """numpy's polyval: p[0] * x**(n-1) + ... + p[n-1] by Horner's rule, y = y * x + p[i] from
    y = zeros_like(x). Host coefficients are numpy scalars there (value-based casting, as numpy);
    device coefficients are 0-d views of p and promote by dtype."""
    x = asarray(x)
    y = zeros_like(x)
    if x.ndim == 0 and not isinstance(p, ndarray):  # numpy: scalars with a 0-d x promote by dtype
        p = asarray(p)
    coefficients = [p[i] for i in range(len(p))] if isinstance(p, ndarray) else np.asarray(p)
    for c in coefficients:
        y = _binary("add", _binary("multiply", y, x), c)
    return y


def vander(x, N=None, increasing=False):
    """numpy's vander: columns x**(N-1), ..., x**0 (or increasing), as numpy forms them: a
    running product along each row (so integer powers are exact), in x's dtype promoted with int."""
    from ._reductions import cumprod
    x = asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = len(x) if N is None else operator.index(N)
    dtype = np.promote_types(x.dtype, int)
    if n == 0:
        return zeros_like(x, dtype=dtype, shape=(len(x), 0))
    factors = concatenate([full_like(x, 1, dtype, (len(x), 1)),
                           broadcast_to(x.astype(dtype).reshape((-1, 1)), (len(x), n - 1))], axis=1)
    powers = cumprod(factors, axis=1)
    return powers if increasing else fliplr(powers).copy()


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """numpy's polyfit: least squares over the Vandermonde matrix (cb.linalg.lstsq) with each
    column scaled to unit norm first, as numpy does; weights, full=True's (c, residuals, rank,
    s, rcond), and cov=True or 'unscaled' as numpy.polyfit gives them."""
    from . import linalg
    from ._linalg import dot, outer
    order = int(deg) + 1
    x = _binary("add", asarray(x), 0.0)
    y = _binary("add", asarray(y), 0.0)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = len(x) * np.finfo(x.dtype).eps
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = _binary("add", asarray(w), 0.0)
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = _binary("multiply", lhs, w.reshape((-1, 1)))
        rhs = _binary("multiply", rhs, w.reshape((-1, 1)) if rhs.ndim == 2 else w)
    scale = _unary("sqrt", _reduce("sum", _binary("multiply", lhs, lhs), 0, False))
    lhs = _binary("divide", lhs, scale)
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = _binary("divide", c, scale.reshape((-1, 1)) if c.ndim == 2 else scale)
    if rank != order and not full:
        import warnings
        warnings.warn("Polyfit may be poorly conditioned", np.RankWarning, stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if not cov:
        return c
    base = _binary("divide", linalg.inv(dot(lhs.swapaxes(0, 1), lhs)), outer(scale, scale))
    if cov == "unscaled":
        factor = 1
    elif len(x) <= order:
        raise ValueError("the number of data points must exceed order to scale the covariance matrix")
    else:
        factor = _binary("divide", resids, len(x) - order)
    return c, _binary("multiply", base if y.ndim == 1 else base.reshape(base.shape + (1,)), factor)


# numpy function -> device implementation (np.diff(x) of a device array lands here).
FUNCTIONS = {
    np.diff: diff, np.append: append, np.pad: pad, np.column_stack: column_stack, np.dstack: dstack,
    np.atleast_3d: atleast_3d, np.vsplit: vsplit, np.hsplit: hsplit, np.dsplit: dsplit, np.fliplr: fliplr,
    np.flipud: flipud, np.rot90: rot90, np.resize: resize, np.diag: diag, np.diagflat: diagflat, np.tri: tri,
    np.triu: _np_triu, np.tril: _np_tril, np.kron: kron, np.cross: cross, np.meshgrid: meshgrid,
    np.argwhere: argwhere, np.select: select, np.put_along_axis: put_along_axis, np.copyto: copyto,
    np.partition: partition, np.argpartition: argpartition, np.lexsort: lexsort, np.nan_to_num: nan_to_num,
    np.fix: fix, np.sinc: sinc, np.real_if_close: real_if_close, np.interp: interp, np.polyval: polyval,
    np.vander: vander, np.polyfit: polyfit,
}
# np.tri(..., like=device_array) dispatches through numpy's like= wrapper of tri.
_TRI_WITH_LIKE = getattr(np.lib.twodim_base, "_tri_with_like", None)
if _TRI_WITH_LIKE is not None:
    FUNCTIONS[_TRI_WITH_LIKE] = tri
# The names cudabridge exports (cb.diff, ...); cb.meshgrid / triu / tril are the array API's.
__all__ = ["diff", "append", "pad", "column_stack", "dstack", "atleast_3d", "vsplit", "hsplit", "dsplit", "fliplr",
           "flipud", "rot90", "resize", "diag", "diagflat", "tri", "kron", "cross", "argwhere", "select",
           "put_along_axis", "copyto", "partition", "argpartition", "lexsort", "nan_to_num", "fix", "heaviside",
           "sinc", "real_if_close", "interp", "polyval", "vander", "polyfit"]
