"""The array API standard's (2022.12) names that numpy 1.24 lacks, and its keywords (device=,
fill_value=, correction=) on numpy-named functions. Each composes device operations; nothing is
computed on the host. numpy-named functions keep numpy 1.24's behaviour; these are additions."""

import math as _math
import numbers as _numbers
from collections import namedtuple as _namedtuple

import numpy as _np

from . import _array, _creation, _dtypes, _reductions
from ._array import _binary, ndarray
from ._reductions import _NO_VALUE
from ._indexing import where as _where
from ._manipulation import broadcast_arrays as _broadcast_arrays, broadcast_to as _broadcast_to
from ._manipulation import concatenate as _concatenate, swapaxes as _swapaxes
from ._sorting import unique as _unique

e, pi, inf, nan, newaxis = _math.e, _math.pi, _math.inf, _math.nan, None

_MISSING = object()


# ---- device= ----------------------------------------------------------------------------------

def _check_device(device, like=None):
    """device= of a creation function: None, the current device or (for *_like) like's device, as
    an index or a cudabridge.Device; anything else is a ValueError."""
    if device is None:
        return
    from . import Device, get_device

    index = device.index if isinstance(device, Device) else device
    allowed = {get_device()} | ({like.device} if isinstance(like, ndarray) else set())
    if isinstance(index, bool) or not isinstance(index, (_numbers.Integral, _np.integer)) or int(index) not in allowed:
        raise ValueError(f"device={device!r}: arrays are made on the current device ({get_device()}) only")


def arange(start, stop=None, step=1, dtype=None, *, device=None):
    _check_device(device)
    return _creation.arange(start, stop, step, dtype)


def asarray(obj, dtype=None, copy=None, *, device=None):
    _check_device(device, obj)
    return _array.asarray(obj, dtype, copy)


def empty(shape, dtype=_np.float32, *, device=None):
    _check_device(device)
    return _array.empty(shape, dtype)


def zeros(shape, dtype=_np.float32, *, device=None):
    _check_device(device)
    return _array.zeros(shape, dtype)


def ones(shape, dtype=_np.float32, *, device=None):
    _check_device(device)
    return _array.ones(shape, dtype)


def full(shape, fill_value=_MISSING, dtype=None, *, device=None, value=_MISSING):
    """numpy's full; the array API names the value `fill_value` (`value=` is still accepted)."""
    if (fill_value is _MISSING) == (value is _MISSING):
        raise TypeError("full() needs exactly one of fill_value (positional) or value=")
    _check_device(device)
    return _array.full(shape, value if fill_value is _MISSING else fill_value, dtype)


def eye(N, M=None, k=0, dtype=_np.float64, *, device=None):
    _check_device(device)
    return _creation.eye(N, M, k, dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    _check_device(device)
    return _creation.linspace(start, stop, num, endpoint, retstep, dtype, axis)


def empty_like(a, dtype=None, shape=None, *, device=None):
    _check_device(device, a)
    return _creation.empty_like(a, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    _check_device(device, a)
    return _creation.full_like(a, fill_value, dtype, shape)


def zeros_like(a, dtype=None, shape=None, *, device=None):
    _check_device(device, a)
    return _creation.zeros_like(a, dtype, shape)


def ones_like(a, dtype=None, shape=None, *, device=None):
    _check_device(device, a)
    return _creation.ones_like(a, dtype, shape)


# ---- correction= -------------------------------------------------------------------------------

# ddof's default: 0, told apart from an explicit ddof=0 (ddof and correction together are a TypeError).
_DDOF = type("_DefaultDdof", (int,), {"__repr__": lambda self: "0"})(0)


def _ddof(name, ddof, correction):
    if correction is None:
        return ddof
    if ddof is not _DDOF:
        raise TypeError(f"{name}: give ddof or correction, not both")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof=_DDOF, keepdims=False, *, correction=None, where=_NO_VALUE):
    """numpy's var; correction= is the array API's name for ddof."""
    return _reductions.var(a, axis, dtype, out, _ddof("var", ddof, correction), keepdims, where=where)


def std(a, axis=None, dtype=None, out=None, ddof=_DDOF, keepdims=False, *, correction=None, where=_NO_VALUE):
    """numpy's std; correction= is the array API's name for ddof."""
    return _reductions.std(a, axis, dtype, out, _ddof("std", ddof, correction), keepdims, where=where)


# ---- dtypes ------------------------------------------------------------------------------------

def _dtype_of(x):
    return x.dtype if isinstance(x, (ndarray, _np.ndarray)) else _dtypes.check(x)


class finfo_object:
    """The array API's finfo: bits, eps, max, min, smallest_normal as Python floats, and dtype.
    numpy's other fields (resolution, tiny, ...) are numpy's."""

    def __init__(self, type):
        self._info = _np.finfo(_dtype_of(type))
        self.bits = int(self._info.bits)
        self.eps, self.max, self.min = float(self._info.eps), float(self._info.max), float(self._info.min)
        self.smallest_normal = float(self._info.smallest_normal)
        self.dtype = self._info.dtype

    def __getattr__(self, name):
        return getattr(self.__dict__["_info"], name)

    def __repr__(self):
        return repr(self._info)


class iinfo_object:
    """The array API's iinfo: bits, max, min as Python ints, and dtype."""

    def __init__(self, type):
        info = _np.iinfo(_dtype_of(type))
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), int(info.min), info.dtype
        self.kind = info.kind

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def finfo(type):
    """Machine limits of a floating dtype (device arrays are accepted)."""
    return finfo_object(type)


def iinfo(type):
    """Machine limits of an integer dtype (device arrays are accepted)."""
    return iinfo_object(type)


def astype(x, dtype, /, *, copy=True):
    return x.astype(dtype, copy=copy)


def can_cast(from_, to, /):
    """Whether from_ (a dtype or an array) casts to `to` under numpy's "safe" rule."""
    return bool(_np.can_cast(_dtype_of(from_), _dtypes.check(to)))


def result_type(*arrays_and_dtypes):
    """numpy's promotion of the dtypes of the arrays and dtypes given."""
    if not arrays_and_dtypes:
        raise ValueError("at least one array or dtype is required")
    return _dtypes.check(_np.result_type(*[_dtype_of(x) for x in arrays_and_dtypes]))


_KINDS = {
    "bool": lambda d: d.kind == "b",
    "signed integer": lambda d: d.kind == "i",
    "unsigned integer": lambda d: d.kind == "u",
    "integral": lambda d: d.kind in "iu",
    "real floating": lambda d: d.kind == "f",
    "complex floating": lambda d: d.kind == "c",
    "numeric": lambda d: d.kind in "iufc",
}


def isdtype(dtype, kind):
    """Whether dtype is of kind: a dtype, one of the standard's kind names, or a tuple of them."""
    d = _np.dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(d, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"isdtype: unknown kind {kind!r}")
        return _KINDS[kind](d)
    return d == _np.dtype(kind)


# ---- inspection: the standard's __array_namespace_info__ (2023.12) ------------------------------

_STANDARD_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
                    "float64", "complex64", "complex128")


class _NamespaceInfo:
    """What this namespace offers, as the standard's inspection API asks: its devices (indices, as
    `x.device` gives), the dtypes every device holds and the defaults of asarray / arange /
    linspace, and of `zeros`, `ones` and `empty` in `cudabridge.array_api` (the main module's
    keep float32, this package's numpy-era default)."""

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True}

    def default_device(self):
        from . import get_device
        return get_device()

    def devices(self):
        from . import devices
        return [d.index for d in devices()]

    def default_dtypes(self, *, device=None):
        _check_device(device)
        return {"real floating": _np.dtype(_np.float64), "complex floating": _np.dtype(_np.complex128),
                "integral": _np.dtype(_np.int64), "indexing": _np.dtype(_np.int64)}

    def dtypes(self, *, device=None, kind=None):
        _check_device(device)
        return {name: _np.dtype(name) for name in _STANDARD_DTYPES if kind is None or isdtype(name, kind)}


def __array_namespace_info__():
    return _NamespaceInfo()


# ---- manipulation ------------------------------------------------------------------------------

def reshape(x, /, shape, *, copy=None):
    """x with the given shape: a view when possible; copy=True always copies, copy=False raises
    ValueError when a copy would be needed."""
    x = _array.asarray(x)
    if copy is False and not x.is_contiguous:
        raise ValueError("reshape: the array is not contiguous, and copy=False")
    out = x.reshape(shape)
    return out.copy() if copy else out


def concat(arrays, /, *, axis=0):
    """concatenate; axis=None concatenates the flattened arrays."""
    if axis is None:
        return _concatenate([_array.asarray(a).reshape(-1) for a in arrays])
    return _concatenate(arrays, axis=axis)


def permute_dims(x, /, axes):
    return x.transpose(tuple(axes))


def matrix_transpose(x, /):
    """The last two axes swapped (a view)."""
    if x.ndim < 2:
        raise ValueError("matrix_transpose needs at least two dimensions")
    return _swapaxes(x, -1, -2)


def vecdot(x1, x2, /, *, axis=-1):
    """Dot products of x1 and x2 along `axis` of their broadcast shape (dtype: their promotion);
    x1 conjugated where complex, as the standard (and numpy 2's vecdot) defines it."""
    a, b = _broadcast_arrays(_array.asarray(x1), _array.asarray(x2))
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"vecdot: axis {axis} is out of range for {a.ndim} dimensions")
    if _array.asarray(x1).shape[axis] != _array.asarray(x2).shape[axis]:
        raise ValueError("vecdot: x1 and x2 differ in size along axis")
    if a.dtype.kind == "c":
        from ._complex import conjugate_into
        a = conjugate_into(a, None)
    prod = _binary("multiply", a, b)
    return _reductions.sum(prod, axis=axis, dtype=prod.dtype)


def meshgrid(*arrays, indexing="xy"):
    """numpy's meshgrid of 1-D arrays (copies)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("meshgrid: indexing must be 'xy' or 'ij'")
    arrays = [_array.asarray(a).reshape(-1) for a in arrays]
    shape = [a.size for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        where = (1 - i if i < 2 else i) if indexing == "xy" and len(arrays) > 1 else i
        view = [1] * len(arrays)
        view[where] = a.size
        out.append(_broadcast_to(a.reshape(tuple(view)), tuple(shape)).copy())
    return out


def _triangle(x, k, lower):
    x = _array.asarray(x)
    if x.ndim == 0:
        raise ValueError("tril/triu need at least one dimension")
    m, n = x.shape[-2:] if x.ndim >= 2 else (x.shape[0], x.shape[0])
    rows = _creation.arange(m).reshape(m, 1)
    cols = _creation.arange(n).reshape(1, n)
    diff = _binary("subtract", cols, rows)  # col - row: 0 on the diagonal
    mask = _binary("less_equal" if lower else "greater_equal", diff, int(k))
    return _where(mask, x, _creation.zeros_like(x))


def tril(x, /, *, k=0):
    """x with the elements above the k-th diagonal zeroed (numpy's tril)."""
    return _triangle(x, k, True)


def triu(x, /, *, k=0):
    """x with the elements below the k-th diagonal zeroed (numpy's triu)."""
    return _triangle(x, k, False)


# ---- unique ------------------------------------------------------------------------------------

UniqueAllResult = _namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = _namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = _namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def unique_all(x, /):
    x = _array.asarray(x)
    values, indices, inverse, counts = _unique(x, return_index=True, return_inverse=True, return_counts=True)
    return UniqueAllResult(values, indices, inverse.reshape(x.shape), counts)


def unique_counts(x, /):
    values, counts = _unique(x, return_counts=True)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    x = _array.asarray(x)
    values, inverse = _unique(x, return_inverse=True)
    return UniqueInverseResult(values, inverse.reshape(x.shape))


def unique_values(x, /):
    return _unique(x)
