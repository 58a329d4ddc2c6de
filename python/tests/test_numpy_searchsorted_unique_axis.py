"""searchsorted and unique(axis=) against numpy 1.24 on the same inputs: every device dtype, NaN
(last, as numpy sorts it), ties, both sides, sorter=, scalar / n-d / empty needles, mixed dtypes
(numpy's common dtype), unique slices along each axis of 2-d and 3-d arrays with every return_*
combination, empty and zero-size axes, numpy's errors, np.* dispatch, and no host round trip of
the data."""
import itertools
import warnings

import numpy as np
import pytest

import cudabridge as cb

from device_checks import record_downloads, same
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


# ---- unique(axis=) ----------------------------------------------------------------------------

FLAGS = list(itertools.product([False, True], repeat=3))


def repeated_slices(shape, axis, dtype, seed):
    """An array of `shape` whose slices along axis repeat (drawn from a few distinct ones)."""
    rng = np.random.default_rng(seed)
    pool = data(shape[:axis] + (3,) + shape[axis + 1:], dtype, seed)
    return np.take(pool, rng.integers(0, 3, shape[axis]), axis=axis)


def check_unique(x, d, axis, **kw):
    want = np.unique(x, axis=axis, **kw)
    got = cb.unique(d, axis=axis, **kw)
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    else:
        same(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, axis", [((7, 3), 0), ((4, 6), 1), ((5, 4), -1), ((3, 4, 5), 0), ((3, 4, 5), 1),
                                         ((3, 4, 5), 2), ((3, 4, 5), -2), ((9,), 0)])
def test_unique_along_an_axis(gpu, dtype, shape, axis):
    # At most 15 slices along the axis: numpy's (insertion) sort of them is stable, so even slices
    # holding NaN, never equal to another, come in one order.
    ax = axis % len(shape)
    for seed, x in [(12, data(shape, dtype, 12)), (13, repeated_slices(shape, ax, dtype, 13))]:
        d = cb.to_device(x)
        for index, inverse, counts in FLAGS:
            check_unique(x, d, axis, return_index=index, return_inverse=inverse, return_counts=counts)


@pytest.mark.parametrize("axis", [0, 1])
def test_unique_along_an_axis_of_views(gpu, axis):
    big = repeated_slices((6, 10), axis, np.float32, 14)
    d = cb.to_device(big)
    for x, view in [(big[:, ::-2], d[:, ::-2]), (big.T, d.T)]:
        check_unique(x, view, axis, return_index=True, return_inverse=True, return_counts=True)


def test_unique_along_an_axis_of_many_rows(gpu):
    rng = np.random.default_rng(15)
    pool = rng.integers(-3, 3, (12, 5)).astype(np.int32)
    pool[3] = pool[4]  # ties inside the pool too
    x = pool[rng.integers(0, 12, 400)]
    check_unique(x, cb.to_device(x), 0, return_index=True, return_inverse=True, return_counts=True)
    check_unique(x.T, cb.to_device(x.T), 1, return_index=True, return_inverse=True, return_counts=True)


def test_unique_rows_holding_nan_are_each_their_own(gpu):
    nan = np.nan
    x = np.array([[1, nan], [1, nan], [nan, 0], [0, nan], [1, 2], [nan, nan], [1, 2], [-np.inf, nan]])
    for equal_nan in (True, False):  # numpy 1.24 ignores equal_nan with axis=
        check_unique(x, cb.to_device(x), 0, return_index=True, return_inverse=True, return_counts=True,
                     equal_nan=equal_nan)
    for dtype in (np.float16, np.float32, np.float64):  # numpy 1.24 puts NaN first in float16 slices
        y = np.array([[1, 0], [nan, 1], [0, 2], [nan, 0], [-1, nan], [-1, 3], [np.inf, 0]], dtype)
        check_unique(y, cb.to_device(y), 0, return_index=True, return_inverse=True)
        z = y[:, 0]
        check_unique(z, cb.to_device(z), 0, return_counts=True)


@pytest.mark.parametrize("shape, axis", [((0, 3), 0), ((0, 3), 1), ((3, 0), 0), ((3, 0), 1), ((0, 0), 0),
                                         ((2, 0, 3), 0), ((2, 0, 3), 1), ((2, 0, 3), 2), ((0,), 0)])
def test_unique_along_an_axis_of_empty_arrays(gpu, shape, axis):
    x = np.zeros(shape, np.float32)
    d = cb.to_device(x)
    for index, inverse, counts in FLAGS:
        check_unique(x, d, axis, return_index=index, return_inverse=inverse, return_counts=counts)


@pytest.mark.parametrize("shape, axis", [((), 0), ((2, 3), 2), ((2, 3), -3), ((4,), 1)])
def test_unique_axis_out_of_range_is_numpys_axis_error(gpu, shape, axis):
    x = np.ones(shape)
    with pytest.raises(np.AxisError) as want:
        np.unique(x, axis=axis)
    with pytest.raises(np.AxisError) as got:
        cb.unique(cb.to_device(x), axis=axis)
    assert str(got.value) == str(want.value)


def test_unique_axis_dispatches_from_numpy(gpu):
    x = repeated_slices((5, 4), 1, np.int64, 16)
    got = np.unique(cb.to_device(x), axis=1, return_inverse=True)
    want = np.unique(x, axis=1, return_inverse=True)
    for g, w in zip(got, want):
        same(g, w)


def test_unique_without_axis_is_unchanged(gpu):
    x = np.array([[2.0, np.nan], [np.nan, 2.0]])
    same(cb.unique(cb.to_device(x)), np.unique(x))  # NaNs collapse to one, equal_nan=True
    with pytest.raises(TypeError):
        cb.unique(cb.to_device(x), equal_nan=False)


# ---- residence --------------------------------------------------------------------------------

def test_data_stays_on_the_device(gpu, monkeypatch):
    """Only scalars come back (a count, the sorter's bounds): never the data."""
    a = cb.to_device(np.sort(data((300,), np.float32, 17)))
    v = cb.to_device(data((20, 7), np.float32, 18))
    x = cb.to_device(repeated_slices((40, 6), 0, np.float32, 19))
    sorter = cb.argsort(a)
    sizes = record_downloads(monkeypatch)
    results = [cb.searchsorted(a, v), cb.searchsorted(a, v, "right", sorter), a.searchsorted(1.5),
               *cb.unique(x, axis=0, return_index=True, return_inverse=True, return_counts=True),
               cb.unique(x, axis=1)]
    cb.synchronize()
    assert all(isinstance(r, cb.ndarray) for r in results)
    assert sizes and max(sizes) <= 8, sizes
