"""The parts of complex arrays, as numpy gives them: x.real and x.imag are views of the real and
imaginary halves (a complex64 element is two float32, real first), so reading or assigning them
costs no copy; conj, angle and the complex var/std build on those views."""

import numpy as np

from . import _array

_PART = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64)}


def part_dtype(dtype):
    """float32 for complex64, float64 for complex128."""
    return _PART[dtype]


def _part(x, which):
    """The real (which=0) or imaginary (which=1) half of complex `x`, as a strided view."""
    part = _PART[x.dtype]
    strides = tuple(2 * s for s in x._strides)  # in elements of the half's dtype
    return _array.ndarray._view(x._block, x._offset + which * part.itemsize, x._shape, strides, part)


def real(x):
    """numpy.real: the real half of a complex array (a view); a real array itself."""
    x = _array.asarray(x)
    return _part(x, 0) if x.dtype.kind == "c" else x


def imag(x):
    """numpy.imag: the imaginary half of a complex array (a view); zeros for a real array (a new
    array: numpy's is read-only, which a device array cannot be)."""
    x = _array.asarray(x)
    return _part(x, 1) if x.dtype.kind == "c" else _array.zeros(x.shape, x.dtype)


def set_real(x, value):
    real(x)[...] = value


def set_imag(x, value):
    if x.dtype.kind != "c":
        raise TypeError("array does not have imaginary part to set")
    _part(x, 1)[...] = value


def conjugate_into(x, out):
    """numpy.conjugate of complex `x`: a copy (into out=, when given) whose imaginary half is then
    negated in place."""
    if out is None:
        out = x.copy()
    else:
        _array._check_output("conjugate", out, x.shape, x.dtype)
        _array._launch_elementwise("cast", out, [x, out])
    half = _part(out, 1)
    _array._unary("negative", half, out=half)
    return out


def angle(z, deg=False):
    """numpy.angle: arctan2(imag, real), in degrees with deg=True."""
    z = _array.asarray(z)
    if z.dtype.kind == "c":
        a = _array._binary("arctan2", _part(z, 1), _part(z, 0))
    else:
        a = _array._binary("arctan2", 0, z)
    return _array._unary("rad2deg", a) if deg else a


def squared_magnitude(x):
    """|x|^2 in x's real dtype: x * x, or real^2 + imag^2 for complex x (numpy's var and norm take
    (x * conj(x)).real)."""
    if x.dtype.kind != "c":
        return _array._binary("multiply", x, x)
    re, im = _part(x, 0), _part(x, 1)
    return _array._binary("add", _array._binary("multiply", re, re), _array._binary("multiply", im, im))


# ---- ufuncs the device has no complex kernel for, composed from real kernels on the halves ----
# Each follows numpy 1.24's complex loops: its expm1, exp2, log2, log1p, sign and rint formulas, and the
# lexicographic order of its comparisons, maximum and minimum. (sin, arccos, tanh, log10, ... are
# complex kernels: the C library's functions, as numpy's loops.)

def _b(name, x, y):
    return _array._binary(name, x, y)


def _u(name, x):
    return _array._unary(name, x)


def _assemble(re, im, dtype):
    """A new `dtype` array from its real and imaginary halves."""
    z = _array.ndarray._new(re.shape, dtype)
    _part(z, 0)[...] = re
    _part(z, 1)[...] = im
    return z


def _expm1(z):
    """numpy's: expm1(x) cos y - 2 sin^2(y / 2), and exp(x) sin y, for z = x + iy."""
    x, y = _part(z, 0), _part(z, 1)
    half = _u("sin", _b("multiply", y, 0.5))
    re = _b("subtract", _b("multiply", _u("expm1", x), _u("cos", y)), _b("multiply", _b("multiply", half, half), 2))
    return _assemble(re, _b("multiply", _u("exp", x), _u("sin", y)), z.dtype)


# Through the complex kernels: log and exp scaled, and numpy's log1p (log(1 + z), as its loop).
_SCALED = {"log2": ("log", 1 / float(np.log(2)), False), "exp2": ("exp", float(np.log(2)), True),
           "log1p": ("log", None, False)}
UNARY = frozenset(_SCALED) | {"expm1", "sign", "rint"}


def _sign(z):
    """numpy 1.24's complex sign: the sign of the real part, or of the imaginary part where the real
    part is 0, as a complex number; NaN where either part is NaN."""
    re, im = _part(z, 0), _part(z, 1)
    s = _b("add", _u("sign", re), _b("multiply", _b("equal", re, 0), _u("sign", im)))
    from ._indexing import where
    return where(_u("isnan", z), s.dtype.type(np.nan), s).astype(z.dtype)


def unary(name, z, out=None):
    """ufunc `name` of complex `z`, composed (UNARY lists the names)."""
    if name == "sign":
        result = _sign(z)
    elif name == "rint":  # numpy rounds each part half to even
        result = _assemble(_u("rint", _part(z, 0)), _u("rint", _part(z, 1)), z.dtype)
    elif name == "expm1":
        result = _expm1(z)
    else:
        kernel, factor, before = _SCALED[name]
        if factor is None:
            result = _u(kernel, _b("add", z, 1))
        elif before:
            result = _u(kernel, _scaled(z, factor))
        else:
            result = _scaled(_u(kernel, z), factor)
    return _array._into_out(name, result, out)


def _scaled(z, factor):
    """z with each half times a real factor, as numpy scales (a complex product would make
    inf * 0 = NaN of inf + 0j's imaginary part)."""
    z = z.copy()
    for which in (0, 1):
        half = _part(z, which)
        _array._binary("multiply", half, factor, out=half)
    return z


def _less(a, b, or_equal):
    """numpy's CLT / CLE: a.re < b.re with neither imaginary part NaN, or equal real parts and
    a.im < (<=) b.im."""
    ar, ai, br, bi = _part(a, 0), _part(a, 1), _part(b, 0), _part(b, 1)
    no_nan = _u("logical_not", _b("logical_or", _u("isnan", ai), _u("isnan", bi)))
    first = _b("logical_and", _b("less", ar, br), no_nan)
    tie = _b("logical_and", _b("equal", ar, br), _b("less_equal" if or_equal else "less", ai, bi))
    return _b("logical_or", first, tie)


def _pick(a, b, keep_a):
    from ._indexing import where
    return where(keep_a, a, b)


BINARY = frozenset({"less", "less_equal", "greater", "greater_equal", "maximum", "minimum", "fmax", "fmin"})


def binary(name, a, b, out=None):
    """ufunc `name` of two operands, one of them complex (BINARY lists the names)."""
    d = np.result_type(a.dtype, b.dtype)
    a, b = (x if x.dtype == d else x.astype(d) for x in (a, b))
    if name in ("less", "less_equal"):
        result = _less(a, b, name == "less_equal")
    elif name in ("greater", "greater_equal"):
        result = _less(b, a, name == "greater_equal")
    elif name in ("maximum", "minimum"):  # NaN in a keeps a; else a where a >= b (<= b)
        result = _pick(a, b, _b("logical_or", _u("isnan", a), _less(b, a, True) if name == "maximum"
                                 else _less(a, b, True)))
    else:  # fmax / fmin: NaN in b keeps a, NaN in a (alone) gives b
        result = _pick(a, b, _b("logical_or", _u("isnan", b), _less(b, a, True) if name == "fmax"
                                 else _less(a, b, True)))
    return _array._into_out(name, result, out)


# ---- numpy's order of complex numbers: sort, argsort, max, min, argmax, argmin -----------------

def sort_keys(z):
    """lexsort keys (least significant first) that order complex `z` as numpy sorts it:
    [R + Rj, R + nanj, nan + Rj, nan + nanj], each group lexicographic (real, then imaginary)."""
    re, im = _part(z, 0), _part(z, 1)
    group = _b("add", _u("isnan", im).astype(np.int8), _b("multiply", _u("isnan", re).astype(np.int8), 2))
    return im, re, group


def extreme_hits(op, z, axis):
    """Where, along `axis`, complex `z` holds numpy's max (op "max") or min of the slice: in a
    slice with a NaN in either part, every such element (numpy's maximum and minimum keep the
    first NaN they meet); otherwise the lexicographic extreme (largest real part, then largest
    imaginary part among those)."""
    from ._indexing import where
    re, im = _part(z, 0), _part(z, 1)
    nan = _u("isnan", z)
    worst = -np.inf if op == "max" else np.inf
    re_ok = where(nan, re.dtype.type(worst), re)
    on_best = _b("logical_and", _b("equal", re_ok, _array._reduce(op, re_ok, axis, True)), _u("logical_not", nan))
    im_ok = where(on_best, im, im.dtype.type(worst))
    hits = _b("logical_and", on_best, _b("equal", im_ok, _array._reduce(op, im_ok, axis, True)))
    return where(_array._reduce("max", nan, axis, True), nan, hits)
