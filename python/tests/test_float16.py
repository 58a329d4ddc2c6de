"""float16 on the device, against numpy 1.24: stored as IEEE half, computed in float32 and rounded
once as numpy's half loops do (so elementwise results are numpy's bit for bit where the float32
math agrees), numpy's promotion (float16 + int8 is float16, + int16 float32), reductions that
accumulate in float32 (at least as accurate as numpy's), sort order with NaN, casts, indexing and
numpy's dispatch. The table-driven files run every ufunc and reduction over float16 too."""
import numpy as np
import pytest

import cudabridge as cb
from device_checks import same

H = np.float16
ALL = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float16,
       np.float32, np.float64]



def halves(n=64, seed=0):
    """Values over half's range: specials, subnormals, large magnitudes and ordinary values."""
    rng = np.random.default_rng(seed)
    special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 65504.0, -65504.0, 6e-8, -6e-8, 1e-4, np.inf, -np.inf, np.nan,
                        2049.0, 0.1, 3.0], H)
    return np.concatenate([special, (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(H)])


def test_the_module_names_it_and_creates_it(gpu):
    assert cb.float16 is np.float16
    same(cb.zeros((2, 3), H), np.zeros((2, 3), H))
    same(cb.full(4, 1.1, H), np.full(4, 1.1, H))
    same(cb.arange(0, 3, 0.25, dtype=H), np.arange(0, 3, 0.25, dtype=H))
    same(cb.to_device(halves()), halves())


@pytest.mark.parametrize("op", [np.add, np.subtract, np.multiply, np.true_divide, np.maximum, np.minimum, np.less,
                                np.equal, np.floor_divide, np.remainder, np.fmax],
                         ids=lambda f: f.__name__)
def test_arithmetic_rounds_once_like_numpy(gpu, op):
    x, y = halves(seed=1), halves(seed=2)[::-1].copy()
    with np.errstate(all="ignore"):
        want = op(x, y)
    same(op(cb.to_device(x), cb.to_device(y)), want)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "tanh", "negative", "absolute", "square", "rint",
                                  "isnan", "isinf", "signbit", "sign", "reciprocal"])
def test_unary_functions(gpu, name):
    x = halves(seed=3)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x)
    got = getattr(np, name)(cb.to_device(x))  # numpy's dispatch: on the device
    assert isinstance(got, cb.ndarray)
    assert got.dtype == want.dtype
    # float32 libm and numpy's may differ by a float32 ulp, which can round to the next half
    np.testing.assert_allclose(got.get().astype(np.float64), want.astype(np.float64), rtol=1e-3, atol=0,
                               equal_nan=True)


def test_overflow_to_inf_and_ties_to_even(gpu):
    big = cb.to_device(np.array([65504.0, 60000.0], H))
    with np.errstate(over="ignore"):
        same(big + big, np.array([65504.0, 60000.0], H) * 2)  # inf, as numpy's
        d = cb.to_device(np.array([2049.0, 2051.0, 1e-8, 70000.0], np.float64))
        same(d.astype(H), np.array([2049.0, 2051.0, 1e-8, 70000.0]).astype(H))


@pytest.mark.parametrize("other", ALL, ids=lambda d: np.dtype(d).name)
def test_promotion_with_every_dtype(gpu, other):
    """float16 + int8/uint8/bool stays float16, + int16/uint16/float32 is float32, + 32/64-bit float64."""
    x = halves(8, seed=4)[4:12]
    y = np.arange(1, 9).astype(other)
    with np.errstate(all="ignore"):
        for op in (np.add, np.multiply, np.less):
            same(op(cb.to_device(x), cb.to_device(y)), op(x, y))
            same(op(cb.to_device(y), cb.to_device(x)), op(y, x))


@pytest.mark.parametrize("scalar", [1, 2.5, 70000, -3, True, np.float32(0.1)], ids=repr)
def test_python_scalars_cast_by_value(gpu, scalar):
    x = halves(8, seed=5)
    with np.errstate(all="ignore"):
        same(cb.to_device(x) * scalar, x * scalar)
        same(scalar - cb.to_device(x), scalar - x)


def test_8_bit_inputs_give_float16_functions(gpu):
    i = np.arange(-5, 6, dtype=np.int8)
    for name in ("exp", "sqrt", "cos", "arctan"):
        with np.errstate(all="ignore"):
            want = getattr(np, name)(i)
        assert want.dtype == H
        got = getattr(cb, name)(cb.to_device(i))
        np.testing.assert_allclose(got.get().astype(float), want.astype(float), rtol=1e-3, equal_nan=True)
        assert got.dtype == H


def test_sums_accumulate_wider_than_half(gpu):
    x = np.full(10000, 0.1, H)
    exact = np.float64(H(0.1)) * 10000
    got = cb.to_device(x).sum()
    assert got.dtype == H
    assert float(got) == float(H(exact))  # correctly rounded; a half accumulator stalls at 256
    assert float(np.sum(x)) == float(got)  # numpy's pairwise sum in float agrees
    m = cb.to_device(x).mean()
    assert m.dtype == H and float(m) == float(np.mean(x))
    y = halves(seed=6)
    y = y[np.isfinite(y)]
    d = cb.to_device(y)
    same(d.max(), y.max())
    same(d.min(), y.min())
    same(cb.argmax(d), np.argmax(y))
    r = y[: y.size // 2 * 2].reshape(2, -1)
    np.testing.assert_allclose(cb.to_device(r).sum(axis=1).get().astype(float),
                               r.astype(np.float64).sum(axis=1).astype(H).astype(float), rtol=1e-3)


def test_sort_puts_nan_last(gpu):
    x = np.concatenate([halves(seed=7)] * 10)  # long enough for the radix sort, with ties
    d = cb.to_device(x)
    same(cb.sort(d), np.sort(x))
    same(cb.argsort(d, kind="stable"), np.argsort(x, kind="stable"))
    same(cb.sort(cb.to_device(x[:20])), np.sort(x[:20]))


@pytest.mark.parametrize("to", ALL, ids=lambda d: np.dtype(d).name)
def test_astype_both_ways(gpu, to):
    x = np.array([0.0, 1.5, -2.0, 100.25, 7.0, -0.0, 0.3], H)
    if np.dtype(to).kind == "u":
        x = np.abs(x)  # negative float -> unsigned is undefined in numpy
    same(cb.to_device(x).astype(to), x.astype(to))
    v = np.array([0, 1, 3, 100, 7], np.int64).astype(to)
    same(cb.to_device(v).astype(H), v.astype(H))


def test_matmul_sums_in_float32(gpu):
    rng = np.random.default_rng(8)
    a = rng.uniform(-8, 8, (7, 200)).astype(H)
    b = rng.uniform(-8, 8, (200, 5)).astype(H)
    got = cb.to_device(a) @ cb.to_device(b)
    assert got.dtype == H
    np.testing.assert_allclose(got.get().astype(float), (a @ b).astype(float), rtol=2e-3, atol=0.1)


def test_indexing_masks_and_interop(gpu):
    x = halves(20, seed=9).reshape(4, 9)
    d = cb.to_device(x)
    same(d[1:3, ::2], x[1:3, ::2])
    same(d[cb.to_device(np.array([3, 0]))], x[[3, 0]])
    mask = np.nan_to_num(x) > 0
    same(d[cb.to_device(mask)], x[mask])
    w, dw = x.copy(), d.copy()
    w[mask] = 2.5
    dw[cb.to_device(mask)] = 2.5
    same(dw, w)
    same(np.concatenate([d, d]), np.concatenate([x, x]))
    same(cb.where(cb.to_device(mask), d, H(0)), np.where(mask, x, H(0)))
    np.testing.assert_array_equal(np.asarray(d), x)
    np.testing.assert_array_equal(np.from_dlpack(d), x)


def test_random_refuses_float16_as_numpy(gpu):
    with pytest.raises(TypeError, match="float16"):
        np.random.default_rng(0).random(3, dtype=H)
    with pytest.raises(TypeError, match="float16"):
        cb.random.default_rng(0).random(3, dtype=H)
    with pytest.raises(TypeError):
        cb.rand((2, 2), H)
