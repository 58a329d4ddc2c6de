"""numpy's indexing functions on the device: where, nonzero, take, take_along_axis, put, and the
integer-array / boolean-mask forms of a[key] and a[key] = v.

Three built-in kernels do the moving (the same functors on the CPU engine and in the CUDA fatbin):
take (out[k] = in.flat[i[k]]), put (out.flat[i[k]] = v[k]) and copyto (numpy's copyto with where=).
Indices along an axis become flat indices by elementwise int64 arithmetic on the device; nonzero
is a scan (cumsum) of the flags and a put of each set position to its rank. Bounds are checked as
numpy's mode='raise' does, with the indices' min and max read back (two scalars), and a mask's
count is read back to size the result: the data itself never goes through the host.
"""

import numbers
import warnings

import numpy as np

from . import _dtypes
from ._array import (_axis, _basic_view, _binary, _broadcast, _contiguous_strides, _launch, _launch_elementwise,
                     _reduce, _scalar, _size, asarray, ndarray, to_device, zeros)


def _contiguous(a):
    return a if a.is_contiguous else a.copy()


def _arange(n):
    from ._creation import arange
    return arange(n, dtype=np.int64)


def _is_array(k):
    return isinstance(k, (ndarray, np.ndarray, list))


def _indices(idx):
    """Integer indices as an int64 device array (IndexError for other dtypes, as numpy's)."""
    if isinstance(idx, ndarray):
        if idx.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        return idx if idx.dtype == np.int64 else idx.astype(np.int64)
    host = np.asarray(idx)
    if host.dtype.kind not in "iu" and not (host.size == 0 and host.dtype.kind == "f"):
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return to_device(host.astype(np.int64))


def _check_bounds(idx, n, axis):
    """numpy's mode='raise': IndexError naming the first offending extreme."""
    if idx.size == 0:
        return
    hi = int(_reduce("max", idx, None, False))
    lo = int(_reduce("min", idx, None, False))
    bad = hi if hi >= n else lo if lo < -n else None
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")


def _normalized(idx, n, axis, mode):
    """Indices in [0, n) by numpy's take modes ('raise' checks, 'wrap' wraps, 'clip' clips)."""
    if n == 0 and idx.size:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    if mode == "raise":
        _check_bounds(idx, n, axis)
    elif mode == "clip":
        return _binary("minimum", _binary("maximum", idx, 0), max(n - 1, 0))
    elif mode != "wrap":
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    return _binary("remainder", idx, n) if n else idx


def _flat_index(a_shape, axis, idx):
    """Flat (C-order) positions in a contiguous array of `a_shape` of a[..., idx, ...] along `axis`
    (idx in [0, n)), shaped (outer,) + idx.shape + (inner,)."""
    outer, inner = _size(a_shape[:axis]), _size(a_shape[axis + 1:])
    if outer == 1 and inner == 1:
        return idx.reshape((1,) + idx.shape + (1,))
    n = a_shape[axis]
    pad = (1,) * idx.ndim
    flat = _binary("multiply", idx.reshape((1,) + idx.shape + (1,)), inner)
    if outer > 1:
        flat = _binary("add", flat, _binary("multiply", _arange(outer), n * inner).reshape((outer,) + pad + (1,)))
    if inner > 1:
        flat = _binary("add", flat, _arange(inner).reshape((1,) + pad + (inner,)))
    return flat


def _take_flat(a, flat):
    """out = a.flat[flat] (flat already in range; a made contiguous)."""
    a = _contiguous(a)
    out = ndarray._new(flat.shape, a.dtype)
    if out.size:
        _launch("take", out, [a, flat, out])
    return out


def _take_axis(a, idx, axis):
    """a's elements at idx (in [0, n)) along axis: numpy's take with the index dims at `axis`."""
    shape = a.shape[:axis] + idx.shape + a.shape[axis + 1:]
    if _size(shape) == 0:  # nothing to gather (e.g. a[True] of an empty a): no flat positions either
        return ndarray._new(shape, a.dtype)
    return _take_flat(a, _flat_index(a.shape, axis, idx)).reshape(shape)


def take(a, indices, axis=None, out=None, mode="raise"):
    a = asarray(a)
    idx = _indices(indices)
    if axis is None:
        a, ax = a.reshape(-1), 0
    else:
        ax = _axis(axis, a.ndim)
        if a.ndim == 0:
            raise np.AxisError(axis, 0)
    idx = _normalized(idx, a.shape[ax], ax, mode)
    result = _take_axis(a, idx, ax)
    if out is None:
        return result
    if out.shape != result.shape:
        raise ValueError(f"output array does not match result of ndarray.take: {out.shape} != {result.shape}")
    _launch_elementwise("cast", out, [result, out])
    return out


def take_along_axis(arr, indices, axis):
    arr = asarray(arr)
    idx = _indices(indices)
    if axis is None:
        if idx.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        arr, ax = arr.reshape(-1), 0
    else:
        ax = _axis(axis, arr.ndim)
    if idx.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    idx = _normalized(idx, arr.shape[ax], ax, "raise")
    src = _contiguous(arr)
    shape = tuple(i if d == ax else _broadcast((n,), (i,))[0] for d, (n, i) in enumerate(zip(arr.shape, idx.shape)))
    strides = src._strides
    flat = _binary("multiply", idx, strides[ax])
    for d, n in enumerate(arr.shape):
        if d != ax and n > 1:  # extent-1 dims broadcast: their position is always 0
            along = _binary("multiply", _arange(n), strides[d]).reshape((1,) * d + (n,) + (1,) * (arr.ndim - d - 1))
            flat = _binary("add", flat, along)
    flat = _broadcast_copy(flat, shape)
    return _take_flat(src, flat)


def _broadcast_copy(a, shape):
    if a.shape == shape:
        return a
    out = ndarray._new(shape, a.dtype)
    if out.size:
        _launch_elementwise("cast", out, [a, out])
    return out


def _put_flat(target, flat, values):
    """target.flat[flat] = values (flat in range; values broadcast to flat's shape, cast to
    target's dtype). A non-contiguous target is written through a contiguous copy."""
    if flat.size == 0:
        return
    work = target if target.is_contiguous else target.copy()
    vals = _as_device(values, target.dtype)
    _launch("put", work, [vals, flat, work])
    if work is not target:
        _launch_elementwise("cast", target, [work, target])


def _as_device(value, dtype):
    """value as a device array of dtype (device arrays cast, scalars cached, host data uploaded)."""
    if isinstance(value, ndarray):
        return value if value.dtype == dtype else value.astype(dtype)
    if isinstance(value, (numbers.Number, np.generic)):
        return _scalar(value, dtype)
    return to_device(np.asarray(value), dtype)


def put(a, ind, v, mode="raise"):
    """numpy's put: a.flat[ind] = v, v repeated when shorter; a repeated index keeps the last
    value on the simulated GPU (numpy's), one of them on a real GPU."""
    if not isinstance(a, ndarray):
        raise TypeError(f"put() argument 1 must be a cudabridge.ndarray, not {type(a).__name__}")
    idx = _normalized(_indices(ind), a.size, 0, mode)
    vals = _as_device(v, a.dtype).reshape(-1)
    if idx.size == 0 or vals.size == 0:
        return None
    if vals.size != idx.size:  # cycled, as numpy's: take wraps the positions
        vals = _take_flat(vals, _arange(idx.size)) if vals.size > 1 else vals.reshape(())
    _put_flat(a, idx, vals)
    return None


# ---- nonzero / where ----------------------------------------------------------------------------

def _flags(a):
    return a if a.dtype == np.bool_ else _binary("not_equal", a, a.dtype.type(0))


def _positions(flags):
    """The flat positions of the set flags of a 1-d bool array, in order (int64)."""
    n = flags.size
    if n == 0:
        return ndarray._new((0,), np.dtype(np.int64))
    from ._reductions import cumsum
    rank = cumsum(flags, dtype=np.int64)
    count = int(rank[n - 1])
    dest = _binary("subtract", rank, 1)
    # Unset positions go to a spare last slot, dropped afterwards.
    spare = ndarray._new((count + 1,), np.dtype(np.int64))
    dump = ndarray._new((n,), np.dtype(np.int64))
    dump.fill(count)
    _launch_elementwise("copyto", dump, [dest, flags, dump])
    _launch("put", spare, [_arange(n), dump, spare])
    return spare[:count]


def _unravel(flat, shape):
    coords = []
    step = _size(shape)
    for n in shape:
        step //= max(n, 1)
        c = _binary("floor_divide", flat, step) if step > 1 else flat
        coords.append(_binary("remainder", c, n) if n > 0 else c)
    return tuple(coords)


def unravel_index(indices, shape, order="C"):
    """numpy.unravel_index on the device: the coordinates, one int64 array per dimension, of flat
    `indices` into an array of `shape` (order 'C' or 'F'); ValueError for an index out of bounds."""
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    shape = (shape,) if isinstance(shape, (numbers.Integral, np.integer)) else tuple(shape)
    if any(isinstance(n, (bool, np.bool_)) or not isinstance(n, (numbers.Integral, np.integer)) for n in shape):
        raise TypeError("unravel_index: the dimensions must be integers")
    shape = tuple(int(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError("dimensions must be non-negative")
    idx = indices if isinstance(indices, ndarray) else to_device(np.asarray(indices))
    if idx.dtype.kind not in "iu":
        raise TypeError(f"only int indices permitted, not {idx.dtype}")
    idx = idx if idx.dtype == np.int64 else idx.astype(np.int64)
    size = _size(shape)
    if idx.size:
        lo, hi = int(_reduce("min", idx, None, False)), int(_reduce("max", idx, None, False))
        bad = lo if lo < 0 else hi if hi >= size else None
        if bad is not None:
            raise ValueError(f"index {bad} is out of bounds for array with size {size}")
    if order == "C":
        return _unravel(idx, shape)
    return tuple(reversed(_unravel(idx, shape[::-1])))


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """numpy.ravel_multi_index on the device: the flat int64 indices of coordinate arrays (one per
    dimension of `dims`, broadcast together); mode 'raise' (ValueError), 'wrap' or 'clip', one for
    all dimensions or one each."""
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    dims = (dims,) if isinstance(dims, (numbers.Integral, np.integer)) else tuple(int(n) for n in dims)
    coords = list(multi_index)
    if len(coords) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims) or any(m not in ("raise", "wrap", "clip") for m in modes):
        raise ValueError("mode must be 'raise', 'wrap' or 'clip', one for all dimensions or one each")
    flat, stride = None, 1
    for k in (range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))):
        kind = coords[k].dtype.kind if isinstance(coords[k], ndarray) else np.asarray(coords[k]).dtype.kind
        if kind not in "iu":
            raise TypeError("only int indices permitted")
        c = _indices(coords[k])
        n = dims[k]
        if modes[k] == "wrap":
            c = _binary("remainder", c, n)
        elif modes[k] == "clip":
            c = _binary("minimum", _binary("maximum", c, 0), n - 1)
        elif c.size and (int(_reduce("min", c, None, False)) < 0 or int(_reduce("max", c, None, False)) >= n):
            raise ValueError("invalid entry in coordinates array")
        term = _binary("multiply", c, stride) if stride != 1 else c
        flat = term if flat is None else _binary("add", flat, term)
        stride *= n
    return flat


def nonzero(a):
    a = asarray(a)
    if a.ndim == 0:
        warnings.warn("Calling nonzero on 0d arrays is deprecated, as it behaves surprisingly. Use "
                      "`atleast_1d(cond).nonzero()` if the old behavior was intended.", DeprecationWarning,
                      stacklevel=2)
        a = a.reshape(1)
    flat = _positions(_flags(a).reshape(-1))
    return _unravel(flat, a.shape) if a.ndim > 1 else (flat,)


def flatnonzero(a):
    return _positions(_flags(asarray(a)).reshape(-1))


def _promotion_operand(x):
    if isinstance(x, ndarray):
        return x.dtype
    if isinstance(x, (numbers.Number, np.generic)):
        return x  # value-based, as numpy 1.24's where
    return np.asarray(x)


def where(condition, x=None, y=None):
    """numpy's where: nonzero(condition) alone, else x where condition else y (broadcast, with
    numpy 1.24's promotion): y copied (cast) into the result, then x over it where condition."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    cond = _flags(asarray(condition))
    dtype = np.result_type(_promotion_operand(x), _promotion_operand(y))
    if dtype not in _dtypes.CODES:
        raise TypeError(f"where: the result dtype {dtype} is not supported on the device")
    dtype = _dtypes.check(dtype)
    xd = _as_device(x, dtype)
    yd = y if isinstance(y, ndarray) else _as_device(y, dtype)  # the cast below converts it
    out = ndarray._new(_broadcast(cond.shape, xd.shape, yd.shape), dtype)
    if out.size:
        _launch_elementwise("cast", out, [yd, out])
        _launch_elementwise("copyto", out, [xd, cond, out])
    return out


# ---- a[key] and a[key] = v with an integer array or a boolean mask ---------------------------

def _split_key(a, key):
    """(view, axis, index) for a key of basic indices plus one integer array or boolean mask:
    the basic part applied with the array replaced by ':', and the view's axis the array acts
    on. None when the key is not of that form."""
    if not isinstance(key, tuple):
        key = (key,)
    arrays = [i for i, k in enumerate(key) if _is_array(k) or isinstance(k, (bool, np.bool_))]  # True: a 0-d mask
    if len(arrays) != 1:
        return None
    at = arrays[0]
    ints = [i for i, k in enumerate(key)
            if isinstance(k, (numbers.Integral, np.integer)) and not isinstance(k, (bool, np.bool_))]
    advanced = sorted(ints + [at])
    if advanced != list(range(advanced[0], advanced[-1] + 1)):
        return None  # numpy moves the broadcast dims to the front here: not handled on the device
    index = key[at]
    index = index if isinstance(index, ndarray) else np.asarray(index)
    mask = index.dtype == np.bool_
    width = index.ndim if mask else 1
    before = key[:at]
    explicit = sum(1 for k in key if k is not None and k is not Ellipsis) + width - 1
    if explicit > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but {explicit} were indexed")
    filler = (slice(None),) * width
    view = _basic_view(a, before + filler + key[at + 1:])
    if view is None:
        return None
    axis = 0
    for k in before:
        if k is Ellipsis:
            axis += a.ndim - explicit
        elif k is None or isinstance(k, slice):
            axis += 1
    return view, axis, index


def _mask_rows(view, axis, mask):
    """The view with the mask's dims merged into one at `axis` (contiguous), the mask's flat
    positions there, and the mask as a device array; IndexError on a shape mismatch. A dimension
    of 0 in the mask matches any (numpy 1.24's rule): such a mask selects nothing, as an all-False
    mask of the view's shape does."""
    mask = mask if isinstance(mask, ndarray) else to_device(mask)
    k = mask.ndim
    for d in range(k):
        if mask.shape[d] != view.shape[axis + d] and mask.shape[d] != 0:
            raise IndexError(f"boolean index did not match indexed array along dimension {axis + d}; dimension is "
                             f"{view.shape[axis + d]} but corresponding boolean dimension is {mask.shape[d]}")
    if mask.size == 0 and mask.shape != view.shape[axis:axis + k]:
        mask = zeros(view.shape[axis:axis + k], np.bool_)
    return mask, k


def getitem(a, key):
    """a[key] for keys with one integer array or boolean mask (plus basic indices), or a tuple of
    leading integer arrays; the other advanced forms raise IndexError naming them."""
    split = _split_key(a, key)
    if split is None:
        return _multi_getitem(a, key)
    view, axis, index = split
    if index.dtype == np.bool_:
        mask, k = _mask_rows(view, axis, index)
        merged = view if k == 1 else \
            _contiguous(view).reshape(view.shape[:axis] + (_size(mask.shape),) + view.shape[axis + k:])
        return _take_axis(merged, _positions(mask.reshape(-1)), axis)
    idx = _normalized(_indices(index), view.shape[axis], axis, "raise")
    return _take_axis(view, idx, axis)


def _multi_flat(a, key):
    """For a key of k >= 2 leading integer arrays (then slices): the flat positions over a's first
    k dims (broadcast together) and the rest of a's shape."""
    if not isinstance(key, tuple):
        return None
    k = 0
    while k < len(key) and _is_array(key[k]):
        k += 1
    if k < 2 or any(not (isinstance(s, slice) and s == slice(None)) for s in key[k:]):
        return None
    if k > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but {k} were indexed")
    idx = [_indices(i) for i in key[:k]]
    flat = None
    step = 1
    for d in reversed(range(k)):
        i = _normalized(idx[d], a.shape[d], d, "raise")
        term = _binary("multiply", i, step) if step != 1 else i
        flat = term if flat is None else _binary("add", flat, term)
        step *= a.shape[d]
    return flat, a.shape[k:]


def _multi_getitem(a, key):
    multi = _multi_flat(a, key)
    if multi is None:
        raise IndexError(f"this combination of advanced indices is not supported on the device: {key!r}")
    flat, rest = multi
    rows = _contiguous(a).reshape((-1,) + rest)
    return _take_axis(rows, flat, 0)


def setitem(a, key, value):
    """a[key] = value for the keys getitem takes. A scalar through a mask is one masked copy."""
    split = _split_key(a, key)
    if split is None:
        multi = _multi_flat(a, key)
        if multi is None:
            raise IndexError(f"this combination of advanced indices is not supported on the device: {key!r}")
        flat, rest = multi
        positions = _flat_index((_size(a.shape[:len(a.shape) - len(rest)]),) + rest, 0, flat)
        _put_flat(a, positions, _values_for(value, a.dtype, flat.shape + rest, positions.shape))
        return
    view, axis, index = split
    if index.dtype == np.bool_:
        mask, k = _mask_rows(view, axis, index)
        if _is_scalar(value):
            full = mask.reshape((1,) * axis + mask.shape + (1,) * (view.ndim - axis - k))
            _launch_elementwise("copyto", view, [_as_device(value, view.dtype), full, view])
            return
        merged_shape = view.shape[:axis] + (_size(mask.shape),) + view.shape[axis + k:]
        idx = _positions(mask.reshape(-1))
    else:
        merged_shape = view.shape
        idx = _normalized(_indices(index), view.shape[axis], axis, "raise")
    result_shape = merged_shape[:axis] + idx.shape + merged_shape[axis + 1:]
    positions = _flat_index(merged_shape, axis, idx)
    if view.is_contiguous:
        target = ndarray._view(view._block, view._offset, merged_shape, _contiguous_strides(merged_shape), view.dtype)
        _put_flat(target, positions, _values_for(value, view.dtype, result_shape, positions.shape))
        return
    work = view.copy()
    target = work.reshape(merged_shape)
    _put_flat(target, positions, _values_for(value, view.dtype, result_shape, positions.shape))
    _launch_elementwise("cast", view, [work, view])


def _is_scalar(value):
    return isinstance(value, (numbers.Number, np.generic)) or (isinstance(value, ndarray) and value.size == 1
                                                               and value.ndim == 0)


def _values_for(value, dtype, result_shape, flat_shape):
    """value broadcast to the selection's shape (numpy's rule), cast to dtype, laid out as the
    flat positions are: (outer,) + index shape + (inner,)."""
    vals = _as_device(value, dtype)
    if vals.size == 1:
        return vals.reshape(())
    try:
        _broadcast(vals.shape, result_shape)
        if _broadcast(vals.shape, result_shape) != tuple(result_shape):
            raise ValueError
    except ValueError:
        raise ValueError(f"shape mismatch: value array of shape {vals.shape} could not be broadcast to indexing "
                         f"result of shape {tuple(result_shape)}") from None
    return _broadcast_copy(vals, tuple(result_shape)).reshape(flat_shape)
