"""searchsorted against numpy 1.24 on the same inputs: every device dtype, NaN (last, as numpy
sorts it), ties, both sides, sorter=, scalar / n-d / empty needles, mixed dtypes (numpy's common
dtype), numpy's errors, np.* dispatch, and no host round trip of the data."""
import itertools
import warnings

import numpy as np
import pytest

import cudabridge as cb

from device_checks import same
from test_elementwise import DTYPES
from test_numpy_indexing import data

SIDES = ["left", "right"]


def needles(dtype, seed):
    """Values found in, between and outside a (ties included; NaN and +-inf for floats)."""
    dtype = np.dtype(dtype)
    v = data((11,), dtype, seed)
    if dtype.kind == "f":
        v[:3] = [-100, 0.25, 100]
    return v


# ---- searchsorted -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("side", SIDES)
def test_searchsorted_matches_numpy(gpu, dtype, side):
    a = np.sort(data((13,), dtype, 1))
    v = needles(dtype, 2)
    d = cb.to_device(a)
    same(cb.searchsorted(d, cb.to_device(v), side), np.searchsorted(a, v, side))
    same(d.searchsorted(cb.to_device(v), side=side), a.searchsorted(v, side=side))
    same(cb.searchsorted(d, v.reshape(1, 11), side), np.searchsorted(a, v.reshape(1, 11), side))  # host v
    same(cb.searchsorted(d, cb.to_device(v[::-2]), side), np.searchsorted(a, v[::-2], side))  # a view


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("side", SIDES)
def test_searchsorted_puts_nan_last(gpu, dtype, side):
    a = np.array([-np.inf, -1, -0.0, 0, 0, 2, np.inf, np.nan, np.nan], dtype)
    v = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1, 3, np.nan], dtype)
    same(cb.searchsorted(cb.to_device(a), cb.to_device(v), side), np.searchsorted(a, v, side))
    same(cb.searchsorted(cb.to_device(a[:7]), cb.to_device(v), side), np.searchsorted(a[:7], v, side))


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("v", [3, -1, 100, 2.5, True, np.float32(2.0), np.int8(4), np.nan])
def test_searchsorted_scalar_needle_is_0d(gpu, side, v):
    a = np.array([0, 1, 2, 2, 3, 4, 4, 9], np.int32)
    got = cb.searchsorted(cb.to_device(a), v, side)
    assert got.shape == ()
    same(got, np.searchsorted(a, v, side))
    same(cb.searchsorted(cb.to_device(a), cb.to_device(np.asarray(v)), side), np.searchsorted(a, np.asarray(v), side))


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("v_shape", [(2, 3), (3, 1, 2), (0,), (2, 0), ()])
def test_searchsorted_keeps_the_needles_shape(gpu, side, v_shape):
    a = np.sort(data((9,), np.int16, 3))
    v = data(v_shape, np.int16, 4)
    same(cb.searchsorted(cb.to_device(a), cb.to_device(v), side), np.searchsorted(a, v, side))


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_searchsorted_in_empty_a(gpu, side, dtype):
    a = np.zeros(0, dtype)
    for v in [np.ones((2, 3), dtype), np.ones(0, dtype), dtype(1)]:
        same(cb.searchsorted(cb.to_device(a), cb.to_device(np.asarray(v)), side), np.searchsorted(a, v, side))
    same(cb.searchsorted(cb.to_device(a), 5, side), np.searchsorted(a, 5, side))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("side", SIDES)
def test_searchsorted_with_sorter(gpu, dtype, side):
    a = data((12,), dtype, 5)  # unsorted; sorter sorts it
    sorter = np.argsort(a, kind="stable")
    v = needles(dtype, 6)
    want = np.searchsorted(a, v, side, sorter)
    d = cb.to_device(a)
    same(cb.searchsorted(d, cb.to_device(v), side, sorter), want)  # host sorter
    same(cb.searchsorted(d, cb.to_device(v), side, cb.to_device(sorter.astype(np.int32))), want)
    same(d.searchsorted(cb.to_device(v), side, sorter=cb.to_device(sorter.astype(np.uint8))), want)


MIXED = [np.int8, np.uint8, np.int64, np.uint64, np.float16, np.float32, np.float64, np.bool_]


@pytest.mark.parametrize("a_dtype, v_dtype", itertools.product(MIXED, MIXED))
def test_searchsorted_compares_in_numpys_common_dtype(gpu, a_dtype, v_dtype):
    a = np.sort(data((10,), a_dtype, 7))
    v = data((8,), v_dtype, 8)
    for side in SIDES:
        same(cb.searchsorted(cb.to_device(a), cb.to_device(v), side), np.searchsorted(a, v, side))


@pytest.mark.parametrize("a, v", [
    (np.array([1, 2, 3], np.int8), 1000),  # not wrapped to int8
    (np.array([1, 2, 3], np.uint8), -1),
    (np.array([1, 2, 3], np.uint8), 2.5),
    (np.array([1, 2, 3], np.uint64), -1),  # float64
    (np.array([1, 2, 3], np.int64), 2 ** 63),  # uint64 with int64: float64
    (np.array([1, 2, 3], np.float32), 2.0000001),  # compared in float64, not float32
    (np.array([1, 2, 3], np.float32), np.float64(2.0000001)),
    (np.array([1, 2, 3], np.float32), np.array([2.0000001, 1.0])),
    (np.array([False, True]), 0.5),
    (np.array([1.0, 2.0, 3.0]), [2, 2.5, True]),  # a host list
])
def test_searchsorted_promotes_as_numpy(gpu, a, v):
    for side in SIDES:
        same(cb.searchsorted(cb.to_device(a), v, side), np.searchsorted(a, v, side))


def test_searchsorted_of_long_arrays(gpu):
    rng = np.random.default_rng(9)
    a = np.sort(rng.integers(-500, 500, 20_000)).astype(np.float32)
    v = rng.integers(-600, 600, (50, 61)).astype(np.float32)
    v[::7, ::3] = np.nan
    for side in SIDES:
        same(cb.searchsorted(cb.to_device(a), cb.to_device(v), side), np.searchsorted(a, v, side))


def test_searchsorted_of_a_strided_view(gpu):
    big = np.sort(data((30,), np.float64, 10))
    a = big[::3]
    v = needles(np.float64, 11)
    same(cb.searchsorted(cb.to_device(big)[::3], cb.to_device(v)), np.searchsorted(a, v))


def test_searchsorted_dispatches_from_numpy(gpu):
    a = np.array([1.0, 2.0, 2.0, 4.0])
    v = np.array([2.0, 3.0])
    got = np.searchsorted(cb.to_device(a), cb.to_device(v), side="right")
    same(got, np.searchsorted(a, v, side="right"))
    same(np.searchsorted(a, cb.to_device(v)), np.searchsorted(a, v))  # a device needle: the device too
    same(np.searchsorted(cb.to_device(a), 2.0, sorter=[0, 1, 2, 3]), np.searchsorted(a, 2.0, sorter=[0, 1, 2, 3]))


def test_searchsorted_deprecated_sides_work_and_warn_as_numpy(gpu):
    a = np.array([1, 2, 2, 3])
    for side in ["l", "R", "Left", "rightish"]:
        with pytest.warns(DeprecationWarning):
            want = np.searchsorted(a, 2, side)
        with pytest.warns(DeprecationWarning, match="search side"):
            got = cb.searchsorted(cb.to_device(a), 2, side)
        same(got, want)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cb.searchsorted(cb.to_device(a), 2, "right")


def _raises_as_numpy(call):
    """call(np) raises; call(cb) raises the same type with the same message."""
    with pytest.raises(Exception) as want:
        call(np, lambda x: x)
    with pytest.raises(type(want.value)) as got:
        call(cb, cb.to_device)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("call", [
    lambda m, d: m.searchsorted(d(np.ones((2, 2))), 1.0),
    lambda m, d: m.searchsorted(d(np.float64(1.0)), 1.0),
    lambda m, d: m.searchsorted(d(np.arange(3)), 1, "middle"),
    lambda m, d: m.searchsorted(d(np.arange(3)), 1, ""),
    lambda m, d: m.searchsorted(d(np.arange(3)), 1, None),
    lambda m, d: m.searchsorted(d(np.arange(3)), 1, sorter=[0, 1]),
    lambda m, d: m.searchsorted(d(np.arange(3)), 1, sorter=[0.0, 1.0, 2.0]),
    lambda m, d: m.searchsorted(d(np.arange(3)), 1, sorter=[True, False, True]),
    lambda m, d: m.searchsorted(d(np.arange(3)), 1, sorter=[[0, 1, 2]]),
    lambda m, d: m.searchsorted(d(np.arange(3)), 1, sorter=np.arange(3, dtype=np.uint64)),
    lambda m, d: m.searchsorted(d(np.arange(1)), 1, sorter=[]),
])
def test_searchsorted_errors_match_numpy(gpu, call):
    _raises_as_numpy(call)


def test_searchsorted_sorter_out_of_range(gpu):
    # numpy raises only when its binary search reads the bad index; the device checks them all.
    a = np.array([3, 1, 2])
    with pytest.raises(ValueError, match="Sorter index out of range"):
        np.searchsorted(a, 0, sorter=[3, 1, 2])
    for sorter in ([3, 1, 2], [-1, 1, 2], [1, 2, 3]):
        with pytest.raises(ValueError, match="Sorter index out of range"):
            cb.searchsorted(cb.to_device(a), 0, sorter=sorter)


# ---- residence --------------------------------------------------------------------------------

def test_data_stays_on_the_device(gpu, monkeypatch):
    """Only scalars come back (the sorter's bounds): never the data."""
    from cudabridge import _array
    a = cb.to_device(np.sort(data((300,), np.float32, 17)))
    v = cb.to_device(data((20, 7), np.float32, 18))
    sorter = cb.argsort(a)
    sizes = []
    real = _array._core.download

    def download(block, offset, dst, stream):
        sizes.append(dst.nbytes)
        return real(block, offset, dst, stream)

    monkeypatch.setattr(_array._core, "download", download)
    results = [cb.searchsorted(a, v), cb.searchsorted(a, v, "right", sorter), a.searchsorted(1.5)]
    cb.synchronize()
    assert all(isinstance(r, cb.ndarray) for r in results)
    assert sizes and max(sizes) <= 8, sizes
