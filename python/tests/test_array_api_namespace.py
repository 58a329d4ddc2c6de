"""cudabridge.array_api, the namespace x.__array_namespace__() gives: the main module's names, with
the array API standard's (2022.12) answer where numpy 1.24's differs. The main module keeps numpy's."""
import math

import numpy as np
import pytest

import cudabridge as cb
import cudabridge.array_api as xp

from device_checks import same

pytestmark = pytest.mark.usefixtures("gpu")

INF, NAN = math.inf, math.nan


def test_an_array_gives_this_namespace():
    d = cb.arange(3)
    assert d.__array_namespace__() is xp
    assert d.__array_namespace__(api_version="2022.12") is xp
    with pytest.raises(ValueError, match="version"):
        d.__array_namespace__(api_version="1999.01")


def test_it_holds_every_name_of_the_main_module():
    assert xp.__array_api_version__ == "2022.12"
    assert {n for n in cb.__all__ if not hasattr(xp, n)} == set()
    assert xp.mean is cb.mean and xp.linalg.inv is cb.linalg.inv and xp.bool is cb.bool_
    assert {n for n in cb.linalg.__all__ if not hasattr(xp.linalg, n)} == set()
    assert xp.__array_namespace_info__().default_dtypes()["real floating"] == np.float64


@pytest.mark.parametrize("make", ["zeros", "ones", "empty"])
def test_creation_defaults_to_the_standards_float64(make):
    assert getattr(xp, make)((2, 3)).dtype == np.float64
    assert getattr(xp, make)(4, dtype=np.int16).dtype == np.int16
    assert getattr(cb, make)((2, 3)).dtype == np.float32  # the main module's default stays
    same(xp.zeros((2, 2)), np.zeros((2, 2)))
    same(xp.ones(3, device=cb.get_device()), np.ones(3))


@pytest.mark.parametrize("name", ["ceil", "floor", "trunc"])
@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16, np.uint64])
def test_rounding_keeps_integers(name, dtype):
    x = np.array([-3, 0, 7, 100], dtype=dtype) if np.dtype(dtype).kind == "i" else np.array([0, 7, 100], dtype=dtype)
    d = cb.to_device(x)
    got = getattr(xp, name)(d)
    same(got, x)
    got[0] = 1
    same(d, x)  # a copy, not the input itself
    assert getattr(cb, name)(d).dtype == getattr(np, name)(x).dtype  # numpy 1.24's float64 in the main module


@pytest.mark.parametrize("name", ["ceil", "floor", "trunc"])
def test_rounding_of_floats_is_numpys(name):
    x = np.array([-2.5, -0.5, 0.5, 1.5, INF, NAN], dtype=np.float32)
    same(getattr(xp, name)(cb.to_device(x)), getattr(np, name)(x))


def test_nonzero_of_a_0d_array_raises():
    with pytest.raises(ValueError, match="0-d"):
        xp.nonzero(cb.asarray(np.float32(1)))
    x = np.array([[0, 2], [3, 0]], dtype=np.int32)
    for got, want in zip(xp.nonzero(cb.to_device(x)), np.nonzero(x)):
        same(got, want)


def test_sign_of_a_complex_number_is_its_direction():
    x = np.array([3 + 4j, -2j, 0j, -5 + 0j], dtype=np.complex64)
    same(xp.sign(cb.to_device(x)), np.array([0.6 + 0.8j, -1j, 0j, -1 + 0j], dtype=np.complex64))
    same(cb.sign(cb.to_device(x)), np.sign(x))  # numpy 1.24: the real part's sign
    r = np.array([-2.5, 0.0, 3.0], dtype=np.float64)
    same(xp.sign(cb.to_device(r)), np.sign(r))


# The standard's special cases of complex expm1 (2022.12, expm1): (input, result).
EXPM1_CASES = [
    (complex(0.0, 0.0), complex(0.0, 0.0)),
    (complex(1.0, INF), complex(NAN, NAN)),
    (complex(1.0, NAN), complex(NAN, NAN)),
    (complex(INF, 0.0), complex(INF, 0.0)),
    (complex(-INF, 2.0), complex(-1.0, 0.0) + 0.0 * complex(math.cos(2.0), math.sin(2.0))),
    (complex(INF, 2.0), complex(INF * math.cos(2.0), INF * math.sin(2.0)) - 1),
    (complex(-INF, INF), complex(-1.0, 0.0)),
    (complex(INF, INF), complex(INF, NAN)),
    (complex(-INF, NAN), complex(-1.0, 0.0)),
    (complex(INF, NAN), complex(INF, NAN)),
    (complex(NAN, 0.0), complex(NAN, 0.0)),
    (complex(NAN, 1.0), complex(NAN, NAN)),
    (complex(NAN, NAN), complex(NAN, NAN)),
]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_expm1_has_the_standards_special_cases(dtype):
    x = np.array([c for c, _ in EXPM1_CASES], dtype=dtype)
    got = xp.expm1(cb.to_device(x)).get()
    assert got.dtype == dtype
    for (c, want), g in zip(EXPM1_CASES, got):
        for part, w, v in (("real", want.real, g.real), ("imag", want.imag, g.imag)):
            if math.isnan(w):
                assert math.isnan(v), (c, part, g)
            elif math.isinf(w):
                assert v == w, (c, part, g)  # the standard leaves the sign open only for a NaN's partner
            else:
                assert abs(v) == abs(w) and (w == 0 or v == w), (c, part, g)  # a zero's sign is open


def test_expm1_of_finite_values_is_numpys():
    z = np.array([1e-9 + 1e-9j, 0.5 - 2j, -3 + 0.25j], dtype=np.complex128)
    np.testing.assert_allclose(xp.expm1(cb.to_device(z)).get(), np.expm1(z), rtol=1e-12)
    r = np.array([-1.0, 1e-10, 2.0], dtype=np.float32)
    same(xp.expm1(cb.to_device(r)), cb.expm1(cb.to_device(r)).get())


def test_expm1_of_a_complex_zero_has_a_positive_real_part():
    x = np.array([complex(-0.0, 0.0), complex(0.0, 0.0), complex(-0.0, -0.0)], dtype=np.complex128)
    got = xp.expm1(cb.to_device(x)).get()
    assert not np.signbit(got.real).any()
    np.testing.assert_array_equal(np.signbit(got.imag), np.signbit(x.imag))  # expm1(conj x) = conj expm1(x)


def test_tanh_at_an_infinite_real_part_keeps_the_imaginary_sign():
    x = np.array([complex(INF, 6.55e16), complex(INF, 2.0), complex(-INF, 1.0), complex(INF, -3.0),
                  complex(0.5, 0.25)], dtype=np.complex128)
    got = xp.tanh(cb.to_device(x)).get()
    np.testing.assert_array_equal(got[:4].real, [1.0, 1.0, -1.0, 1.0])
    np.testing.assert_array_equal(got[:4].imag, [0.0, 0.0, 0.0, -0.0])
    np.testing.assert_array_equal(np.signbit(got[:4].imag), [False, False, False, True])
    np.testing.assert_allclose(got[4], np.tanh(x[4]), rtol=1e-12)
    assert np.signbit(cb.tanh(cb.to_device(x[:1])).get().imag[0]) == np.signbit(np.tanh(x[:1]).imag[0])  # numpy's


@pytest.mark.parametrize("name", ["sum", "prod"])
@pytest.mark.parametrize("dtype,want", [(np.float32, np.float64), (np.float16, np.float64),
                                        (np.complex64, np.complex128), (np.float64, np.float64),
                                        (np.int8, np.int64), (np.uint16, np.uint64), (np.bool_, np.int64)])
def test_sum_and_prod_answer_in_the_default_dtype(name, dtype, want):
    x = np.array([[1, 2, 3], [2, 1, 0]], dtype=dtype)
    d = cb.to_device(x)
    same(getattr(xp, name)(d), getattr(np, name)(x, dtype=want))
    same(getattr(xp, name)(d, axis=1, keepdims=True), getattr(np, name)(x, axis=1, keepdims=True, dtype=want))
    same(getattr(xp, name)(d, dtype=dtype), getattr(np, name)(x, dtype=dtype))
    assert getattr(cb, name)(d).dtype == getattr(np, name)(x).dtype  # numpy 1.24's in the main module


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_fft_answers_in_the_inputs_precision(dtype):
    x = np.random.default_rng(5).standard_normal((3, 16)).astype(dtype)
    d = cb.to_device(x)
    single = np.dtype(dtype) in (np.float32, np.complex64)
    complex_, real = (np.complex64, np.float32) if single else (np.complex128, np.float64)
    tol = 1e-4 if single else 1e-10
    for name, kind in (("fft", complex_), ("ifft", complex_), ("fftn", complex_), ("ifftn", complex_),
                       ("hfft", real)):
        got = getattr(xp.fft, name)(d, norm="ortho")
        assert got.dtype == kind, name
        np.testing.assert_allclose(got.get(), getattr(np.fft, name)(x, norm="ortho"), rtol=tol, atol=tol)
    if not np.iscomplexobj(x):
        for name, kind in (("rfft", complex_), ("rfftn", complex_), ("ihfft", complex_)):
            got = getattr(xp.fft, name)(d)
            assert got.dtype == kind, name
            np.testing.assert_allclose(got.get(), getattr(np.fft, name)(x), rtol=tol, atol=tol)
        spectrum = xp.fft.rfft(d)
        assert xp.fft.irfft(spectrum, n=16).dtype == real and xp.fft.irfftn(spectrum, s=(16,), axes=(1,)).dtype == real
    assert cb.fft.fft(d).dtype == np.complex128  # numpy 1.24's in the main module


def test_fft_frequencies_and_shifts():
    same(xp.fft.fftfreq(8, d=0.5), np.fft.fftfreq(8, 0.5))
    same(xp.fft.rfftfreq(9, dtype=np.float32), np.fft.rfftfreq(9).astype(np.float32))
    with pytest.raises(ValueError, match="device"):
        xp.fft.fftfreq(4, device=99)
    x = np.arange(12.0).reshape(3, 4)
    same(xp.fft.fftshift(cb.to_device(x), axes=(1,)), np.fft.fftshift(x, axes=(1,)))
    same(xp.fft.ifftshift(cb.to_device(x)), np.fft.ifftshift(x))
    with pytest.raises(TypeError):
        xp.fft.fft(cb.to_device(x), 4)  # n is keyword-only in the standard


@pytest.mark.parametrize("dtype,want", [(np.float32, np.float64), (np.complex64, np.complex128), (np.float64, np.float64),
                                        (np.int16, np.int64)])
def test_linalg_trace_answers_in_the_default_dtype(dtype, want):
    x = (np.arange(18) % 5).astype(dtype).reshape(2, 3, 3)
    d = cb.to_device(x)
    same(xp.linalg.trace(d), np.trace(x, axis1=-2, axis2=-1, dtype=want))
    same(xp.linalg.trace(d, offset=1, dtype=dtype), np.trace(x, offset=1, axis1=-2, axis2=-1, dtype=dtype))
    assert cb.linalg.trace(d).dtype == np.trace(x, axis1=-2, axis2=-1).dtype  # numpy 1.24's in cb.linalg


def test_linalg_solve_takes_only_a_1d_x2_as_a_vector():
    rng = np.random.default_rng(8)
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((3, 4))  # one dimension fewer than a: a matrix in the standard
    same_shape = np.linalg.solve(a, np.broadcast_to(b, (2, 3, 4)))
    np.testing.assert_allclose(xp.linalg.solve(cb.to_device(a), cb.to_device(b)).get(), same_shape, rtol=1e-10)
    v = rng.standard_normal(3)
    np.testing.assert_allclose(xp.linalg.solve(cb.to_device(a), cb.to_device(v)).get(),
                               np.linalg.solve(a, v[None, :, None])[..., 0], rtol=1e-10)
    assert xp.linalg.solve(cb.zeros((2, 0, 0)), cb.zeros((0, 0))).shape == (2, 0, 0)
    assert cb.linalg.solve(cb.zeros((2, 3, 3)) + cb.eye(3), cb.zeros((2, 3))).shape == (2, 3)  # numpy 1.24's rule
