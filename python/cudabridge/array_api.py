"""The array API standard's (2022.12) namespace, as `x.__array_namespace__()` returns it.

It is the cudabridge module itself except where the standard and numpy 1.24 disagree; there the
names below follow the standard, and the main module keeps numpy's answer (as numpy 1.24 keeps
`numpy.array_api` beside `numpy`). Every function still runs on the device:

- `zeros`, `ones` and `empty` default to float64, the standard's default floating dtype (the main
  module's default is float32);
- `ceil`, `floor` and `trunc` of an integer array give a copy of the same dtype (numpy: float64);
- `nonzero` of a 0-d array raises ValueError (numpy 1.24 warns and treats it as 1-d);
- `sign` of a complex number is x / |x| (numpy 1.24 takes the sign of the real part);
- `sum`, `prod` and `linalg.trace` of float32 (complex64) accumulate and answer in float64
  (complex128), the default dtype, as 2022.12 asks (numpy and 2023.12 keep the input's);
- `expm1` of a complex number with an infinite or NaN part gives the standard's special cases, those
  of exp(x) - 1 (numpy 1.24's formula gives NaN there), and +0 for the real part of expm1(-0 + 0j);
- `tanh` of a complex number with an infinite real part and a finite imaginary part is ±1 with a
  zero imaginary part of the input's sign (C99's ctanh, which numpy follows, takes sin(2y)'s);
- `fft.*` answer in the input's precision (complex64 for float32), with keyword-only arguments
  (_array_api_fft.py); numpy 1.24's fft always answers in complex128;
- `linalg.solve` takes x2 as a vector only when it is 1-d (_array_api_linalg.py); numpy 1.24 also
  when x2 has one dimension fewer than x1.
"""

import numpy as _np

import cudabridge as _cb
from cudabridge import *  # noqa: F401,F403 (the namespace is the main module's names)
from cudabridge import __array_api_version__, __array_namespace_info__  # noqa: F401

from . import _dtypes
from . import _array_api_fft as fft  # noqa: E402,F811 (the standard's fft, not numpy's)
from . import _array_api_linalg as linalg  # noqa: E402,F811 (the standard's linalg)

bool = _np.bool_  # the standard's name; numpy 1.24 (and so the main module) has only bool_
_DEFAULT_FLOAT = _np.float64


def zeros(shape, dtype=None, *, device=None):
    return _cb.zeros(shape, _DEFAULT_FLOAT if dtype is None else dtype, device=device)


def ones(shape, dtype=None, *, device=None):
    return _cb.ones(shape, _DEFAULT_FLOAT if dtype is None else dtype, device=device)


def empty(shape, dtype=None, *, device=None):
    return _cb.empty(shape, _DEFAULT_FLOAT if dtype is None else dtype, device=device)


def _keeps_integers(ufunc):
    def rounding(x, /):
        x = _cb.asarray(x)
        return x.copy() if x.dtype.kind in "iu" else ufunc(x)

    rounding.__name__ = rounding.__qualname__ = ufunc.__name__
    rounding.__doc__ = f"{ufunc.__name__} of x; an integer array is returned as a copy of its dtype."
    return rounding


ceil = _keeps_integers(_cb.ceil)
floor = _keeps_integers(_cb.floor)
trunc = _keeps_integers(_cb.trunc)


def nonzero(x, /):
    """The indices of x's non-zero elements, one array per dimension; x must have a dimension."""
    x = _cb.asarray(x)
    if x.ndim == 0:
        raise ValueError("nonzero of a 0-d array: the standard requires at least one dimension")
    return _cb.nonzero(x)


def sign(x, /):
    """-1, 0 or 1 by x's sign; for a complex x, x / |x| (0 where x is 0)."""
    x = _cb.asarray(x)
    if x.dtype.kind != "c":
        return _cb.sign(x)
    magnitude = _cb.abs(x)
    return _cb.where(magnitude == 0, _cb.zeros_like(x), x / magnitude)


def expm1(x, /):
    """exp(x) - 1, accurate near 0; a complex x with an infinite or NaN part gets exp(x) - 1's
    special cases, which are the standard's."""
    x = _cb.asarray(x)
    if x.dtype.kind != "c":
        return _cb.expm1(x)
    result = _cb.where(_cb.isfinite(x), _cb.expm1(x), _cb.exp(x) - 1)
    real = result.real
    real += 0.0  # -0 + 0 is +0; every other value stays
    return result


def tanh(x, /):
    """The hyperbolic tangent; for a complex x = a + ib with an infinite a and a finite b, ±1 with
    an imaginary part of b's sign."""
    x = _cb.asarray(x)
    result = _cb.tanh(x)
    if x.dtype.kind == "c":
        imag = result.imag
        imag[...] = _cb.where(_cb.isinf(x.real) & _cb.isfinite(x.imag), _cb.copysign(0.0, x.imag), imag)
    return result


def sum(x, /, *, axis=None, dtype=None, keepdims=False):
    x = _cb.asarray(x)
    return _cb.sum(x, axis=axis, dtype=_dtypes.standard_accumulation(x.dtype, dtype), keepdims=keepdims)


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    x = _cb.asarray(x)
    return _cb.prod(x, axis=axis, dtype=_dtypes.standard_accumulation(x.dtype, dtype), keepdims=keepdims)
