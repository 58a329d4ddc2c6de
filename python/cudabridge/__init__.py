"""CudaBridge for Python: numpy-style arrays on an external NVIDIA GPU (or the simulated one).

    import numpy as np
    import cudabridge as cb

    cb.init()                                   # attach to the connected eGPU, or connect one
    a = cb.to_device(np.array([1, 2, 3, 4], dtype=np.float32))
    b = cb.to_device(np.array([5, 6, 7, 8], dtype=np.float32))
    print(cb.from_device(a + b))                # [ 6.  8. 10. 12.]
    cb.shutdown()

Arrays follow numpy 1.24 (promotion, broadcasting, views, reductions with axis= and keepdims=);
work runs asynchronously on the current stream, as in CuPy. Errors are cudabridge.Error and its
subclasses (DeviceLostError, OutOfMemoryError, PolicyError, IntegrityError, ...).
"""

import atexit as _atexit
import threading as _threading

import numpy as _np

from . import _core
from ._array import (empty, from_device, full, ndarray, ones, rand, seed, to_device, zeros)
from ._array import _binary, _reduce
from ._array import asarray
from ._creation import (arange, empty_like, eye, full_like, identity, linspace, ones_like, zeros_like)
from ._manipulation import (array_split, atleast_1d, atleast_2d, broadcast_arrays, broadcast_to, concatenate,
                            expand_dims, flip, hstack, moveaxis, repeat, roll, split, squeeze, stack, swapaxes, tile,
                            vstack)
from ._indexing import (flatnonzero, nonzero, put, ravel_multi_index, take, take_along_axis, unravel_index,
                        where)
from ._sorting import argsort, searchsorted, sort, unique
from ._linalg import diagonal, dot, einsum, inner, matmul, outer, tensordot, trace, vdot
from ._complex import angle, imag, real
from ._reductions import (all, amax, amin, any, argmax, argmin, array_equal, count_nonzero, cumprod, cumsum, max,
                          mean, min, nanmax, nanmean, nanmin, nansum, prod, std, sum, var)
from . import _ufuncs
from ._kernels import RawKernel, RawModule
from ._elementwise import ElementwiseKernel, ReductionKernel
from ._dlpack import from_dlpack
from . import fft, linalg, random
from ._streams import Event, Stream, current_stream, drop_default_streams as _drop_default_streams
from ._streams import forget_default_stream as _forget_default_stream
from ._streams import device_changed as _device_changed
from .errors import (DeviceLostError, DeviceResetError, Error, IntegrityError, LaunchError, NoDeviceError,
                     NotInitializedError, OutOfMemoryError, PolicyError)
from . import errors as _errors

__all__ = [
    "init", "shutdown", "is_initialized", "device_reset", "to_device", "from_device", "asnumpy", "array", "asarray",
    "empty", "zeros", "ones", "full", "rand", "seed", "random", "linalg", "fft", "add", "subtract", "multiply", "divide", "matmul",
    "scalar_op", "reduce", "mem_info", "free_pool", "device_count", "set_device", "get_device", "devices",
    "Device", "synchronize", "Stream", "Event", "telemetry", "connect", "disconnect", "on_event",
    "remove_event_callback", "ndarray", "float32", "float64", "int32", "int64", "uint8", "int8", "int16",
    "uint16", "uint32", "uint64", "float16", "complex64", "complex128", "bool_", "Error", "NotInitializedError", "NoDeviceError", "DeviceLostError",
    "OutOfMemoryError", "PolicyError", "IntegrityError", "DeviceResetError", "LaunchError",
    "arange", "linspace", "eye", "identity", "empty_like", "zeros_like", "ones_like", "full_like",
    "concatenate", "stack", "hstack", "vstack", "split", "array_split", "squeeze", "expand_dims", "flip", "roll",
    "moveaxis", "swapaxes", "broadcast_to", "broadcast_arrays", "tile", "repeat", "atleast_1d", "atleast_2d",
    "sum", "mean", "max", "min", "amax", "amin", "any", "all", "array_equal", "finfo", "iinfo",
    "prod", "argmax", "argmin", "var", "std", "nansum", "nanmean", "nanmax", "nanmin", "count_nonzero", "cumsum",
    "cumprod",
    "real", "imag", "angle",
    "dot", "vdot", "inner", "outer", "tensordot", "trace", "diagonal", "einsum",
    "where", "nonzero", "flatnonzero", "take", "take_along_axis", "put", "unravel_index", "ravel_multi_index",
    "sort", "argsort", "searchsorted", "unique",
    "RawKernel", "RawModule", "ElementwiseKernel", "ReductionKernel", "from_dlpack",
]

float32, float64, int32, int64 = _np.float32, _np.float64, _np.int32, _np.int64
uint8, int8, int16, bool_ = _np.uint8, _np.int8, _np.int16, _np.bool_
uint16, uint32, uint64, float16 = _np.uint16, _np.uint32, _np.uint64, _np.float16
complex64, complex128 = _np.complex64, _np.complex128

_core._register_errors(_errors._CODES)


def init(autoconnect=True, device=""):
    """Starts the runtime: attaches to every connected eGPU, or (autoconnect) connects the first
    usable one (`device`: an enclosure's id, name or index). Returns the device count. Raises
    NoDeviceError, with the reason, when there is none."""
    if _core.initialized():
        return _core.device_count()
    return _core.init(autoconnect, device)


def shutdown():
    """Waits for queued work, frees device memory and detaches; the connection stays up for other
    programs (cudabridge-cli disconnect ends it). Arrays made before are unusable afterwards."""
    if not _core.initialized():
        return
    try:
        _core.free_pool()
        _drop_default_streams()
    finally:  # a lost device refuses stream calls; the runtime still goes down
        _core.shutdown()


def is_initialized():
    return _core.initialized()


def device_reset():
    """cudaDeviceReset: the current device's context starts over, clearing a sticky error such as
    the DeviceResetError a hard reset by the safety supervisor leaves. The device's memory, streams
    and events are gone: its arrays made before raise DeviceResetError when used (make them again);
    arrays on other devices are untouched."""
    _forget_default_stream(_core.get_device())
    _core.device_reset()


_atexit.register(shutdown)


def asnumpy(a):
    return from_device(a)


def array(obj, dtype=None):
    """A device array from anything numpy.array takes."""
    return to_device(_np.array(obj, dtype=dtype))


# ---- functional forms (cb.add, cb.reduce, ...) ------------------------------------------------

def _lift(a):
    """A device array for an array-like operand; numbers stay numbers (numpy's scalar rules)."""
    return a if isinstance(a, (ndarray, int, float, complex, _np.number)) else asarray(a)


def add(a, b):
    return _binary("add", _lift(a), _lift(b))


def subtract(a, b):
    return _binary("subtract", _lift(a), _lift(b))


def multiply(a, b):
    return _binary("multiply", _lift(a), _lift(b))


def divide(a, b):
    return _binary("divide", _lift(a), _lift(b))


# numpy's statistics (_statistics.py) and further array functions (_shaping.py).
from . import _shaping, _statistics  # noqa: E402
globals().update({n: getattr(_statistics, n) for n in _statistics.__all__})
globals().update({n: getattr(_shaping, n) for n in _shaping.__all__})
__all__ += [n for n in _statistics.__all__ + _shaping.__all__ if n not in __all__]


# numpy's ufuncs (cb.exp, cb.power, cb.clip, cb.bitwise_and, ...: _ufuncs.py), each with out=.
_UFUNC_NAMES = tuple(n for n in _ufuncs.FUNCTIONS if n not in ("add", "subtract", "multiply", "divide"))
globals().update({n: _ufuncs.FUNCTIONS[n] for n in _UFUNC_NAMES})
__all__ += [n for n in _UFUNC_NAMES if n not in __all__]


_SCALAR_OPS = {"+": "add", "add": "add", "-": "subtract", "sub": "subtract", "subtract": "subtract",
               "*": "multiply", "mul": "multiply", "multiply": "multiply", "/": "divide", "div": "divide",
               "divide": "divide"}


def scalar_op(a, op, scalar):
    """a (op) scalar, with op one of + - * / (or add, sub, mul, div)."""
    if op not in _SCALAR_OPS:
        raise ValueError(f"unknown operation {op!r} (use +, -, *, / or add, sub, mul, div)")
    if not isinstance(scalar, (int, float, bool, _np.number)):
        raise TypeError(f"scalar_op needs a number, not {type(scalar).__name__}")
    return _binary(_SCALAR_OPS[op], asarray(a), scalar)


def reduce(a, op, axis=None, keepdims=False):
    """a.sum() / mean() / max() / min() by name."""
    if op not in ("sum", "mean", "max", "min"):
        raise ValueError(f"unknown reduction {op!r} (use 'sum', 'mean', 'max' or 'min')")
    return _reduce(op, asarray(a), axis, keepdims)


def mem_info():
    """(free, total) bytes of the current device's memory."""
    return _core.mem_info()


def free_pool():
    """Gives the memory pooled for reuse back to the device (arrays' memory is kept for reuse by
    the next array of the same size on the same stream, up to 1 GiB, as CuPy's pool does)."""
    _core.free_pool()


# ---- devices ----------------------------------------------------------------------------------

def device_count():
    """The eGPUs this process uses; 0 before init() (as torch.cuda.device_count() is 0 where
    CUDA cannot start), never an error."""
    return _core.device_count() if _core.initialized() else 0


def set_device(i):
    _core.set_device(i)
    _device_changed()


def get_device():
    return _core.get_device()


def synchronize():
    """Waits (GIL released) for all work queued on the current device."""
    _core.synchronize()


class Device:
    """One eGPU: its properties (name, compute capability, memory, link, simulated or not) and
    live telemetry."""

    def __init__(self, index):
        self.index = index
        self.properties = _core.properties(index)

    def __getattr__(self, name):
        try:
            return self.__dict__["properties"][name]
        except KeyError:
            raise AttributeError(name) from None

    def telemetry(self):
        return _core.telemetry(self.index)

    def use(self):
        set_device(self.index)

    def __enter__(self):
        """`with cb.Device(i):` makes device i this thread's current one for the block (arrays
        created inside live on it) and restores the previous device afterwards."""
        previous = get_device()
        set_device(self.index)
        _device_stack.__dict__.setdefault("previous", []).append(previous)
        return self

    def __exit__(self, *exc):
        set_device(_device_stack.previous.pop())
        return False

    def __repr__(self):
        p = self.properties
        return (f"<cudabridge.Device {self.index}: {p['name']} on {p['link']}"
                f"{' (simulated)' if p['simulated'] else ''}>")


def devices():
    return [Device(i) for i in range(_core.device_count())]


_device_stack = _threading.local()  # per thread: the devices `with Device(i):` left


def visible_devices():
    """The device ordinals of this process: 0..device_count()-1. The runtime applied
    CUDABRIDGE_VISIBLE_DEVICES (indexes or GPU UUIDs, as CUDA_VISIBLE_DEVICES) when it started, so
    these stand for the eGPUs it names, in its order (every connected eGPU when it is unset)."""
    from . import _visible
    return _visible.ordinals()


__all__ += ["visible_devices"]


def telemetry(device=None):
    """Temperature, power, clocks, utilization, memory, link counters of a device (the current one
    by default); "modeled" says whether the figures are the simulator's."""
    return _core.telemetry(_core.get_device() if device is None else device)


def connect(device=""):
    """Connects another eGPU (the six-step sequence); returns its index."""
    return _core.connect(device)


def disconnect(force=False):
    """Safe disconnect of every device (force: abort pending work). Arrays are unusable after."""
    _core.free_pool()
    _drop_default_streams()
    _core.disconnect(force)


def on_event(callback):
    """Calls callback(event) for each connection and safety event (a dict: device, state, status,
    kind, message), on a thread of the module's own, never blocking the device's supervisor.
    Returns an id for remove_event_callback."""
    if not callable(callback):
        raise TypeError("on_event needs a callable")
    return _core.add_callback(callback)


def remove_event_callback(callback_id):
    return _core.remove_callback(callback_id)


# ---- the array API standard's names; array_api.py, the namespace x.__array_namespace__() gives,
# ---- takes them, with the standard's answer where numpy 1.24's differs

__array_api_version__ = "2022.12"


def finfo(type):
    """Machine limits of a floating dtype (numpy's finfo; device arrays are accepted)."""
    return _np.finfo(type.dtype if isinstance(type, ndarray) else type)


def iinfo(type):
    """Machine limits of an integer dtype (numpy's iinfo; device arrays are accepted)."""
    return _np.iinfo(type.dtype if isinstance(type, ndarray) else type)


# The array API's (2022.12) additions: its names numpy 1.24 lacks, device=/fill_value=/correction=
# on the creation functions and std/var, finfo/iinfo with Python-number fields (_array_api.py). The
# names numpy has too replace the ones above (same numpy behaviour, the standard's keywords added).
from . import _array_api  # noqa: E402

_ARRAY_API_NEW = ["__array_namespace_info__", "astype", "can_cast", "isdtype", "result_type", "concat", "permute_dims", "matrix_transpose",
                  "vecdot", "meshgrid", "tril", "triu", "unique_all", "unique_counts", "unique_inverse",
                  "unique_values", "reshape", "e", "pi", "inf", "nan", "newaxis"]
_ARRAY_API_KEYWORDS = ["arange", "asarray", "empty", "empty_like", "eye", "full", "full_like", "linspace", "ones",
                       "ones_like", "zeros", "zeros_like", "std", "var", "finfo", "iinfo"]
for _name in _ARRAY_API_NEW + _ARRAY_API_KEYWORDS + ["UniqueAllResult", "UniqueCountsResult", "UniqueInverseResult"]:
    globals()[_name] = getattr(_array_api, _name)
__all__ += _ARRAY_API_NEW

from . import array_api  # noqa: E402 (it reads the names above)
