"""numpy's dispatch protocols (NEP 13 __array_ufunc__, NEP 18 __array_function__): np.add(x, y),
np.sum(x) and np.concatenate([x, y]) on device arrays run on the device and return device arrays,
as CuPy's do. A numpy ufunc or function with no device implementation raises TypeError naming it:
nothing is computed on the host behind the caller's back. Copying to the host stays explicit
(np.asarray(x), x.get(), cb.asnumpy(x))."""

import numpy as np

from . import _array, _complex, _creation, _dtypes, _indexing, _linalg, _manipulation, _reductions, _sorting, _ufuncs
from . import _shaping, _statistics, fft, linalg

# ufunc -> the device kernel that computes it (kernel names are numpy's ufunc names, except
# true_divide's). np.power, np.divmod and np.clip have functions of their own (_ufuncs.py).
_BINARY = {getattr(np, name): name for name in _ufuncs.BINARY}
_BINARY[np.true_divide] = "divide"
_UNARY = {getattr(np, name): name for name in _ufuncs.UNARY}
_UNARY.update({np.radians: "deg2rad", np.degrees: "rad2deg"})
# ufunc.reduce -> the reduction kernel.
_REDUCE = {np.add: "sum", np.multiply: "prod", np.maximum: "max", np.minimum: "min", np.logical_and: "all", np.logical_or: "any"}


def _unsupported(what):
    return TypeError(f"{what} has no implementation on the device (cudabridge); copy to the host explicitly "
                     f"with cb.asnumpy(x) to compute it there")


def _single_out(ufunc, out):
    if out is None:
        return None
    if len(out) != 1:
        raise ValueError(f"{ufunc.__name__} has 1 output, got {len(out)}")
    if not isinstance(out[0], _array.ndarray):
        raise TypeError(f"{ufunc.__name__}: out= must be a cudabridge.ndarray, not {type(out[0]).__name__}")
    return out[0]


def _check_kwargs(ufunc, kwargs):
    extra = set(kwargs) - {"casting"}
    if extra or kwargs.get("casting", "same_kind") != "same_kind":
        raise TypeError(f"numpy.{ufunc.__name__}: the argument(s) {', '.join(sorted(kwargs))} are not supported "
                        f"on the device")


def _in_dtype(ufunc, inputs, dtype, casting):
    """ufunc(..., dtype=): the inputs cast to `dtype` on the device, and the result's dtype, both as
    numpy resolves them (numpy itself is asked, on one-element probes, so a dtype no loop of the
    ufunc allows raises numpy's own TypeError)."""
    d = _dtypes.check(dtype)
    probes = [np.zeros(1, x.dtype) if isinstance(x, _array.ndarray)
              else np.asarray(x).reshape(-1)[:1] if isinstance(x, np.ndarray) else x for x in inputs]
    with np.errstate(all="ignore"):
        want = _dtypes.check(ufunc(*probes, dtype=d, casting=casting).dtype)
    cast = tuple(x.astype(d) if isinstance(x, _array.ndarray) and x.dtype != d else x for x in inputs)
    return cast, want


def _call(ufunc, inputs, out, kwargs):
    _check_kwargs(ufunc, kwargs)
    if ufunc in _BINARY:
        return _ufuncs.binary(_BINARY[ufunc], inputs[0], inputs[1], out=out)
    if ufunc is np.power:
        return _ufuncs.power(inputs[0], inputs[1], out=out)
    if ufunc is np.matmul:
        return _linalg.matmul(inputs[0], inputs[1], out=out)
    if ufunc in _UNARY:
        return _ufuncs.unary(_UNARY[ufunc], inputs[0], out=out)
    if ufunc is np.positive:
        return _ufuncs.positive(inputs[0], out=out)
    if ufunc is np.conjugate:
        return _ufuncs.conjugate(inputs[0], out=out)
    if ufunc is np.float_power:
        return _ufuncs.float_power(inputs[0], inputs[1], out=out)
    if ufunc is np.heaviside:
        return _shaping.heaviside(inputs[0], inputs[1], out=out)
    raise _unsupported(f"numpy.{ufunc.__name__}")


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if ufunc is np.divmod and method == "__call__":
        out = kwargs.pop("out", None)
        if out is not None and not all(o is None or isinstance(o, _array.ndarray) for o in out):
            raise TypeError("divmod: out= must hold cudabridge.ndarrays")
        _check_kwargs(ufunc, kwargs)
        return _ufuncs.divmod(inputs[0], inputs[1], out=out)
    out = _single_out(ufunc, kwargs.pop("out", None))
    if method == "__call__":
        dtype = kwargs.pop("dtype", None)
        if dtype is None:
            return _call(ufunc, inputs, out, kwargs)
        inputs, want = _in_dtype(ufunc, inputs, dtype, kwargs.get("casting", "same_kind"))
        result = _call(ufunc, inputs, out, kwargs)
        return result if out is not None or result.dtype == want else result.astype(want)
    if method == "reduce" and ufunc in _REDUCE:
        axis = kwargs.pop("axis", 0)
        return _reductions.by_name(_REDUCE[ufunc], inputs[0], axis=axis, out=out, **kwargs)
    raise _unsupported(f"numpy.{ufunc.__name__}.{method}")


def _result_type(*arrays_and_dtypes):
    return np.result_type(*(x.dtype if isinstance(x, _array.ndarray) else x for x in arrays_and_dtypes))


def _can_cast(from_, to, casting="safe"):
    return np.can_cast(from_.dtype if isinstance(from_, _array.ndarray) else from_, to, casting)


def _shape(a):
    return a.shape if isinstance(a, _array.ndarray) else np.shape(a)


def _size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


def _like(make):
    def like(a, *args, dtype=None, order="K", subok=True, shape=None):
        if order not in ("K", "C", "A"):
            raise NotImplementedError("only C order is supported")
        return make(a, *args, dtype=dtype, shape=shape)
    return like


def _copy(a, order="K", subok=False):
    return _array.asarray(a, copy=True)


def _reshape(a, newshape, order="C"):
    return _array.asarray(a).reshape(newshape, order=order)


def _transpose(a, axes=None):
    a = _array.asarray(a)
    return a.transpose() if axes is None else a.transpose(axes)


def _ravel(a, order="C"):
    return _array.asarray(a).reshape(-1, order=order)


def _joined(join):
    def joined(arrays, *args, casting="same_kind", **kwargs):
        return join(arrays, *args, **kwargs)
    return joined


def _broadcast_to(array, shape, subok=False):
    return _manipulation.broadcast_to(array, shape)


def _broadcast_arrays(*args, subok=False):
    return _manipulation.broadcast_arrays(*args)


def _einsum(subscripts, *operands, out=None, optimize=False, **kwargs):
    if kwargs:
        raise TypeError(f"numpy.einsum: {', '.join(sorted(kwargs))} not supported on the device")
    result = _linalg.einsum(subscripts, *operands)
    if out is None:
        return result
    _manipulation._copy_into(out, result)
    return out


def _clip(a, a_min, a_max, out=None, **kwargs):
    if kwargs:
        raise TypeError(f"numpy.clip: {', '.join(sorted(kwargs))} not supported on the device")
    return _ufuncs.clip(a, a_min, a_max, out=out)


def _around(a, decimals=0, out=None):
    return _ufuncs.around(a, decimals, out=out)


def _atleast(one):
    def atleast(*arrays):
        results = [one(a) for a in arrays]
        return results[0] if len(results) == 1 else results
    return atleast


_FUNCTIONS = {
    np.sum: _reductions.sum, np.mean: _reductions.mean, np.amax: _reductions.max, np.amin: _reductions.min,
    np.any: _reductions.any, np.all: _reductions.all, np.array_equal: _reductions.array_equal,
    np.prod: _reductions.prod, np.argmax: _reductions.argmax, np.argmin: _reductions.argmin,
    np.var: _reductions.var, np.std: _reductions.std, np.nansum: _reductions.nansum,
    np.nanmean: _reductions.nanmean, np.nanmax: _reductions.nanmax, np.nanmin: _reductions.nanmin,
    np.count_nonzero: _reductions.count_nonzero, np.cumsum: _reductions.cumsum, np.cumprod: _reductions.cumprod,
    np.concatenate: _joined(_manipulation.concatenate), np.stack: _joined(_manipulation.stack),
    np.hstack: _joined(_manipulation.hstack), np.vstack: _joined(_manipulation.vstack),
    np.split: _manipulation.split, np.array_split: _manipulation.array_split,
    np.squeeze: _manipulation.squeeze, np.expand_dims: _manipulation.expand_dims, np.flip: _manipulation.flip,
    np.roll: _manipulation.roll, np.moveaxis: _manipulation.moveaxis, np.swapaxes: _manipulation.swapaxes,
    np.broadcast_to: _broadcast_to, np.broadcast_arrays: _broadcast_arrays, np.tile: _manipulation.tile,
    np.repeat: _manipulation.repeat, np.atleast_1d: _atleast(_manipulation.atleast_1d),
    np.atleast_2d: _atleast(_manipulation.atleast_2d),
    np.reshape: _reshape, np.transpose: _transpose, np.ravel: _ravel, np.copy: _copy, np.dot: _linalg.dot,
    np.vdot: _linalg.vdot, np.inner: _linalg.inner, np.outer: _linalg.outer, np.tensordot: _linalg.tensordot,
    np.trace: _linalg.trace, np.diagonal: _linalg.diagonal, np.einsum: _einsum,
    np.shape: _shape, np.ndim: lambda a: a.ndim, np.size: _size,
    np.zeros_like: _like(_creation.zeros_like), np.ones_like: _like(_creation.ones_like),
    np.empty_like: _like(_creation.empty_like), np.full_like: _like(_creation.full_like),
    np.result_type: _result_type, np.can_cast: _can_cast, np.clip: _clip,
    np.where: _indexing.where, np.nonzero: _indexing.nonzero, np.flatnonzero: _indexing.flatnonzero,
    np.take: _indexing.take, np.take_along_axis: _indexing.take_along_axis, np.put: _indexing.put,
    np.unravel_index: _indexing.unravel_index, np.ravel_multi_index: _indexing.ravel_multi_index,
    np.sort: _sorting.sort, np.argsort: _sorting.argsort, np.searchsorted: _sorting.searchsorted,
    np.unique: _sorting.unique,
    np.linalg.norm: linalg.norm, np.linalg.solve: linalg.solve, np.linalg.inv: linalg.inv,
    np.linalg.det: linalg.det, np.linalg.slogdet: linalg.slogdet, np.linalg.cholesky: linalg.cholesky,
    np.linalg.matrix_power: linalg.matrix_power, np.linalg.qr: linalg.qr, np.linalg.eigh: linalg.eigh,
    np.linalg.eigvalsh: linalg.eigvalsh, np.linalg.svd: linalg.svd, np.linalg.pinv: linalg.pinv,
    np.linalg.matrix_rank: linalg.matrix_rank, np.linalg.lstsq: linalg.lstsq,
    np.real: _complex.real, np.imag: _complex.imag, np.angle: _complex.angle,
    np.iscomplexobj: lambda x: x.dtype.kind == "c", np.isrealobj: lambda x: x.dtype.kind != "c",
}


_FUNCTIONS.update({getattr(np.fft, name): getattr(fft, name) for name in fft.__all__})
_FUNCTIONS.update(_statistics.FUNCTIONS)
_FUNCTIONS.update(_shaping.FUNCTIONS)
for _name in ("product", "cumproduct"):  # numpy 1.x's older names
    if hasattr(np, _name):
        _FUNCTIONS[getattr(np, _name)] = _reductions.prod if _name == "product" else _reductions.cumprod
for _name in ("max", "min"):  # np.max / np.min are np.amax / np.amin in numpy 1.24, objects of their own later
    _FUNCTIONS[getattr(np, _name)] = getattr(_reductions, _name)
for _name in ("around", "round", "round_"):  # round_ is numpy 1.x only
    if hasattr(np, _name):
        _FUNCTIONS[getattr(np, _name)] = _around


def array_function(self, func, types, args, kwargs):
    if not all(issubclass(t, (_array.ndarray, np.ndarray)) for t in types):
        return NotImplemented  # another library's array: let it (or numpy's TypeError) answer
    impl = _FUNCTIONS.get(func)
    if impl is None:
        module = getattr(func, "__module__", None) or "numpy"  # numpy.linalg.eigh, numpy.fft.fft, ...
        raise _unsupported(f"{module if module.startswith('numpy.') else 'numpy'}.{func.__name__}")
    return impl(*args, **kwargs)
