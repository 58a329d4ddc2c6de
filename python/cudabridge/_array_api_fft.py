"""The array API standard's fft extension (2022.12), as cudabridge.array_api.fft: cb.fft's
transforms with the standard's keyword-only signatures, answering in the input's precision
(complex64 or float32 for float32 and complex64 input). numpy 1.24, and cb.fft, answer in
complex128 or float64 whatever the input; the transforms still compute in double precision here,
and the answer is cast down."""

import numpy as np

from . import _array, fft as _fft
from ._array_api import _check_device

_SINGLE = (np.dtype(np.float32), np.dtype(np.complex64))


def _answer(x, kind):
    """The dtype of a transform of x: complex ("c") or real ("f"), of x's precision."""
    single = _array.asarray(x).dtype in _SINGLE
    return np.dtype({("c", True): np.complex64, ("c", False): np.complex128,
                     ("f", True): np.float32, ("f", False): np.float64}[(kind, single)])


def _one_axis(transform, kind):
    def standard(x, /, *, n=None, axis=-1, norm="backward"):
        return transform(x, n, axis, norm).astype(_answer(x, kind), copy=False)

    standard.__name__ = standard.__qualname__ = transform.__name__
    standard.__doc__ = f"numpy's {transform.__name__} along one axis, in x's precision."
    return standard


def _many_axes(transform, kind):
    def standard(x, /, *, s=None, axes=None, norm="backward"):
        return transform(x, s, axes, norm).astype(_answer(x, kind), copy=False)

    standard.__name__ = standard.__qualname__ = transform.__name__
    standard.__doc__ = f"numpy's {transform.__name__} over several axes, in x's precision."
    return standard


fft, ifft = _one_axis(_fft.fft, "c"), _one_axis(_fft.ifft, "c")
rfft, irfft = _one_axis(_fft.rfft, "c"), _one_axis(_fft.irfft, "f")
hfft, ihfft = _one_axis(_fft.hfft, "f"), _one_axis(_fft.ihfft, "c")
fftn, ifftn = _many_axes(_fft.fftn, "c"), _many_axes(_fft.ifftn, "c")
rfftn, irfftn = _many_axes(_fft.rfftn, "c"), _many_axes(_fft.irfftn, "f")


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The sample frequencies of an n-point transform, in dtype (the default float64)."""
    _check_device(device)
    return _fft.fftfreq(n, d).astype(np.float64 if dtype is None else dtype, copy=False)


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    _check_device(device)
    return _fft.rfftfreq(n, d).astype(np.float64 if dtype is None else dtype, copy=False)


def fftshift(x, /, *, axes=None):
    return _fft.fftshift(x, axes)


def ifftshift(x, /, *, axes=None):
    return _fft.ifftshift(x, axes)
