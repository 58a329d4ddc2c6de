"""Reshaping, joining, splitting and reordering arrays as numpy 1.24 does. Where numpy returns a
view (squeeze, expand_dims, flip, moveaxis, swapaxes, broadcast_to, split) so does this: a new
shape and strides over the same device memory. Where numpy copies (concatenate, stack, tile,
repeat, roll) the device copies, one strided copy kernel per piece; no data goes through the host."""

import numbers
import operator

import numpy as np

from . import _dtypes
from ._array import _axis, _basic_view, _launch_elementwise, _normalize_shape, asarray, ndarray


def _axes(axis, ndim):
    """A tuple of normalized, distinct axes from an int or a sequence of ints."""
    axes = (axis,) if isinstance(axis, (numbers.Integral, np.integer)) else tuple(axis)
    normalized = tuple(_axis(x, ndim) for x in axes)
    if len(set(normalized)) != len(normalized):
        raise ValueError("repeated axis")
    return normalized


def _copy_into(dst, src):
    """Writes `src` (same shape as `dst`, or broadcastable to it) into the view `dst`, casting."""
    if dst.size:
        _launch_elementwise("cast", dst, [src, dst])


def _along(a, axis, start, stop):
    """The view a[..., start:stop, ...] with the slice on `axis`."""
    return _basic_view(a, (slice(None),) * axis + (slice(start, stop),))


# ---- views --------------------------------------------------------------------------------------

def squeeze(a, axis=None):
    a = asarray(a)
    if axis is None:
        drop = {i for i, n in enumerate(a.shape) if n == 1}
    else:
        drop = set(_axes(axis, a.ndim))
        for i in drop:
            if a.shape[i] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    keep = [i for i in range(a.ndim) if i not in drop]
    return ndarray._view(a._block, a._offset, tuple(a.shape[i] for i in keep), tuple(a._strides[i] for i in keep),
                         a.dtype)


def expand_dims(a, axis):
    a = asarray(a)
    ndim = a.ndim + (1 if isinstance(axis, (numbers.Integral, np.integer)) else len(tuple(axis)))
    new = _axes(axis, ndim)
    shape, strides, rest = [], [], iter(zip(a.shape, a._strides))
    for i in range(ndim):
        n, st = (1, 0) if i in new else next(rest)
        shape.append(n)
        strides.append(st)
    return ndarray._view(a._block, a._offset, tuple(_normalize_shape(shape)), tuple(strides), a.dtype)


def flip(a, axis=None):
    a = asarray(a)
    axes = range(a.ndim) if axis is None else _axes(axis, a.ndim)
    return _basic_view(a, tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(a.ndim)))


def moveaxis(a, source, destination):
    a = asarray(a)
    src, dst = _axes(source, a.ndim), _axes(destination, a.ndim)
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return a.transpose(order)


def swapaxes(a, axis1, axis2):
    a = asarray(a)
    order = list(range(a.ndim))
    i, j = _axis(axis1, a.ndim), _axis(axis2, a.ndim)
    order[i], order[j] = order[j], order[i]
    return a.transpose(order)


def broadcast_to(a, shape):
    a = asarray(a)
    shape = _normalize_shape(shape)
    if len(shape) < a.ndim:
        raise ValueError("input operand has more dimensions than allowed by the axis remapping")
    lead = len(shape) - a.ndim
    strides = [0] * lead
    for n, have, st in zip(shape[lead:], a.shape, a._strides):
        if have != n and have != 1:
            raise ValueError(f"operands could not be broadcast together with remapped shapes "
                             f"[original->remapped]: {a.shape} and requested shape {shape}")
        strides.append(st if have == n else 0)
    return ndarray._view(a._block, a._offset, shape, tuple(strides), a.dtype)


def broadcast_arrays(*args):
    arrays = [asarray(x) for x in args]
    shape = np.broadcast_shapes(*(x.shape for x in arrays))
    return [broadcast_to(x, shape) for x in arrays]


def atleast_1d(a):
    a = asarray(a)
    return a.reshape(1) if a.ndim == 0 else a


def atleast_2d(a):
    a = asarray(a)
    return a.reshape(1, 1) if a.ndim == 0 else expand_dims(a, 0) if a.ndim == 1 else a


def _split_points(n, indices_or_sections, exact):
    if isinstance(indices_or_sections, (numbers.Integral, np.integer)):
        sections = operator.index(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        if exact and n % sections:
            raise ValueError("array split does not result in an equal division")
        size, extra = divmod(n, sections)
        bounds = [0]
        for i in range(sections):
            bounds.append(bounds[-1] + size + (1 if i < extra else 0))
        return list(zip(bounds[:-1], bounds[1:]))
    points = [0] + [operator.index(i) for i in indices_or_sections] + [n]
    return list(zip(points[:-1], points[1:]))


def split(a, indices_or_sections, axis=0):
    a = asarray(a)
    axis = _axis(axis, a.ndim)
    return [_along(a, axis, lo, hi) for lo, hi in _split_points(a.shape[axis], indices_or_sections, True)]


def array_split(a, indices_or_sections, axis=0):
    a = asarray(a)
    axis = _axis(axis, a.ndim)
    return [_along(a, axis, lo, hi) for lo, hi in _split_points(a.shape[axis], indices_or_sections, False)]


# ---- copies -------------------------------------------------------------------------------------

def concatenate(arrays, axis=0, out=None, dtype=None):
    arrays = [asarray(x) for x in arrays]
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrays, axis = [x.reshape(-1) for x in arrays], 0
    first = arrays[0]
    if first.ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = _axis(axis, first.ndim)
    for i, x in enumerate(arrays[1:], 1):
        if x.ndim != first.ndim:
            raise ValueError(f"all the input array dimensions except for the concatenation axis must match exactly, "
                             f"but along dimension 0, the array at index 0 has {first.ndim} dimension(s) and the "
                             f"array at index {i} has {x.ndim} dimension(s)")
        for d in range(first.ndim):
            if d != axis and x.shape[d] != first.shape[d]:
                raise ValueError(f"all the input array dimensions except for the concatenation axis must match "
                                 f"exactly, but along dimension {d}, the array at index 0 has size {first.shape[d]} "
                                 f"and the array at index {i} has size {x.shape[d]}")
    shape = list(first.shape)
    shape[axis] = sum(x.shape[axis] for x in arrays)
    result_dtype = _dtypes.check(dtype if dtype is not None else np.result_type(*(x.dtype for x in arrays)))
    if out is None:
        out = ndarray._new(tuple(shape), result_dtype)
    elif out.shape != tuple(shape):
        raise ValueError(f"Output array has wrong shape {out.shape}, expected {tuple(shape)}")
    at = 0
    for x in arrays:
        if x.size:
            _copy_into(_along(out, axis, at, at + x.shape[axis]), x)
        at += x.shape[axis]
    return out


def stack(arrays, axis=0, out=None, dtype=None):
    arrays = [asarray(x) for x in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    if any(x.shape != arrays[0].shape for x in arrays):
        raise ValueError("all input arrays must have the same shape")
    axis = _axis(axis, arrays[0].ndim + 1)
    return concatenate([expand_dims(x, axis) for x in arrays], axis, out, dtype)


def hstack(arrays, dtype=None):
    arrays = [atleast_1d(x) for x in arrays]
    return concatenate(arrays, 0 if arrays and arrays[0].ndim == 1 else 1, dtype=dtype)


def vstack(arrays, dtype=None):
    return concatenate([atleast_2d(x) for x in arrays], 0, dtype=dtype)


def roll(a, shift, axis=None):
    a = asarray(a)
    if axis is None:
        return roll(a.reshape(-1), shift, 0).reshape(a.shape)
    shifts = (shift,) if isinstance(shift, (numbers.Integral, np.integer)) else tuple(shift)
    axes = (axis,) if isinstance(axis, (numbers.Integral, np.integer)) else tuple(axis)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    total = [0] * a.ndim
    for s, x in zip(shifts, axes):
        total[_axis(x, a.ndim)] += operator.index(s)
    out = a
    for x, s in enumerate(total):
        n = out.shape[x]
        if n == 0 or s % n == 0:
            continue
        s %= n
        rolled = ndarray._new(out.shape, out.dtype)
        _copy_into(_along(rolled, x, s, n), _along(out, x, 0, n - s))
        _copy_into(_along(rolled, x, 0, s), _along(out, x, n - s, n))
        out = rolled
    return out.copy() if out is a else out


def _repeat_each(a, axis, times):
    """Each element along `axis` repeated `times` times: a broadcast view copied once."""
    n = a.shape[axis]
    view = ndarray._view(a._block, a._offset, a.shape[:axis + 1] + (times,) + a.shape[axis + 1:],
                         a._strides[:axis + 1] + (0,) + a._strides[axis + 1:], a.dtype)
    out = ndarray._new(view.shape, a.dtype)
    _copy_into(out, view)
    return out.reshape(a.shape[:axis] + (n * times,) + a.shape[axis + 1:])


def repeat(a, repeats, axis=None):
    a = asarray(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = _axis(axis, a.ndim)
    counts = np.asarray(repeats.get() if isinstance(repeats, ndarray) else repeats)
    if counts.dtype.kind not in "iu" and counts.size:
        raise TypeError(f"Cannot cast array data from {counts.dtype} to int64 according to the rule 'safe'")
    if (counts < 0).any():
        raise ValueError("repeats may not contain negative values.")
    if counts.ndim == 0 or counts.size == 1:
        return _repeat_each(a, axis, int(counts.reshape(-1)[0]) if counts.size else 0)
    if counts.shape != (a.shape[axis],):
        raise ValueError(f"operands could not be broadcast together with shape ({a.shape[axis]},) "
                         f"({counts.size},)")
    shape = list(a.shape)
    shape[axis] = int(counts.sum())
    out = ndarray._new(tuple(shape), a.dtype)
    at = 0
    for i, c in enumerate(counts.tolist()):  # one broadcast copy per source slice
        if c:
            _copy_into(_along(out, axis, at, at + c), _along(a, axis, i, i + 1))
        at += c
    return out


def tile(a, reps):
    a = asarray(a)
    reps = (operator.index(reps),) if isinstance(reps, (numbers.Integral, np.integer)) else \
        tuple(operator.index(r) for r in reps)
    ndim = max(a.ndim, len(reps))
    out = a.reshape((1,) * (ndim - a.ndim) + a.shape)
    reps = (1,) * (ndim - len(reps)) + reps
    for axis, r in enumerate(reps):
        if r == 1:
            continue
        # The whole block along `axis` repeated r times: a view with a leading stride-0 axis.
        view = ndarray._view(out._block, out._offset, out.shape[:axis] + (r,) + out.shape[axis:],
                             out._strides[:axis] + (0,) + out._strides[axis:], out.dtype)
        copy = ndarray._new(view.shape, out.dtype)
        _copy_into(copy, view)
        out = copy.reshape(out.shape[:axis] + (r * out.shape[axis],) + out.shape[axis + 1:])
    return out if out is not a else a.copy()
