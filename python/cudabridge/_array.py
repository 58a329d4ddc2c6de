"""cudabridge.ndarray: an array in the eGPU's memory with numpy's semantics.

Shapes, strides (in elements), views and dtypes are kept here; the device runs the built-in
kernels on tensor descriptors (shape + strides), so basic slicing, transposes and broadcasting
cost no copy. Results follow numpy 1.24: type promotion (value-based for Python scalars),
broadcasting, integer wrap-around, division and comparison rules. Work is queued on the current
stream and runs asynchronously; reading a result (from_device, print, float()) waits for it.
"""

import functools
import itertools
import numbers
import operator

import numpy as np

from . import _core, _dtypes
from ._streams import current_stream

_REDUCE_ALL = -1000  # CB_REDUCE_ALL_AXES


@functools.lru_cache(maxsize=1024)
def _contiguous_strides(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _normalize_shape(shape):
    if isinstance(shape, (numbers.Integral, np.integer)):
        shape = (int(shape),)
    try:
        shape = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, not {shape!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError("negative dimensions are not allowed")
    if len(shape) > _MAX_DIMS:
        raise ValueError(f"maximum supported dimension for an ndarray is {_MAX_DIMS}, found {len(shape)}")
    return shape


# An array has up to numpy's 32 dimensions; a kernel's tensor descriptor holds up to 8
# (CB_TENSOR_MAX_DIMS). Elementwise kernels fold the dimensions of more (_launch_elementwise);
# the other kernels refuse such an array (_TooManyDimensions, a ValueError).
_MAX_DIMS = 32
_KERNEL_MAX_DIMS = 8


class _TooManyDimensions(ValueError):
    """An operation would hand a kernel an array of more dimensions than its descriptor holds."""


class ndarray:
    """An n-dimensional array on the eGPU. Make one with cb.to_device, cb.zeros, cb.ones, ..."""

    __slots__ = ("_block", "_offset", "_shape", "_strides", "_dtype", "_t", "__weakref__")
    __array_priority__ = 100  # numpy hands `np_array op cb_array` to our reflected operators
    __hash__ = None

    def __init__(self, shape, dtype=np.float32):
        dtype = _dtypes.check(dtype)
        shape = _normalize_shape(shape)
        self._init(_core.Buffer(_size(shape) * dtype.itemsize, current_stream()), 0, shape,
                   _contiguous_strides(shape), dtype)

    def _init(self, block, offset, shape, strides, dtype):
        self._block = block
        self._offset = offset
        self._shape = shape
        self._strides = strides
        self._dtype = dtype
        self._t = None  # the kernel descriptor tuple, made on first use (the fields never change)

    @classmethod
    def _new(cls, shape, dtype):
        """A contiguous array of a checked shape and dtype."""
        a = object.__new__(cls)
        a._init(_core.Buffer(_size(shape) * dtype.itemsize, current_stream()), 0, shape, _contiguous_strides(shape),
                dtype)
        return a

    @classmethod
    def _view(cls, block, offset, shape, strides, dtype):
        a = object.__new__(cls)
        a._init(block, offset, shape, strides, dtype)
        return a

    # ---- attributes -------------------------------------------------------------------------
    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ndim = property(lambda self: len(self._shape))
    size = property(lambda self: _size(self._shape))
    itemsize = property(lambda self: self._dtype.itemsize)
    nbytes = property(lambda self: _size(self._shape) * self._dtype.itemsize)
    strides = property(lambda self: tuple(s * self._dtype.itemsize for s in self._strides))
    T = property(lambda self: self.transpose())
    # The array API's matrix transpose: the last two axes swapped (a view; ValueError under 2-D).
    mT = property(lambda self: __import__("cudabridge")._array_api.matrix_transpose(self))

    # x.real and x.imag: views of a complex array's halves, assignable as numpy's (_complex.py).
    real = property(lambda self: _complex.real(self), lambda self, v: _complex.set_real(self, v))
    imag = property(lambda self: _complex.imag(self), lambda self, v: _complex.set_imag(self, v))

    def conj(self): return _ufuncs.conjugate(self)
    def conjugate(self): return _ufuncs.conjugate(self)

    @property
    def is_contiguous(self):
        return all(
            stride == want for n, stride, want in zip(self._shape, self._strides, _contiguous_strides(self._shape))
            if n != 1)

    @property
    def device(self):
        return self._block.device

    def to_device(self, device, /, *, stream=None):
        """This array on eGPU `device` (an index or a cudabridge.Device): itself when it is there
        already, else a copy through host memory (no peer path between eGPUs is modeled), each half
        counted and modeled like any copy over the link."""
        from . import Device

        target = device.index if isinstance(device, Device) else device
        if isinstance(target, bool) or not isinstance(target, (int, np.integer)):
            raise TypeError(f"to_device takes a device index or a cudabridge.Device, not {type(device).__name__}")
        if stream is not None:
            raise ValueError("to_device: stream= is not supported (the copy is synchronous)")
        target = int(target)
        if target == self.device:
            return self
        with Device(self.device):
            host = from_device(self)
        with Device(target):
            return to_device(host)

    def _tensor(self):
        t = self._t
        if t is None:
            if len(self._shape) > _KERNEL_MAX_DIMS:
                raise _TooManyDimensions(f"this operation takes arrays of at most {_KERNEL_MAX_DIMS} dimensions "
                                         f"on the device, not {len(self._shape)}: reshape the array first")
            t = self._t = _core.tensor(self._block, self._offset, _dtypes.code(self._dtype), self._shape,
                                       self._strides)
        return t

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    # ---- to the host ------------------------------------------------------------------------
    def get(self):
        """A numpy copy of the array (waits for the work that writes it)."""
        src = self if self.is_contiguous else self.copy()
        out = np.empty(self._shape, self._dtype)
        if out.nbytes:
            _core.download(src._block, src._offset, out.reshape(-1).view(np.uint8), current_stream())
        return out

    def __array__(self, dtype=None):
        a = self.get()
        return a if dtype is None else a.astype(dtype, copy=False)

    # ---- interop (_dlpack.py): DLPack; the CUDA array interface on a real GPU only -------
    def __dlpack__(self, stream=None, *, max_version=None, dl_device=None, copy=None):
        from . import _dlpack
        return _dlpack.export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        from . import _dlpack
        return _dlpack.device_of(self)

    @property
    def __cuda_array_interface__(self):
        from . import _dlpack
        return _dlpack.cuda_array_interface(self)

    def tolist(self):
        return self.get().tolist()

    def item(self):
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self.get().reshape(-1)[0].item()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._dtype.kind not in "iub":
            raise TypeError("only integer arrays of one element can be converted to an index")
        return operator.index(self.item())

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is ambiguous. "
                             "Use a.any() or a.all()")
        return bool(self.item())

    def __complex__(self):
        return complex(self.item())

    def __format__(self, spec):
        return format(self.get()[()] if not self._shape else self.get(), spec)

    def __repr__(self):
        return repr(self.get())

    def __str__(self):
        return str(self.get())

    # ---- views ------------------------------------------------------------------------------
    def reshape(self, *shape, order="C"):
        if order != "C":
            raise NotImplementedError("only C order is supported")
        if len(shape) == 1 and not isinstance(shape[0], (numbers.Integral, np.integer)):
            shape = shape[0]
        shape = list(shape)
        unknown = [i for i, s in enumerate(shape) if s == -1]
        if len(unknown) > 1:
            raise ValueError("can only specify one unknown dimension")
        known = _size([s for s in shape if s != -1])
        if unknown:
            if known == 0 or self.size % known:
                raise ValueError(f"cannot reshape array of size {self.size} into shape {tuple(shape)}")
            shape[unknown[0]] = self.size // known
        shape = _normalize_shape(shape)
        if _size(shape) != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into shape {shape}")
        src = self if self.is_contiguous else self.copy()
        return ndarray._view(src._block, src._offset, shape, _contiguous_strides(shape), self._dtype)

    def ravel(self):
        return self.reshape(-1)

    def flatten(self):
        return self.copy().reshape(-1)

    def transpose(self, *axes):
        if not axes:
            axes = tuple(reversed(range(self.ndim)))
        elif len(axes) == 1 and not isinstance(axes[0], (numbers.Integral, np.integer)):
            axes = tuple(axes[0])
        axes = tuple(_axis(a, self.ndim) for a in axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError("axes don't match array")
        return ndarray._view(self._block, self._offset, tuple(self._shape[a] for a in axes),
                             tuple(self._strides[a] for a in axes), self._dtype)

    def astype(self, dtype, copy=True):
        dtype = _dtypes.check(dtype)
        if dtype == self._dtype and not copy:
            return self
        out = ndarray(self._shape, dtype)
        _launch_elementwise("cast", out, [self, out])
        return out

    def copy(self):
        return self.astype(self._dtype, copy=True)

    def fill(self, value):
        _fill(self, value)

    def view(self, dtype=None):
        """The same memory read as `dtype`, as numpy's view: another itemsize rescales the last
        axis, which must then be contiguous."""
        if dtype is None:
            return ndarray._view(self._block, self._offset, self._shape, self._strides, self._dtype)
        if isinstance(dtype, type) and issubclass(dtype, ndarray):
            return self.view()
        new = _dtypes.check(dtype)
        old = self._dtype.itemsize
        if new.itemsize == old:
            return ndarray._view(self._block, self._offset, self._shape, self._strides, new)
        if not self._shape:
            raise ValueError("Changing the dtype of a 0d array is only supported if the itemsize is unchanged")
        if self._strides[-1] != 1 and self._shape[-1] != 1:
            raise ValueError("To change to a dtype of a different size, the last axis must be contiguous")
        last = self._shape[-1] * old
        if last % new.itemsize or self._offset % new.itemsize or \
                any(s * old % new.itemsize for s in self._strides[:-1]):
            raise ValueError("When changing to a different itemsize, the size of the array's last axis (in bytes) "
                             "must be divisible by the new itemsize, and the array aligned to it")
        shape = self._shape[:-1] + (last // new.itemsize,)
        strides = tuple(s * old // new.itemsize for s in self._strides[:-1]) + (1,)
        return ndarray._view(self._block, self._offset, shape, strides, new)

    def byteswap(self, inplace=False):
        """numpy's byteswap: every element's bytes reversed (each half's, for complex), the dtype
        unchanged; inplace=True swaps this array's own elements and returns it. On the device: the
        bytes as a (elements, itemsize) uint8 array, its rows reversed."""
        from ._manipulation import flip
        part = self._dtype.itemsize // (2 if self._dtype.kind == "c" else 1)
        flat = (self if self.is_contiguous else self.copy()).reshape(-1)
        if part == 1:
            swapped = flat.copy()
        else:
            rows = flat.view(np.uint8).reshape(flat.size * self._dtype.itemsize // part, part)
            swapped = flip(rows, 1).copy().reshape(-1).view(self._dtype)
        swapped = swapped.reshape(self._shape)
        if not inplace:
            return swapped
        self[...] = swapped
        return self

    # ---- indexing ---------------------------------------------------------------------------
    def __getitem__(self, key):
        view = _basic_view(self, key)
        if view is not None:
            return view
        return _indexing.getitem(self, key)  # integer arrays and masks: a copy on the device, as numpy's

    def __setitem__(self, key, value):
        view = _basic_view(self, key)
        if view is None:  # integer arrays and masks: scattered on the device
            _indexing.setitem(self, key, value)
            return
        _assign(view, value)

    def nonzero(self): return _indexing.nonzero(self)
    def take(self, indices, axis=None, out=None, mode="raise"): return _indexing.take(self, indices, axis, out, mode)
    def put(self, indices, values, mode="raise"): return _indexing.put(self, indices, values, mode)
    def argsort(self, axis=-1, kind=None, order=None): return _sorting.argsort(self, axis, kind, order)
    def searchsorted(self, v, side="left", sorter=None): return _sorting.searchsorted(self, v, side, sorter)

    def sort(self, axis=-1, kind=None, order=None):
        """Sorts in place, as numpy's ndarray.sort."""
        _assign(self, _sorting.sort(self, axis, kind, order))

    # ---- arithmetic -------------------------------------------------------------------------
    def __add__(self, o): return _binary("add", self, o)
    def __radd__(self, o): return _binary("add", o, self)
    def __iadd__(self, o): return _binary("add", self, o, out=self)
    def __sub__(self, o): return _binary("subtract", self, o)
    def __rsub__(self, o): return _binary("subtract", o, self)
    def __isub__(self, o): return _binary("subtract", self, o, out=self)
    def __mul__(self, o): return _binary("multiply", self, o)
    def __rmul__(self, o): return _binary("multiply", o, self)
    def __imul__(self, o): return _binary("multiply", self, o, out=self)
    def __truediv__(self, o): return _binary("divide", self, o)
    def __rtruediv__(self, o): return _binary("divide", o, self)
    def __itruediv__(self, o): return _binary("divide", self, o, out=self)
    def __floordiv__(self, o): return _binary("floor_divide", self, o)
    def __rfloordiv__(self, o): return _binary("floor_divide", o, self)
    def __ifloordiv__(self, o): return _binary("floor_divide", self, o, out=self)
    def __mod__(self, o): return _binary("remainder", self, o)
    def __rmod__(self, o): return _binary("remainder", o, self)
    def __imod__(self, o): return _binary("remainder", self, o, out=self)
    def __divmod__(self, o): return _ufuncs.divmod(self, o)
    def __rdivmod__(self, o): return _ufuncs.divmod(o, self)
    def __pow__(self, o): return _ufuncs.power(self, o)
    def __rpow__(self, o): return _ufuncs.power(o, self)
    def __ipow__(self, o): return _ufuncs.power(self, o, out=self)
    def __and__(self, o): return _binary("bitwise_and", self, o)
    def __rand__(self, o): return _binary("bitwise_and", o, self)
    def __iand__(self, o): return _binary("bitwise_and", self, o, out=self)
    def __or__(self, o): return _binary("bitwise_or", self, o)
    def __ror__(self, o): return _binary("bitwise_or", o, self)
    def __ior__(self, o): return _binary("bitwise_or", self, o, out=self)
    def __xor__(self, o): return _binary("bitwise_xor", self, o)
    def __rxor__(self, o): return _binary("bitwise_xor", o, self)
    def __ixor__(self, o): return _binary("bitwise_xor", self, o, out=self)
    def __lshift__(self, o): return _binary("left_shift", self, o)
    def __rlshift__(self, o): return _binary("left_shift", o, self)
    def __ilshift__(self, o): return _binary("left_shift", self, o, out=self)
    def __rshift__(self, o): return _binary("right_shift", self, o)
    def __rrshift__(self, o): return _binary("right_shift", o, self)
    def __irshift__(self, o): return _binary("right_shift", self, o, out=self)
    def __matmul__(self, o): return _linalg.matmul(self, o)
    def __rmatmul__(self, o): return _linalg.matmul(o, self)
    def __eq__(self, o): return _binary("equal", self, o)
    def __ne__(self, o): return _binary("not_equal", self, o)
    def __lt__(self, o): return _binary("less", self, o)
    def __le__(self, o): return _binary("less_equal", self, o)
    def __gt__(self, o): return _binary("greater", self, o)
    def __ge__(self, o): return _binary("greater_equal", self, o)
    def __neg__(self): return _unary("negative", self)
    def __abs__(self): return _unary("absolute", self)
    def __invert__(self): return _unary("invert", self)

    def clip(self, min=None, max=None, out=None): return _ufuncs.clip(self, min, max, out=out)
    def round(self, decimals=0, out=None): return _ufuncs.around(self, decimals, out=out)
    def __pos__(self): return _ufuncs.positive(self)

    # ---- reductions -------------------------------------------------------------------------
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        if dtype is None and out is None:
            return _reduce("sum", self, axis, keepdims)
        return _reductions.sum(self, axis, dtype, out, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return _reductions.mean(self, axis, dtype, out, keepdims)

    def max(self, axis=None, out=None, keepdims=False): return _reductions.max(self, axis, out, keepdims)
    def min(self, axis=None, out=None, keepdims=False): return _reductions.min(self, axis, out, keepdims)
    def any(self, axis=None, out=None, keepdims=False): return _reductions.any(self, axis, out, keepdims)
    def all(self, axis=None, out=None, keepdims=False): return _reductions.all(self, axis, out, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return _reductions.prod(self, axis, dtype, out, keepdims)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        return _reductions.argmax(self, axis, out, keepdims=keepdims)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        return _reductions.argmin(self, axis, out, keepdims=keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _reductions.var(self, axis, dtype, out, ddof, keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _reductions.std(self, axis, dtype, out, ddof, keepdims)

    def cumsum(self, axis=None, dtype=None, out=None): return _reductions.cumsum(self, axis, dtype, out)
    def cumprod(self, axis=None, dtype=None, out=None): return _reductions.cumprod(self, axis, dtype, out)

    # ---- reshaping (views where numpy's are views) ------------------------------------------
    def squeeze(self, axis=None): return _manipulation.squeeze(self, axis)
    def swapaxes(self, axis1, axis2): return _manipulation.swapaxes(self, axis1, axis2)
    def repeat(self, repeats, axis=None): return _manipulation.repeat(self, repeats, axis)

    # ---- numpy's protocols: np.* on device arrays runs on the device (_dispatch.py) ----------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _dispatch.array_ufunc(self, ufunc, method, *inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _dispatch.array_function(self, func, types, args, kwargs)

    def __array_namespace__(self, api_version=None):
        if api_version not in (None, "2022.12", "2021.12"):
            raise ValueError(f"unsupported array API version {api_version!r} (2022.12 is)")
        from . import array_api
        return array_api


# ---- helpers ----------------------------------------------------------------------------------

def _axis(axis, ndim):
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise np.AxisError(a, ndim)
    return a % ndim if ndim else 0


def _launch(name, out, operands, scalars=()):
    args = [x._tensor() for x in operands]
    args.extend(scalars)
    _core.launch(name, _dtypes.code(out._dtype), args, current_stream())


def _launch_elementwise(name, out, operands, scalars=()):
    """_launch for a kernel that takes each operand broadcast to out's shape element by element
    (the ufuncs, cast, fill, copyto). Past a descriptor's dimensions, every operand is folded alike
    (_fold); the leading dimensions that still do not fit are looped over here, one launch each."""
    if len(out._shape) <= _KERNEL_MAX_DIMS:
        _launch(name, out, operands, scalars)
        return
    if out.size == 0:
        return
    dims, strides = _fold(out._shape, operands)
    lead = max(0, len(dims) - _KERNEL_MAX_DIMS)
    for index in itertools.product(*map(range, dims[:lead])):
        views = [ndarray._view(a._block, a._offset + sum(i * s for i, s in zip(index, st)) * a.itemsize,
                               dims[lead:], st[lead:], a._dtype) for a, st in zip(operands, strides)]
        _launch(name, out, views, scalars)


def _fold(shape, arrays):
    """The fewest dimensions that step through `arrays` (each broadcastable to `shape`) element for
    element as `shape` does: its length-1 dimensions dropped, and each dimension merged into the
    one before it where every array steps through the two as through one. (dims, one strides tuple
    per array)."""
    n = len(shape)
    strides = [[0] * (n - a.ndim) + [0 if d == 1 else s for d, s in zip(a._shape, a._strides)] for a in arrays]
    dims, folded = [], [[] for _ in arrays]
    for i, length in enumerate(shape):
        if length == 1:
            continue
        if dims and all(f[-1] == s[i] * length for f, s in zip(folded, strides)):
            dims[-1] *= length
            for f, s in zip(folded, strides):
                f[-1] = s[i]
        else:
            dims.append(length)
            for f, s in zip(folded, strides):
                f.append(s[i])
    return tuple(dims), [tuple(f) for f in folded]


_SCALARS = {}  # (dtype, value bytes) -> a 0-d device array holding the value


def _scalar(value, dtype):
    """A 0-d device array with `value` cast to `dtype`, cached: an op with a constant uploads it once."""
    host = np.array(value, dtype=dtype)
    key = (dtype, host.tobytes(), _core.generation())
    a = _SCALARS.get(key)
    if a is None:
        if len(_SCALARS) > 1024:
            _SCALARS.clear()
        a = to_device(host)
        _SCALARS[key] = a
    return a


def _operand(x, other_dtype):
    """An operand of a binary op as a device array, with numpy 1.24's rules for Python scalars."""
    if isinstance(x, ndarray):
        return x
    if isinstance(x, (bool, int, float, complex, np.bool_, np.integer, np.floating, np.complexfloating)):
        # numpy 1.24 casts by value for Python and numpy scalars: int8_array + 1 stays int8.
        dtype = _dtypes.scalar_dtype(other_dtype, x)
        if dtype not in _dtypes.CODES:
            raise TypeError(f"numpy computes {other_dtype} with {x!r} in {dtype}, which is not supported on the "
                            f"device: cast the array first (.astype)")
        return _scalar(x, dtype)
    if isinstance(x, (np.ndarray, list, tuple)):
        return to_device(np.asarray(x))
    return None


def _broadcast(*shapes):
    if len(shapes) == 2 and shapes[0] == shapes[1]:
        return shapes[0]
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError("operands could not be broadcast together with shapes " +
                         " ".join(str(s) for s in shapes)) from None


def _result(name, shape, info, tensors, tail=()):
    """A new contiguous array of `shape` and `info` = (dtype, code, itemsize), computed by kernel
    `name` from `tensors` (the inputs' descriptors) in one call into the extension: the
    operators' fast path."""
    a = object.__new__(ndarray)
    a._block, a._t = _core.launch_new(name, info[1], info[2], tensors, tail, shape, current_stream())
    a._offset = 0
    a._shape = shape
    a._strides = _contiguous_strides(shape)
    a._dtype = info[0]
    return a


def _binary(name, a, b, out=None):
    if out is None and type(a) is ndarray and type(b) is ndarray:
        # Two device arrays (the common case): no scalar or host-array handling.
        sa, sb, da, db = a._shape, b._shape, a._dtype, b._dtype
        info = _dtypes.OPERATOR_RESULTS.get((name, id(da), id(db)))
        if info is None:
            if (da.kind == "c" or db.kind == "c") and name in _complex.BINARY:
                return _complex.binary(name, a, b)
            info = _dtypes.operator_result(name, da, db)
        try:
            return _result(name, sa if sa == sb else _broadcast(sa, sb), info,
                           (a._t or a._tensor(), b._t or b._tensor()))
        except _TooManyDimensions:
            pass  # the general path below folds the dimensions
    known = a if isinstance(a, ndarray) else b
    x = _operand(a, known.dtype)
    y = _operand(b, known.dtype)
    if x is None or y is None:
        return NotImplemented
    shape = _broadcast(x._shape, y._shape)
    if (x._dtype.kind == "c" or y._dtype.kind == "c") and name in _complex.BINARY:
        return _complex.binary(name, x, y, out)
    dtype = _dtypes.result(name, x._dtype, y._dtype)
    if dtype not in _dtypes.CODES:
        raise TypeError(f"{name} of {x._dtype} and {y._dtype} gives {dtype}, which is not supported on the device")
    if out is None:
        out = ndarray._new(shape, dtype)
    else:
        _check_output(name, out, shape, dtype)
        if dtype != out._dtype:
            tmp = ndarray(shape, dtype)
            _launch_elementwise(name, tmp, [x, y, tmp])
            _launch_elementwise("cast", out, [tmp, out])
            return out
    _launch_elementwise(name, out, [x, y, out])
    return out


def _into_out(name, result, out):
    """A ufunc's computed `result` delivered as numpy's out= asks: itself without out=, else cast
    into out after numpy's checks (_check_output)."""
    if out is None:
        return result
    _check_output(name, out, result._shape, result._dtype)
    _launch_elementwise("cast", out, [result, out])
    return out


def _check_output(name, out, shape, dtype):
    """numpy's checks of a ufunc's out=: the result's shape exactly, and a same_kind cast."""
    if out._shape != shape:
        raise ValueError(f"non-broadcastable output operand with shape {out._shape} doesn't match the "
                         f"broadcast shape {shape}")
    if not np.can_cast(dtype, out._dtype, casting="same_kind"):
        raise TypeError(f"Cannot cast ufunc '{name}' output from dtype('{dtype}') to dtype('{out._dtype}') "
                        f"with casting rule 'same_kind'")


def _unary(name, a, out=None):
    if out is None and type(a) is ndarray:
        # The common case, one call into the extension (as _binary's): a kernel already run on
        # this dtype, whose result dtype is remembered.
        info = _dtypes.UNARY_RESULTS.get((name, id(a._dtype)))
        if info is not None:
            try:
                return _result(name, a._shape, info, (a._t or a._tensor(),))
            except _TooManyDimensions:
                pass  # the general path below folds the dimensions
    dtype = _dtypes.result(name, a._dtype)
    if dtype not in _dtypes.CODES:
        raise TypeError(f"{name} of {a._dtype} gives {dtype}, which is not supported on the device")
    if dtype.kind == "c" and name in _complex.UNARY:
        return _complex.unary(name, a, out)
    _dtypes.remember_unary(name, a._dtype, dtype)
    if out is None:
        out = ndarray._new(a._shape, dtype)
    elif out._shape != a._shape or out._dtype != dtype:
        _check_output(name, out, a._shape, dtype)
        tmp = ndarray._new(a._shape, dtype)
        _launch_elementwise(name, tmp, [a, tmp])
        _launch_elementwise("cast", out, [tmp, out])
        return out
    _launch_elementwise(name, out, [a, out])
    return out


_REDUCE_ALL_TAIL = (_REDUCE_ALL,)


_NO_IDENTITY = {"max": "maximum", "min": "minimum", "nanmax": "fmax", "nanmin": "fmin"}  # numpy's ufunc names


def _reduce(op, a, axis, keepdims):
    if axis is None and not keepdims and type(a) is ndarray and a.size:
        # The whole array to one value (the common case).
        info = _dtypes.REDUCTION_RESULTS.get((op, id(a._dtype))) or _dtypes.reduction_result(op, a._dtype)
        try:
            return _result(op, (), info, (a._t or a._tensor(),), _REDUCE_ALL_TAIL)
        except _TooManyDimensions:  # every element to one value: reduce them as one dimension
            return _result(op, (), info, (a.reshape(-1)._tensor(),), _REDUCE_ALL_TAIL)
    if not isinstance(a, ndarray):
        a = to_device(np.asarray(a))
    dtype = _dtypes.reduction(op, a._dtype)
    if axis is None:
        axes = tuple(range(a.ndim))
    elif isinstance(axis, tuple):
        axes = tuple(sorted({_axis(x, a.ndim) for x in axis}))
        if len(axes) != len(axis):
            raise ValueError("duplicate value in 'axis'")
    else:
        axes = (_axis(axis, a.ndim),)
    if op in _NO_IDENTITY and any(a._shape[x] == 0 for x in axes):  # as numpy: only an empty reduced axis
        raise ValueError(f"zero-size array to reduction operation {_NO_IDENTITY[op]} which has no identity")
    if len(axes) == a.ndim:
        result = ndarray._new((), dtype)
        _launch(op, result, [a.reshape(-1) if a.ndim > _KERNEL_MAX_DIMS else a, result], [_REDUCE_ALL])
    elif not axes:  # axis=(): each element is its own reduction, in the reduction's dtype (a copy)
        result = a.astype(dtype)
    else:
        result = a
        for x in reversed(axes):  # one axis at a time, the highest first so the others keep their place
            shape = result._shape[:x] + result._shape[x + 1:]
            step = ndarray(shape, _dtypes.reduction(op, result._dtype))
            if result.ndim > _KERNEL_MAX_DIMS:  # past a descriptor: (before, axis, after) as three dimensions
                before, after = _size(result._shape[:x]), _size(result._shape[x + 1:])
                _launch(op, step, [result.reshape(before, result._shape[x], after), step.reshape(before, after)], [1])
            else:
                _launch(op, step, [result, step], [x])
            result = step
    if keepdims:
        result = result.reshape(tuple(1 if i in axes else n for i, n in enumerate(a._shape)))
    return result


def _fill(target, value):
    if isinstance(value, (bool, np.bool_)):
        scalar = int(bool(value))
    elif isinstance(value, (numbers.Integral, np.integer)):
        scalar = int(value)
        if target._dtype.kind == "f":
            scalar = float(scalar)
        elif target._dtype == np.uint64 and 2**63 <= scalar < 2**64:
            scalar -= 2**64  # the scalar travels as int64: the same bits, which the kernel casts back
    elif isinstance(value, (numbers.Real, np.floating)):
        scalar = float(value)
    elif isinstance(value, (numbers.Complex, np.complexfloating)):
        if target._dtype.kind != "c":
            raise TypeError(f"cannot assign a complex value to a {target._dtype} array (numpy would drop the "
                            f"imaginary part): assign value.real")
        # The fill kernel takes a real scalar: broadcast a 0-d array of the value instead.
        _launch_elementwise("cast", target, [_scalar(value, target._dtype), target])
        return
    else:
        raise TypeError(f"cannot fill an array with {type(value).__name__}")
    _launch_elementwise("fill", target, [target], [scalar])


def _assign(view, value):
    if isinstance(value, (bool, int, float, complex, np.bool_, np.number)):
        _fill(view, value)
        return
    src = value if isinstance(value, ndarray) else to_device(np.asarray(value))
    try:
        np.broadcast_shapes(src._shape, view._shape)
        if np.broadcast_shapes(src._shape, view._shape) != view._shape:
            raise ValueError
    except ValueError:
        raise ValueError(f"could not broadcast input array from shape {src._shape} into shape {view._shape}") from None
    _launch_elementwise("cast", view, [src, view])


def _basic_view(a, key):
    """The view numpy's basic indexing gives, or None when `key` needs advanced indexing."""
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:
        if not (k is None or k is Ellipsis or isinstance(k, (slice, numbers.Integral, np.integer))) or \
                isinstance(k, (bool, np.bool_)):
            return None
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    if used > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but {used} were indexed")
    if Ellipsis in key:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (a.ndim - used) + key[i + 1:]
    else:
        key = key + (slice(None),) * (a.ndim - used)
    offset = a._offset
    shape, strides = [], []
    dim = 0
    for k in key:
        if k is None:
            shape.append(1)
            strides.append(0)
            continue
        n, st = a._shape[dim], a._strides[dim]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            count = max(0, (stop - start + (step - (1 if step > 0 else -1))) // step)
            offset += start * st * a.itemsize if count else 0
            shape.append(count)
            strides.append(st * step)
        else:
            i = operator.index(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {n}")
            offset += (i % n) * st * a.itemsize
        dim += 1
    return ndarray._view(a._block, offset, tuple(shape), tuple(strides), a._dtype)


# ---- making arrays ----------------------------------------------------------------------------

def to_device(host, dtype=None):
    """A device copy of a numpy array (or anything np.asarray takes)."""
    if isinstance(host, ndarray):
        return host.astype(dtype) if dtype is not None else host.copy()
    # Python data goes to numpy in the asked dtype at once: through numpy's own choice first,
    # [2**63 + 1, 1] would become float64 and lose its last bits before reaching uint64.
    h = host if dtype is None or isinstance(host, np.ndarray) else np.asarray(host, dtype=_dtypes.check(dtype))
    h = np.asarray(h)
    d = _dtypes.check(dtype if dtype is not None else h.dtype)
    h = np.asarray(h, dtype=d, order="C")  # not ascontiguousarray: it makes a 0-d array 1-d
    out = ndarray(h.shape, d)
    if h.nbytes:
        _core.upload(out._block, 0, h.reshape(-1).view(np.uint8), current_stream())
    return out


def asarray(obj, dtype=None, copy=None):
    """A device array of `obj`. copy=None copies only when needed, copy=True always, copy=False
    never (ValueError when a copy would be needed, as the array API's asarray)."""
    if isinstance(obj, ndarray):
        same = dtype is None or np.dtype(dtype) == obj.dtype
        if copy is True:
            return obj.astype(obj.dtype if dtype is None else dtype)
        if same:
            return obj
        if copy is False:
            raise ValueError(f"asarray: converting {obj.dtype} to {np.dtype(dtype)} needs a copy, and copy=False")
        return obj.astype(dtype)
    if copy is False:
        raise ValueError("asarray: host data must be copied to the device, and copy=False")
    return to_device(obj, dtype)


def from_device(a):
    """A numpy copy of a device array."""
    if not isinstance(a, ndarray):
        raise TypeError(f"from_device expects a cudabridge.ndarray, not {type(a).__name__}")
    return a.get()


def empty(shape, dtype=np.float32):
    return ndarray(shape, dtype)


def full(shape, value, dtype=None):
    if dtype is None:
        dtype = np.array(value).dtype
    a = ndarray(shape, dtype)
    _fill(a, value)
    return a


def zeros(shape, dtype=np.float32):
    return full(shape, 0, dtype)


def ones(shape, dtype=np.float32):
    return full(shape, 1, dtype)


_random_state = {"seed": 0x5EED, "offset": 0}


def seed(value):
    """Seeds cb.rand: the same seed gives the same numbers (Philox4x32-10, counter-based)."""
    _random_state["seed"] = int(value) & ((1 << 64) - 1)
    _random_state["offset"] = 0


def rand(shape, dtype=np.float64):
    """Uniform random numbers in [0, 1) of `shape` (float64 by default, as numpy.random.rand)."""
    dtype = _dtypes.check(dtype)
    if dtype not in (np.float32, np.float64):
        raise TypeError("rand makes float32 or float64 arrays")
    a = ndarray(shape, dtype)
    _launch("random_uniform", a, [a], [("u", _random_state["seed"]), ("u", _random_state["offset"])])
    _random_state["offset"] += a.size
    return a


# Late: these modules build on the names above.
from . import _complex, _dispatch, _indexing, _linalg, _manipulation, _reductions, _sorting, _ufuncs  # noqa: E402
