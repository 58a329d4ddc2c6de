"""User kernels, as CuPy names them: cb.RawModule and cb.RawKernel.

A module is CUDA C++ source (compiled by NVRTC when the device loads it: the runtime needs a CUDA
toolkit for that), PTX text, or a .cu / .ptx / .cubin / .fatbin file. The simulated GPU runs the
PTX (its PTX engine); a real GPU runs whatever the driver accepts. Modules are loaded once per
process, device and runtime (cb.init() to cb.shutdown()): the same code and options are compiled
once.

Kernels launch CuPy-style, `kernel(grid, block, args, shared_mem=0, stream=None)`, with `args`:
device arrays (their data pointer), numpy scalars (their exact bytes: np.float32(x) passes four
bytes; the size must match the parameter's), Python bools (one byte), ints and floats (narrowed to
the parameter's type by the runtime, which refuses a value that does not fit and a float where a
pointer or an integer is expected).
"""

import os

import numpy as np

from . import _core
from ._array import ndarray
from ._streams import current_stream

# cb_module_format (sdk/include/cudabridge/gpu.h)
CUDA_SOURCE, PTX, CUBIN, FATBIN = 0, 1, 2, 3
_FORMAT_OF_SUFFIX = {".cu": CUDA_SOURCE, ".ptx": PTX, ".cubin": CUBIN, ".fatbin": FATBIN}

# (runtime generation, device, format, image bytes) -> module handle
_modules = {}


def _load(image, fmt):
    generation = _core.generation()
    key = (generation, _core.get_device(), fmt, image)
    handle = _modules.get(key)
    if handle is None:
        for stale in [k for k in _modules if k[0] != generation]:  # modules of a runtime shut down
            del _modules[stale]
        handle = _modules[key] = _core.module_load(image, fmt)
    return handle


def loaded_module_count():
    """How many modules the running runtime has loaded through the cache: for tests and diagnostics."""
    generation = _core.generation()
    return sum(1 for k in _modules if k[0] == generation)


def _with_options(code, options):
    """CUDA source with `options` applied. The runtime compiles with NVRTC's fixed options (the
    device's --gpu-architecture, --std=c++17); of the rest, macro definitions are honoured as
    #define / #undef lines before the code, and anything else raises ValueError."""
    if isinstance(options, str):
        options = (options,)
    lines = []
    it = iter(options)
    for opt in it:
        if not isinstance(opt, str):
            raise TypeError(f"options are strings, not {type(opt).__name__}")
        if opt in ("-D", "-U", "--define-macro", "--undefine-macro"):
            try:
                opt += next(it) if opt in ("-D", "-U") else "=" + next(it)
            except StopIteration:
                raise ValueError(f"option {opt!r} needs a value") from None
        if opt in ("--std=c++17", "-std=c++17"):
            continue
        for prefix, undefine in (("--define-macro=", False), ("--undefine-macro=", True), ("-D", False),
                                 ("-U", True)):
            if opt.startswith(prefix):
                macro = opt[len(prefix):]
                name, _, value = macro.partition("=")
                if not name.isidentifier():
                    raise ValueError(f"option {opt!r}: {name!r} is not a macro name")
                lines.append(f"#undef {name}" if undefine else f"#define {name} {value if '=' in macro else '1'}")
                break
        else:
            raise ValueError(f"option {opt!r} is not supported: CUDA source is compiled by the runtime with NVRTC's "
                             "fixed options (the device's architecture, --std=c++17); only macro definitions "
                             "(-D NAME[=VALUE], -U NAME) can be added")
    if not lines:
        return code
    return "\n".join(lines) + "\n#line 1\n" + code


def _looks_like_ptx(code):
    head = [ln.strip() for ln in code.splitlines() if ln.strip() and not ln.strip().startswith("//")][:4]
    return any(ln.startswith(".version") for ln in head) and any(ln.startswith(".target") for ln in head)


def _image(code, path, options, backend):
    if (code is None) == (path is None):
        raise TypeError("give exactly one of code= and path=")
    if backend not in (None, "nvrtc", "ptx"):
        raise ValueError(f"backend {backend!r} is not supported: 'nvrtc' (CUDA source) or 'ptx' (PTX text)")
    if path is not None:
        path = os.fspath(path)
        fmt = _FORMAT_OF_SUFFIX.get(os.path.splitext(path)[1].lower())
        if fmt is None:
            raise ValueError(f"{path}: the file must end in .cu, .ptx, .cubin or .fatbin")
        with open(path, "rb") as f:
            data = f.read()
        if fmt == CUDA_SOURCE:
            return _with_options(data.decode(), options).encode(), fmt
        if options:
            raise ValueError("options apply to CUDA source only, not to a .ptx, .cubin or .fatbin file")
        return data, fmt
    if not isinstance(code, str):
        raise TypeError(f"code must be a str, not {type(code).__name__}")
    ptx = backend == "ptx" or (backend is None and _looks_like_ptx(code))
    if ptx:
        if options:
            raise ValueError("options apply to CUDA source only, not to PTX")
        return code.encode(), PTX
    return _with_options(code, options).encode(), CUDA_SOURCE


def _dims(v, what):
    if isinstance(v, (int, np.integer)):
        v = (v,)
    try:
        dims = tuple(int(d) for d in v)
    except TypeError:
        raise TypeError(f"{what} must be an int or a tuple of 1 to 3 ints, not {v!r}") from None
    if not 1 <= len(dims) <= 3 or any(isinstance(d, (bool, np.bool_)) for d in v):
        raise ValueError(f"{what} must be an int or a tuple of 1 to 3 ints, not {v!r}")
    return dims + (1,) * (3 - len(dims))


def _argument(i, a):
    if isinstance(a, ndarray):
        return ("p", a._block, a._offset)
    if isinstance(a, np.generic):
        if a.dtype.kind in "OUSVMm":
            raise TypeError(f"kernel argument {i}: a numpy {a.dtype} scalar cannot be passed to a kernel")
        return ("b", a.tobytes())
    if isinstance(a, bool):
        return ("b", np.bool_(a).tobytes())
    if isinstance(a, int):
        if -2**63 <= a < 2**63:
            return ("i", a)
        if a < 2**64:
            return ("u", a)
        raise OverflowError(f"kernel argument {i}: {a} does not fit 64 bits")
    if isinstance(a, float):
        return ("f", a)
    if isinstance(a, complex):
        return ("b", np.complex128(a).tobytes())
    if isinstance(a, np.ndarray):
        raise TypeError(f"kernel argument {i} is a numpy array in host memory: pass a device array "
                        "(cb.asarray(x))")
    raise TypeError(f"kernel argument {i}: a {type(a).__name__} cannot be passed to a kernel (device arrays, "
                    "numpy scalars, bool, int, float and complex can)")


def _stream_handle(stream):
    if stream is None:
        return current_stream()
    handle = getattr(stream, "handle", stream)
    if not isinstance(handle, int):
        raise TypeError(f"stream must be a cb.Stream, a stream handle or None, not {type(stream).__name__}")
    return handle


def launch(handle, name, grid, block, args, shared_mem=0, stream=None):
    """Queues kernel `name` of the module `handle` on `stream` (the current one when None)."""
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"args must be a tuple or a list, not {type(args).__name__}")
    shared_mem = int(shared_mem)
    if shared_mem < 0:
        raise ValueError("shared_mem must not be negative")
    packed = [_argument(i, a) for i, a in enumerate(args)]
    _core.module_launch(handle, name, _dims(grid, "grid"), _dims(block, "block"), packed, shared_mem,
                        _stream_handle(stream))


class RawModule:
    """A module of user kernels: RawModule(code=...) (CUDA source, or PTX text) or
    RawModule(path=...) (a .cu, .ptx, .cubin or .fatbin file). Loaded (compiled) at once, so bad
    code raises here with the compiler's message. `options`: -D NAME[=VALUE] / -U NAME."""

    def __init__(self, code=None, *, path=None, options=(), backend=None):
        image, self._format = _image(code, path, options, backend)
        self.code, self.path, self.options, self.backend = code, path, tuple(
            (options,) if isinstance(options, str) else options), backend
        self._image = image
        _load(image, self._format)  # compiled now; loaded again after cb.shutdown() and cb.init()

    def get_function(self, name):
        """The kernel `name` (an extern "C" name, or the mangled one) of this module."""
        if not isinstance(name, str) or not name:
            raise TypeError("the kernel's name must be a non-empty str")
        k = RawKernel.__new__(RawKernel)
        k._init_from_module(self, name)
        return k


class RawKernel:
    """One kernel of CUDA source or PTX text: RawKernel(code, name, options=(), backend=None).
    Compiled at the first launch (or by compile()), once per process for the same code."""

    def __init__(self, code, name, options=(), backend=None):
        if not isinstance(name, str) or not name:
            raise TypeError("the kernel's name must be a non-empty str")
        image, fmt = _image(code, None, options, backend)
        self.code, self.name, self.options, self.backend = code, name, tuple(
            (options,) if isinstance(options, str) else options), backend
        self._source = (image, fmt)
        self._owner = None

    def _init_from_module(self, module, name):
        self.code, self.name, self.options, self.backend = module.code, name, module.options, module.backend
        self._source = (module._image, module._format)
        self._owner = module

    def compile(self):
        """Loads (compiles) the module now; raises with the compiler's message on bad code."""
        return _load(*self._source)

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None):
        launch(_load(*self._source), self.name, grid, block, args, shared_mem, stream)

    def __repr__(self):
        return f"<cudabridge.RawKernel {self.name}>"
