"""numpy.fft on the device against numpy 1.24's pocketfft: the complex, real and Hermitian
transforms and their n-dimensional forms, power-of-two lengths (radix-2) and others (Bluestein),
n= cropping and padding, axis=, s= and axes=, every norm=, each input dtype, through numpy's
dispatch (np.fft.fft(device_array) returns a device array); frequencies, shifts and numpy's
errors."""
import numpy as np
import pytest

import cudabridge as cb

LENGTHS = [1, 2, 3, 8, 12, 32, 37, 64, 100, 256]
DTYPES = [np.float64, np.float32, np.complex128, np.complex64, np.int32]


def sample(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if np.dtype(dtype).kind == "i":
        x = np.round(x * 10)
    return x.astype(dtype)


def matches(got, want):
    assert isinstance(got, cb.ndarray), type(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(got.get(), want, rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft"])
def test_one_dimensional_transforms(gpu, name, n):
    x = sample((3, n), np.float64, n)
    matches(getattr(np.fft, name)(cb.asarray(x)), getattr(np.fft, name)(x))


@pytest.mark.parametrize("n", [2, 3, 8, 12, 33])
@pytest.mark.parametrize("name", ["irfft", "hfft"])
def test_real_output_transforms(gpu, name, n):
    x = sample((2, n), np.complex128, n)
    for length in (None, 2 * n - 1, 5):
        matches(getattr(np.fft, name)(cb.asarray(x), length), getattr(np.fft, name)(x, length))


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_input_dtype_computes_in_double_precision(gpu, dtype):
    x = sample((4, 10), dtype, 1)
    matches(np.fft.fft(cb.asarray(x)), np.fft.fft(x))
    if np.dtype(dtype).kind != "c":
        matches(np.fft.rfft(cb.asarray(x)), np.fft.rfft(x))


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_norm_n_and_axis(gpu, norm):
    x = sample((5, 6, 7), np.complex128, 2)
    d = cb.asarray(x)
    for name in ("fft", "ifft"):
        f = getattr(np.fft, name)
        matches(f(d, norm=norm), f(x, norm=norm))
        matches(f(d, 4, axis=0, norm=norm), f(x, 4, axis=0, norm=norm))  # cropped
        matches(f(d, 9, axis=1, norm=norm), f(x, 9, axis=1, norm=norm))  # zero-padded
    matches(np.fft.irfft(d, 10, axis=1, norm=norm), np.fft.irfft(x, 10, axis=1, norm=norm))
    matches(np.fft.hfft(d, norm=norm), np.fft.hfft(x, norm=norm))


def test_n_dimensional_transforms(gpu):
    x = sample((4, 6, 10), np.float64, 3)
    z = sample((4, 6, 10), np.complex128, 4)
    dx, dz = cb.asarray(x), cb.asarray(z)
    for name in ("fft2", "ifft2", "fftn", "ifftn"):
        f = getattr(np.fft, name)
        matches(f(dz), f(z))
        matches(f(dz, s=(3, 8), axes=(0, 2)), f(z, s=(3, 8), axes=(0, 2)))
    matches(np.fft.rfftn(dx), np.fft.rfftn(x))
    matches(np.fft.rfft2(dx, s=(5, 12)), np.fft.rfft2(x, s=(5, 12)))
    spectrum = np.fft.rfftn(x)
    matches(np.fft.irfftn(cb.asarray(spectrum), x.shape), np.fft.irfftn(spectrum, x.shape))
    matches(np.fft.irfftn(cb.asarray(spectrum)), np.fft.irfftn(spectrum))
    matches(np.fft.irfft2(cb.asarray(spectrum)), np.fft.irfft2(spectrum))


def test_a_long_transform_and_a_round_trip(gpu):
    x = sample((1 << 14,), np.complex128, 5)
    d = cb.asarray(x)
    matches(cb.fft.fft(d), np.fft.fft(x))
    matches(cb.fft.ifft(cb.fft.fft(d)), np.fft.ifft(np.fft.fft(x)))
    y = sample((3001,), np.float64, 6)  # a prime-free odd length: Bluestein
    matches(cb.fft.irfft(cb.fft.rfft(cb.asarray(y)), y.size), np.fft.irfft(np.fft.rfft(y), y.size))


def test_frequencies_and_shifts(gpu):
    for n, d in ((8, 1.0), (9, 0.25)):
        matches(cb.fft.fftfreq(n, d), np.fft.fftfreq(n, d))
        matches(cb.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d))
    x = np.arange(30.0).reshape(5, 6)
    d = cb.asarray(x)
    for axes in (None, 0, (1,), (0, 1)):
        matches(np.fft.fftshift(d, axes), np.fft.fftshift(x, axes))
        matches(np.fft.ifftshift(d, axes), np.fft.ifftshift(x, axes))


def test_numpys_errors(gpu):
    d = cb.asarray(sample((4,), np.complex128, 7))
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        cb.fft.fft(d, 0)
    with pytest.raises(ValueError, match="Invalid norm value"):
        cb.fft.fft(d, norm="both")
    with pytest.raises(TypeError, match="real input"):
        cb.fft.rfft(d)
    with pytest.raises(ValueError, match="different lengths"):
        cb.fft.fftn(d, s=(4, 4), axes=(0,))
