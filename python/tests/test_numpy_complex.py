"""complex64 and complex128 on the device, against numpy 1.24 on the same inputs: arithmetic and
promotion with real arrays and Python scalars, the ufuncs numpy has for complex (those the device
has no complex kernel for composed from real kernels on the two halves), numpy's lexicographic
comparisons, maximum and minimum, reductions and scans, the .real / .imag views, conj, angle,
vdot, var / std, over 0-d, empty, broadcast and non-contiguous operands, NaN and infinite parts
included, and numpy's order of complex numbers (sort, argsort, unique, max, min, argmax, argmin,
ptp, median: lexicographic, with [R + Rj, R + nanj, nan + Rj, nan + nanj] for sorting and the
first NaN winning a max or min). What numpy computes but the device does not (floor, //, &,
cbrt of complex) raises; nothing goes silently to the host."""
import numpy as np
import pytest

import cudabridge as cb

COMPLEX = [np.complex64, np.complex128]
# Finite values, zeros of both parts, NaN and infinite parts, large parts where cosh overflows.
VALUES = [0, 1, -1, 0.5j, -2 + 3j, 1e-4 + 2e-4j, 3 - 0.5j, -0.7 - 0.7j, complex(np.nan, 1), complex(1, np.nan),
          complex(np.inf, 0), complex(-np.inf, 1), 20 + 1j, -20 - 1j, 5 + 1e-3j, 100j, 100, -100j, 2 + 2j, 2 - 2j]
# numpy's complex loops and the composed ones (C library sin/cosh/...) differ by a few ulp.
RTOL = {np.dtype(np.complex64): 2e-5, np.dtype(np.complex128): 1e-12}


def sample(dtype, shape=(len(VALUES),)):
    a = np.array(VALUES, dtype=np.complex128).astype(dtype)
    return np.resize(a, shape)


def matches(got, want):
    """Device array `got` is numpy's `want`: dtype, shape, and each half's values (NaN equal)."""
    assert isinstance(got, cb.ndarray), type(got)
    host = got.get()
    want = np.asarray(want)
    assert host.dtype == want.dtype, (host.dtype, want.dtype)
    assert host.shape == want.shape, (host.shape, want.shape)
    tol = RTOL.get(want.dtype, RTOL.get(np.result_type(want.dtype, np.complex64), 1e-12))
    for half in (np.real, np.imag):
        np.testing.assert_allclose(half(host), half(want), rtol=tol, atol=tol, equal_nan=True)


def numpy_of(f, *args):
    with np.errstate(all="ignore"):
        return f(*args)


# Shapes: 1-D, 0-d, empty, and a non-contiguous view (every other element of a 2-D array, transposed).
def operands(dtype):
    a = sample(dtype)
    yield "1-d", a, cb.asarray(a)
    yield "0-d", a[4].reshape(()), cb.asarray(a[4].reshape(()))
    yield "empty", a[:0], cb.asarray(a[:0])
    grid = sample(dtype, (4, 10))
    yield "view", grid[:, ::2].T, cb.asarray(grid)[:, ::2].T


UNARY = ["negative", "positive", "absolute", "conjugate", "square", "reciprocal", "sqrt", "exp", "exp2", "expm1", "log",
         "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
         "arcsinh", "arccosh", "arctanh", "sign", "isnan", "isinf", "isfinite", "logical_not"]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", UNARY)
def test_unary_ufuncs_match_numpy(gpu, name, dtype):
    for _, a, x in operands(dtype):
        f = getattr(np, name)
        matches(f(x), numpy_of(f, a))


BINARY = ["add", "subtract", "multiply", "divide", "power", "equal", "not_equal", "less", "less_equal", "greater",
          "greater_equal", "maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or"]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", BINARY)
def test_binary_ufuncs_match_numpy_with_broadcasting(gpu, name, dtype):
    f = getattr(np, name)
    a = sample(dtype)
    b = np.roll(a, 3)
    if name == "power":  # numpy's cpow and C++'s std::pow part ways at infinite and NaN parts
        keep = np.isfinite(a) & np.isfinite(b) & (abs(a) < 30)
        a, b = a[keep], b[keep]
    matches(f(cb.asarray(a), cb.asarray(b)), numpy_of(f, a, b))
    column = a[:, None]
    matches(f(cb.asarray(column), cb.asarray(b[:5])), numpy_of(f, column, b[:5]))
    matches(f(cb.asarray(a[:0]), cb.asarray(b[:0])), numpy_of(f, a[:0], b[:0]))


@pytest.mark.parametrize("other", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_, np.float16])
@pytest.mark.parametrize("dtype", COMPLEX)
def test_promotion_with_real_arrays_is_numpys(gpu, dtype, other):
    a = sample(dtype)[:8]
    r = np.arange(8).astype(other)
    for f in (np.add, np.multiply, np.subtract, np.less):
        matches(f(cb.asarray(a), cb.asarray(r)), numpy_of(f, a, r))
        matches(f(cb.asarray(r), cb.asarray(a)), numpy_of(f, r, a))


@pytest.mark.parametrize("scalar", [2, 2.5, 1j, 2 - 1j, np.complex128(1 + 1j), np.float64(0.5)])
def test_python_and_numpy_scalars_cast_by_value(gpu, scalar):
    for dtype in (np.complex64, np.float32, np.int16):
        a = np.arange(5).astype(dtype)
        x = cb.asarray(a)
        matches(x + scalar, numpy_of(np.add, a, scalar))
        matches(scalar * x, numpy_of(np.multiply, scalar, a))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_reductions_and_scans(gpu, dtype):
    a = sample(dtype, (4, 6))
    a = np.where(np.isfinite(a), a, 1 + 1j).astype(dtype)
    x = cb.asarray(a)
    for axis in (None, 0, 1):
        for name in ("sum", "prod", "mean", "var", "std", "cumsum", "cumprod", "count_nonzero", "any", "all"):
            f = getattr(np, name)
            want = numpy_of(f, a / 10, axis) if name in ("prod", "cumprod") else numpy_of(f, a, axis)
            got = f(x / 10, axis) if name in ("prod", "cumprod") else f(x, axis)
            matches(cb.asarray(got), want)
    matches(np.std(x, ddof=1), np.std(a, ddof=1))
    matches(x.sum(keepdims=True), a.sum(keepdims=True))
    matches(np.nonzero(x[0])[0], np.nonzero(a[0])[0])


@pytest.mark.parametrize("dtype", COMPLEX)
def test_real_and_imag_are_writable_views(gpu, dtype):
    a = sample(dtype, (3, 4))
    x = cb.asarray(a)
    matches(x.real, a.real)
    matches(x.imag, a.imag)
    matches(x.T.imag, a.T.imag)
    matches(np.real(x), np.real(a))
    matches(cb.imag(x[1:, ::2]), np.imag(a[1:, ::2]))
    x.real = 5
    x.imag[0] = cb.asarray(np.arange(4.0))
    a.real = 5
    a.imag[0] = np.arange(4.0)
    matches(x, a)
    x[1, 1] = 2 - 7j
    a[1, 1] = 2 - 7j
    matches(x, a)
    x[2] = 1j
    a[2] = 1j
    matches(x, a)


def test_real_arrays_have_a_real_part_and_zero_imaginary_part(gpu):
    a = np.arange(4, dtype=np.float32)
    x = cb.asarray(a)
    assert x.real is x
    matches(x.imag, np.imag(a))
    with pytest.raises(TypeError, match="imaginary part"):
        x.imag = 1
    with pytest.raises(TypeError, match="complex"):
        x[0] = 1j


@pytest.mark.parametrize("dtype", COMPLEX)
def test_conj_angle_vdot_dot_matmul(gpu, dtype):
    a = sample(dtype)[:8]
    a = np.where(np.isfinite(a), a, 0).astype(dtype)
    b = np.roll(a, 1)
    x, y = cb.asarray(a), cb.asarray(b)
    matches(x.conj(), a.conj())
    matches(np.conj(x), np.conj(a))
    matches(np.angle(x), np.angle(a))
    matches(cb.angle(x, deg=True), np.angle(a, deg=True))
    matches(cb.angle(cb.asarray(np.array([-1.0, 2.0]))), np.angle(np.array([-1.0, 2.0])))
    matches(cb.vdot(x, y), np.vdot(a, b))
    matches(cb.dot(x, y), np.dot(a, b))
    matches(x.reshape(2, 4) @ y.reshape(4, 2), a.reshape(2, 4) @ b.reshape(4, 2))
    matches(x.conj(), a.conj())  # conj wrote a copy: the source is unchanged
    matches(x, a)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_creation_and_manipulation(gpu, dtype):
    a = sample(dtype)[:6]
    x = cb.asarray(a)
    matches(cb.full((2, 3), 1 - 2j, dtype=dtype), np.full((2, 3), 1 - 2j, dtype=dtype))
    matches(cb.full(3, 1 + 1j), np.full(3, 1 + 1j))
    matches(cb.zeros_like(x), np.zeros_like(a))
    matches(cb.concatenate([x, x[::-1]]), np.concatenate([a, a[::-1]]))
    matches(cb.where(x.real > 0, x, 0), np.where(a.real > 0, a, 0))
    matches(x[cb.asarray(np.array([3, 0, 5]))], a[[3, 0, 5]])
    matches(x[x.imag > 0], a[a.imag > 0])
    matches(x.astype(np.complex128), a.astype(np.complex128))
    matches(cb.asarray(np.arange(4.0)).astype(dtype), np.arange(4.0).astype(dtype))
    assert complex(x[4]) == complex(a[4])


# Ties in both parts, NaN in either or both parts, infinities: numpy's order must hold for all.
ORDERED = [2 + 1j, 1j, 2 + 1j, complex(np.nan, 3), 3, complex(1, np.nan), -1j, complex(np.nan, np.nan),
           complex(-np.inf, 2), complex(1, -np.inf), complex(np.nan, -1), 2 - 5j, 0, complex(3, np.nan), 1j, 2 + 1j]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape, axis", [((16,), -1), ((16,), None), ((4, 4), 0), ((4, 4), 1), ((2, 8), None)])
def test_sorting_follows_numpys_complex_order(gpu, dtype, shape, axis):
    a = np.array(ORDERED, dtype).reshape(shape)
    x = cb.asarray(a)
    matches(cb.sort(x, axis=axis), np.sort(a, axis=axis, kind="stable"))
    np.testing.assert_array_equal(cb.argsort(x, axis=axis).get(), np.argsort(a, axis=axis, kind="stable"))
    matches(np.sort(x.T, axis=0), np.sort(a.T, axis=0, kind="stable"))  # a strided view, through numpy


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("values", [ORDERED, [v for v in ORDERED if v == v]], ids=["with NaN", "no NaN"])
@pytest.mark.parametrize("shape, axis", [((16,), None), ((4, 4), 0), ((4, 4), 1), ((2, 2, 4), (0, 2)),
                                         ((4, 4), -1)])
def test_extremes_follow_numpys_complex_order(gpu, dtype, values, shape, axis):
    a = np.resize(np.array(values, dtype), shape)
    x = cb.asarray(a)
    for name in ("max", "min"):
        matches(getattr(cb, name)(x, axis=axis), getattr(np, name)(a, axis=axis))
        matches(getattr(np, name)(x, axis=axis, keepdims=True), getattr(np, name)(a, axis=axis, keepdims=True))
    if not isinstance(axis, tuple):
        for name in ("argmax", "argmin"):
            np.testing.assert_array_equal(getattr(cb, name)(x, axis=axis).get(), getattr(np, name)(a, axis=axis))
    matches(np.ptp(x, axis=axis), np.ptp(a, axis=axis))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_unique_and_median_of_complex(gpu, dtype):
    a = np.array([v for v in ORDERED if v == v], dtype)
    matches(cb.unique(cb.asarray(a)), np.unique(a))
    matches(np.median(cb.asarray(a[:5])), np.median(a[:5]))
    with pytest.raises(ValueError):
        cb.max(cb.zeros((0, 2), dtype), axis=0)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("decimals", [0, 1, 2, -1])
def test_round_and_rint_round_each_part(gpu, dtype, decimals):
    a = np.array([-1.5 - 2.5j, 0.5 + 1.49j, 2.567 - 3.333j, complex(np.nan, 1.5), -0.04 + 0.04j, 25 - 35j], dtype)
    matches(np.round(cb.asarray(a), decimals), np.round(a, decimals))  # NaN stays in its own part
    got = cb.asarray(a).round(decimals).get()
    assert np.array_equal(np.signbit(got.real), np.signbit(np.round(a, decimals).real))  # -0.0 as numpy's
    matches(np.rint(cb.asarray(a)), np.rint(a))


def test_what_the_device_does_not_compute_raises(gpu):
    x = cb.asarray(sample(np.complex64))
    for call in (lambda: np.floor(x), lambda: x // x, lambda: x & x, lambda: np.cbrt(x)):
        with pytest.raises((TypeError, cb.Error)):
            call()
