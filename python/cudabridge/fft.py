"""cb.fft: numpy.fft on the device (np.fft.fft(x) of a device array lands here).

Every transform is a complex128 DFT along the last axis, as numpy 1.24's pocketfft computes in
double precision whatever the input. A power-of-two length is a radix-2 decimation in frequency
done a whole stage at a time: the DFT of the shortest subsequences is one batched matmul with a
small DFT matrix, then each stage merges pairs of half-length spectra with their twiddle factors
(an elementwise multiply, add and subtract, and a concatenate), log2(n / 32) stages in all. Any
other length goes through Bluestein's chirp z-transform: the DFT as a convolution with a chirp,
done with power-of-two transforms. The DFT matrices, twiddles and chirps are computed on the
host in float64 from exact integer phases and uploaded once per length.

The real transforms (rfft, irfft, hfft, ihfft) and the n-dimensional ones are numpy's
compositions of these; norm= is "backward" (default), "ortho" or "forward", as numpy's.
"""

import math
import numbers
import operator

import numpy as np

from . import _array, _complex
from ._array import _binary, asarray

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2",
           "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_SMALLEST = 32  # the length of the subsequences one matmul transforms
_constants = {}  # (what, n, generation) -> device array


def _cached(what, n, make):
    key = (what, n, _array._core.generation())
    c = _constants.get(key)
    if c is None:
        c = _constants[key] = _array.to_device(make())
    return c


def _phase(k, n):
    """exp(-2j pi k / n) for integer arrays k, reduced mod n first so large k keep precision."""
    return np.exp(-2j * np.pi * (np.asarray(k, dtype=np.int64) % n) / n)


# ---- the complex DFT along the last axis ---------------------------------------------------------

def _radix2(x):
    """The unnormalized forward DFT of contiguous complex128 x (..., n), n a power of two."""
    n = x.shape[-1]
    first = min(n, _SMALLEST)
    lead = x.shape[:-1]
    dft = _cached("dft", first, lambda: _phase(np.outer(np.arange(first), np.arange(first)), first))
    # Row r, column c: x[r * (n / first) + c]; each column is a subsequence of stride n / first.
    from ._linalg import matmul
    from ._manipulation import concatenate
    spectra = matmul(dft, x.reshape(lead + (first, n // first)))
    while spectra.shape[-2] < n:
        rows, half = spectra.shape[-2], spectra.shape[-1] // 2
        even, odd = spectra[..., :half], spectra[..., half:]
        twiddle = _cached("twiddle", rows, lambda: _phase(np.arange(rows), 2 * rows).reshape(rows, 1))
        turned = _binary("multiply", odd, twiddle)
        spectra = concatenate([_binary("add", even, turned), _binary("subtract", even, turned)], axis=-2)
    return spectra.reshape(lead + (n,))


def _bluestein(x):
    """The unnormalized forward DFT of contiguous complex128 x (..., n), any n: X_k = w_k
    sum_j (x_j w_j) conj(w_{k-j}) with the chirp w_k = exp(-i pi k^2 / n), the sum a circular
    convolution of power-of-two length m >= 2n - 1."""
    n = x.shape[-1]
    m = 1 << (2 * n - 2).bit_length()
    k = np.arange(n, dtype=np.int64)
    chirp = _cached("chirp", n, lambda: _phase(k * k, 2 * n))
    kernel_spectrum = _cached("bluestein", n, lambda: np.fft.fft(np.concatenate(
        [np.conj(_phase(k * k, 2 * n)), np.zeros(m - 2 * n + 1), np.conj(_phase(k[:0:-1] ** 2, 2 * n))])))
    from ._shaping import pad
    weighted = pad(_binary("multiply", x, chirp), [(0, 0)] * (x.ndim - 1) + [(0, m - n)])
    product = _binary("multiply", _radix2(weighted), kernel_spectrum)
    convolved = _conj(_radix2(_conj(product)))  # the inverse transform, unscaled
    return _binary("multiply", _binary("multiply", convolved[..., :n], chirp), 1.0 / m)


def _conj(z):
    return _complex.conjugate_into(z, None)


def _dft(x, inverse):
    """The unnormalized DFT of complex128 x along its last axis (sign + for the inverse)."""
    x = x if x.is_contiguous else x.copy()
    if inverse:
        return _conj(_dft(_conj(x), False))
    n = x.shape[-1]
    if x.size == 0:
        return x.copy()
    return _radix2(x) if n & (n - 1) == 0 else _bluestein(x)


# ---- numpy's arguments -----------------------------------------------------------------------------

def _length(n, default):
    if n is None:
        return default
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def _scale(norm, n, inverse):
    """The factor numpy's norm= puts on a forward (inverse) transform of length n."""
    if norm is None or norm == "backward":
        return 1.0 / n if inverse else 1.0
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if norm == "forward":
        return 1.0 if inverse else 1.0 / n
    raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')


def _fit(a, n, axis):
    """a along axis cropped or zero-padded to n, as numpy's transforms take n=."""
    have = a.shape[axis]
    if have == n:
        return a
    if have > n:
        index = [slice(None)] * a.ndim
        index[axis] = slice(0, n)
        return a[tuple(index)]
    from ._shaping import pad
    widths = [(0, 0)] * a.ndim
    widths[axis] = (0, n - have)
    return pad(a, widths)


def _c2c(a, n, axis, norm, inverse):
    from ._manipulation import moveaxis
    a = asarray(a)
    if a.ndim == 0:
        raise np.AxisError(axis, 0)
    axis = _array._axis(axis, a.ndim)
    n = _length(n, a.shape[axis])
    a = _fit(a.astype(np.complex128, copy=False), n, axis)
    out = _dft(moveaxis(a, axis, -1), inverse)
    factor = _scale(norm, n, inverse)
    if factor != 1.0:
        out = _binary("multiply", out, factor)
    return moveaxis(out, -1, axis)


def fft(a, n=None, axis=-1, norm=None):
    return _c2c(a, n, axis, norm, False)


def ifft(a, n=None, axis=-1, norm=None):
    return _c2c(a, n, axis, norm, True)


def rfft(a, n=None, axis=-1, norm=None):
    """The non-negative frequencies (n // 2 + 1) of the transform of real a."""
    a = asarray(a)
    if a.dtype.kind == "c":
        raise TypeError("rfft takes real input; use fft for complex arrays")
    full = fft(a, n, axis, norm)
    axis = _array._axis(axis, a.ndim)
    index = [slice(None)] * full.ndim
    index[axis] = slice(0, full.shape[axis] // 2 + 1)
    return full[tuple(index)].copy()


def irfft(a, n=None, axis=-1, norm=None):
    """The real signal of length n (2 * (m - 1) by default) whose rfft is a: the spectrum made
    Hermitian (the missing frequencies are the conjugates of the given ones), inverted, its real
    part."""
    from ._manipulation import concatenate, flip
    a = asarray(a).astype(np.complex128, copy=False)
    if a.ndim == 0:
        raise np.AxisError(axis, 0)
    axis = _array._axis(axis, a.ndim)
    n = _length(n, 2 * (a.shape[axis] - 1))
    half = _fit(a, n // 2 + 1, axis)
    index = [slice(None)] * half.ndim
    index[axis] = slice(1, n - n // 2)
    spectrum = concatenate([half, _conj(flip(half[tuple(index)], axis))], axis=axis)
    return _complex.real(_c2c(spectrum, n, axis, norm, True)).copy()


_SWAPPED = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _swap(norm):
    if norm not in _SWAPPED:
        _scale(norm, 1, False)  # numpy's ValueError
    return _SWAPPED[norm]


def hfft(a, n=None, axis=-1, norm=None):
    """The real spectrum of a signal with Hermitian symmetry, given by its first half."""
    return irfft(_conj(asarray(a).astype(np.complex128)), n, axis, _swap(norm))


def ihfft(a, n=None, axis=-1, norm=None):
    return _conj(rfft(a, n, axis, _swap(norm)))


def _shape_and_axes(a, s, axes):
    """numpy's _cook_nd_args: the lengths and axes of an n-dimensional transform."""
    if s is None:
        axes = list(range(a.ndim)) if axes is None else [operator.index(x) for x in axes]
        s = [a.shape[x] for x in axes]
    else:
        s = [operator.index(v) for v in s]
        axes = list(range(-len(s), 0)) if axes is None else [operator.index(x) for x in axes]
        if len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
    return s, axes


def _c2c_nd(a, s, axes, norm, one_axis):
    """The complex transform along each of the axes, the last first, as numpy's _raw_fftnd."""
    a = asarray(a)
    s, axes = _shape_and_axes(a, s, axes)
    for n, axis in reversed(list(zip(s, axes))):
        a = one_axis(a, n, axis, norm)
    return a if axes else a.astype(np.complex128)


def fftn(a, s=None, axes=None, norm=None):
    return _c2c_nd(a, s, axes, norm, fft)


def ifftn(a, s=None, axes=None, norm=None):
    return _c2c_nd(a, s, axes, norm, ifft)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    return fftn(a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    return ifftn(a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    a = asarray(a)
    s, axes = _shape_and_axes(a, s, axes)
    if not axes:
        raise ValueError("rfftn needs at least one axis")
    a = rfft(a, s[-1], axes[-1], norm)
    for n, axis in zip(s[:-1], axes[:-1]):
        a = fft(a, n, axis, norm)
    return a


def irfftn(a, s=None, axes=None, norm=None):
    """ifft along every axis but the last of axes, then irfft along it (its length 2 * (m - 1)
    by default, as numpy's)."""
    a = asarray(a)
    given = s is not None
    s, axes = _shape_and_axes(a, s, axes)
    if not axes:
        raise ValueError("irfftn needs at least one axis")
    if not given:
        s[-1] = 2 * (a.shape[axes[-1]] - 1)
    for n, axis in zip(s[:-1], axes[:-1]):
        a = ifft(a, n, axis, norm)
    return irfft(a, s[-1], axes[-1], norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    return rfftn(a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    return irfftn(a, s, axes, norm)


# ---- frequencies and shifts --------------------------------------------------------------------------

def fftfreq(n, d=1.0):
    """The sample frequencies of an n-point transform (cycles per unit of d), float64."""
    n = operator.index(n)
    return _array.to_device(np.fft.fftfreq(n, d))


def rfftfreq(n, d=1.0):
    n = operator.index(n)
    return _array.to_device(np.fft.rfftfreq(n, d))


def _roll_axes(x, axes, sign):
    from ._manipulation import roll
    x = asarray(x)
    axes = list(range(x.ndim)) if axes is None else (
        [axes] if isinstance(axes, (numbers.Integral, np.integer)) else list(axes))
    shifts = [sign * (x.shape[_array._axis(a, x.ndim)] // 2) for a in axes]
    return roll(x, shifts, axes) if axes else x


def fftshift(x, axes=None):
    """The zero frequency moved to the middle: a roll by n // 2 along each axis."""
    return _roll_axes(x, axes, 1)


def ifftshift(x, axes=None):
    return _roll_axes(x, axes, -1)
