"""uint16, uint32 and uint64 on the device, against numpy 1.24: promotion with signed types and
Python scalars (uint8 + 300 is uint16, uint64 + int64 is float64), reductions in uint64, values
above the signed range (2^63 and up) through arithmetic, comparisons, casts, sort and indexing,
and numpy's dispatch. The table-driven files (test_numpy_ufuncs.py, test_elementwise.py, ...)
run every op over these dtypes too; this file holds what is particular to unsigned types."""
import itertools

import numpy as np
import pytest

import cudabridge as cb
from device_checks import same

UNSIGNED = [np.uint16, np.uint32, np.uint64]
SIGNED = [np.int8, np.int16, np.int32, np.int64]
ALL = [np.bool_, np.uint8, *UNSIGNED, *SIGNED, np.float32, np.float64]



def high(dtype, n=16, seed=0):
    """Values across the whole range of an unsigned dtype, the top half (sign bit set) included."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    edges = np.array([0, 1, 2, info.max, info.max - 1, info.max // 2, info.max // 2 + 1], dtype=dtype)
    return np.concatenate([edges, rng.integers(0, info.max, n, endpoint=True, dtype=dtype)])


def test_the_module_names_them(gpu):
    assert (cb.uint16, cb.uint32, cb.uint64) == (np.uint16, np.uint32, np.uint64)
    for d in UNSIGNED:
        assert cb.zeros(3, d).dtype == d
        same(cb.arange(7, dtype=d), np.arange(7, dtype=d))
        same(cb.full((2, 2), 5, d), np.full((2, 2), 5, d))
    same(cb.full(3, 2**64 - 1, np.uint64), np.full(3, 2**64 - 1, np.uint64))  # past int64
    top = cb.zeros(4, np.uint64)
    top[1:3] = 2**63 + 5
    same(top, np.array([0, 2**63 + 5, 2**63 + 5, 0], np.uint64))


@pytest.mark.parametrize("a,b", list(itertools.product(UNSIGNED + [np.uint8], ALL)),
                         ids=lambda d: np.dtype(d).name)
def test_promotion_with_every_dtype_is_numpys(gpu, a, b):
    """uint64 + int64 -> float64, uint32 + int32 -> int64, uint16 + int8 -> int32, ..."""
    x = np.arange(1, 7).astype(a)
    y = np.arange(6, 0, -1).astype(b)
    for op in (np.add, np.multiply, np.maximum, np.less, np.floor_divide, np.true_divide):
        try:
            want = op(x, y)
        except TypeError:
            with pytest.raises(TypeError):
                op(cb.to_device(x), cb.to_device(y))
            continue
        same(op(cb.to_device(x), cb.to_device(y)), want)
        same(op(cb.to_device(y), cb.to_device(x)), op(y, x))


@pytest.mark.parametrize("dtype", [np.uint8, *UNSIGNED], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("scalar", [1, 300, 70000, 2**40, -1, 2.5, True], ids=repr)
def test_python_scalars_cast_by_value(gpu, dtype, scalar):
    """numpy 1.24's value-based casting: uint8_array + 300 is uint16, uint16 + 70000 uint32,
    anything unsigned with -1 the smallest signed type (float64 for uint64)."""
    x = high(dtype, 6, seed=1)
    d = cb.to_device(x)
    with np.errstate(all="ignore"):
        same(d + scalar, x + scalar)
        same(scalar * d, scalar * x)
        same(d > scalar, x > scalar)


@pytest.mark.parametrize("dtype", [np.uint8, *UNSIGNED], ids=lambda d: np.dtype(d).name)
def test_sums_and_products_are_uint64(gpu, dtype):
    x = high(dtype, 40, seed=2)
    d = cb.to_device(x)
    same(d.sum(), x.sum())  # wraps modulo 2^64 like numpy's
    same(np.sum(d), np.sum(x))
    same(cb.prod(d[:5]), np.prod(x[:5]))
    same(d.reshape(1, -1).sum(axis=1), x.reshape(1, -1).sum(axis=1))
    same(cb.cumsum(d), np.cumsum(x))
    same(d.max(), x.max())
    same(d.min(), x.min())
    same(cb.argmax(d), np.argmax(x))
    got = d.mean().get()
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, x.mean(), rtol=1e-12)


def test_uint8_sum_does_not_wrap_at_eight_bits(gpu):
    x = np.full(1000, 255, np.uint8)
    same(cb.to_device(x).sum(), x.sum())
    assert cb.to_device(x).sum().dtype == np.uint64


@pytest.mark.parametrize("dtype", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_the_top_bit_is_a_value_not_a_sign(gpu, dtype):
    x, y = high(dtype, 20, seed=3), high(dtype, 20, seed=4)[::-1].copy()
    dx, dy = cb.to_device(x), cb.to_device(y)
    with np.errstate(all="ignore"):
        for op in (np.add, np.subtract, np.multiply, np.floor_divide, np.remainder, np.maximum, np.minimum,
                   np.less, np.greater_equal, np.equal, np.bitwise_and, np.bitwise_or, np.bitwise_xor):
            same(op(dx, dy), op(x, y))
        same(~dx, ~x)
        same(-dx, -x)
        same(abs(dx), abs(x))
        same(dx >> 3, x >> 3)
        same(dx << 5, x << 5)
        same(dx >> cb.to_device(np.arange(20 + 7).astype(dtype)), x >> np.arange(20 + 7).astype(dtype))
    np.testing.assert_allclose(np.sqrt(dx).get(), np.sqrt(x), rtol=1e-6)
    assert np.sqrt(dx).dtype == np.sqrt(x).dtype


@pytest.mark.parametrize("dtype", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_astype_both_ways(gpu, dtype):
    x = high(dtype, 20, seed=5)
    d = cb.to_device(x)
    for to in ALL:
        same(d.astype(to), x.astype(to))
    for frm in (np.int8, np.int64, np.bool_, np.uint8):
        s = np.array([0, 1, -1, 7, 100], np.int64).astype(frm)
        same(cb.to_device(s).astype(dtype), s.astype(dtype))
    f = np.array([0.0, 1.9, 255.5, 65535.0, 3e9], np.float64)
    f = f[f <= np.iinfo(dtype).max]  # out-of-range float -> int casts are undefined in numpy
    same(cb.to_device(f).astype(dtype), f.astype(dtype))


def test_float64_to_uint64_above_int64(gpu):
    f = np.array([2.0**63, 1.8e19, 2.0**64 - 2048], np.float64)
    same(cb.to_device(f).astype(np.uint64), f.astype(np.uint64))
    u = np.array([2**63, 2**64 - 1, 12345678901234567890], np.uint64)
    same(cb.to_device(u).astype(np.float64), u.astype(np.float64))
    same(cb.to_device(u).astype(np.float32), u.astype(np.float32))


@pytest.mark.parametrize("dtype", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_sort_argsort_unique(gpu, dtype):
    x = np.concatenate([high(dtype, 300, seed=6)] * 2)  # ties; long enough for the radix sort
    d = cb.to_device(x)
    same(cb.sort(d), np.sort(x))
    same(cb.argsort(d, kind="stable"), np.argsort(x, kind="stable"))
    same(cb.unique(d), np.unique(x))
    small = cb.to_device(x[:9])
    same(cb.sort(small), np.sort(x[:9]))


@pytest.mark.parametrize("dtype", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_indexing_gather_scatter_and_masks(gpu, dtype):
    x = high(dtype, 17, seed=7).reshape(4, 6)
    d = cb.to_device(x)
    idx = np.array([3, 0, 2], dtype)  # unsigned index arrays, as numpy takes them
    same(d[cb.to_device(idx)], x[idx])
    tidx = idx.astype(np.int64) if dtype == np.uint64 else idx  # numpy's take refuses uint64 indices
    same(cb.take(d, cb.to_device(tidx)), np.take(x, tidx))
    mask = x > x.mean()
    same(d[cb.to_device(mask)], x[mask])
    w, dw = x.copy(), d.copy()
    w[mask] = 9
    dw[cb.to_device(mask)] = 9
    same(dw, w)
    same(cb.where(d > 100, d, dtype(1)), np.where(x > 100, x, dtype(1)))
    same(cb.concatenate([d, d[:1]]), np.concatenate([x, x[:1]]))
    same(np.concatenate([d, d]), np.concatenate([x, x]))


@pytest.mark.parametrize("dtype", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_matmul_wraps_in_the_dtype(gpu, dtype):
    a = high(dtype, 5, seed=8)[:12].reshape(3, 4)
    b = high(dtype, 5, seed=9)[:12].reshape(4, 3)
    with np.errstate(all="ignore"):
        same(cb.to_device(a) @ cb.to_device(b), a @ b)
        same(cb.dot(cb.to_device(a), cb.to_device(b)), np.dot(a, b))


@pytest.mark.parametrize("dtype", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_numpy_interop(gpu, dtype):
    x = high(dtype, 10, seed=10)
    d = cb.to_device(x)
    np.testing.assert_array_equal(np.asarray(d), x)  # __array__: explicit host conversion
    assert np.asarray(d).dtype == dtype
    r = np.add(d, d)  # __array_ufunc__: on the device
    assert isinstance(r, cb.ndarray)
    with np.errstate(all="ignore"):
        same(r, np.add(x, x))
    same(np.sum(d), np.sum(x))  # __array_function__
    same(np.maximum.reduce(d), np.maximum.reduce(x))
    assert int(d[3]) == int(x[3])


def test_uint64_pairs_match_numpy_on_random_data(gpu):
    """A property check over many random uint64 pairs (seeded: the same cases every run)."""
    rng = np.random.default_rng(11)
    x = rng.integers(0, 2**64 - 1, 5000, endpoint=True, dtype=np.uint64)
    y = rng.integers(0, 2**64 - 1, 5000, endpoint=True, dtype=np.uint64)
    y[::7] = 0  # division by zero gives 0, as numpy's
    y[1::11] = rng.integers(0, 64, y[1::11].size, dtype=np.uint64)  # small shift counts and divisors
    dx, dy = cb.to_device(x), cb.to_device(y)
    with np.errstate(all="ignore"):
        for op in (np.add, np.subtract, np.multiply, np.floor_divide, np.remainder, np.fmod, np.power,
                   np.left_shift, np.right_shift, np.less_equal, np.not_equal):
            same(op(dx, dy), op(x, y))
