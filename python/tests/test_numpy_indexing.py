"""Indexing and sorting against numpy 1.24: where (both forms), nonzero, take, take_along_axis, put,
a[mask], a[mask] = v, a[idx], a[idx] = v, sort, argsort and unique, over every device dtype and
shapes from 0-d and empty to non-contiguous views; NaN ordering, numpy's IndexError for indices out
of range, np.* dispatch, device arrays as results, and no host round trip of the data."""
import warnings

import numpy as np
import pytest

import cudabridge as cb

from device_checks import record_downloads, same
from test_elementwise import DTYPES


def data(shape, dtype, seed):
    """Repeated values (ties for sort and unique), NaN, +-inf and signed zeros in floats."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.kind == "f":
        x = rng.integers(-6, 6, shape).astype(dtype) * dtype.type(0.5)
        flat = x.reshape(-1)
        for i, v in zip((1, 4, 7, 9, 12), (np.nan, np.inf, -np.inf, -0.0, np.nan)):
            if i < flat.size:
                flat[i] = v
        return x
    return rng.integers(-20 if dtype.kind == "i" else 0, 20, shape).astype(dtype)


def cases(shape, dtype, seed):
    """(name, host, device) for the array and, when 2-d or more, a strided and a transposed view."""
    x = data(shape, dtype, seed)
    yield "contiguous", x, cb.to_device(x)
    if len(shape) >= 2:
        big = data((shape[0], shape[1] * 2) + shape[2:], dtype, seed + 1)
        yield "strided", big[:, ::-2], cb.to_device(big)[:, ::-2]
        yield "transposed", x.T, cb.to_device(x).T


SHAPES = [(0,), (7,), (3, 0), (4, 5), (2, 3, 4)]


# ---- where / nonzero --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + [()])
def test_nonzero_and_where_one_argument(gpu, dtype, shape):
    for name, x, d in cases(shape, dtype, 1):
        if x.ndim == 0:
            with pytest.warns(DeprecationWarning):
                got = cb.nonzero(d)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = np.nonzero(x)
        else:
            got, want = cb.nonzero(d), np.nonzero(x)
            assert len(cb.where(d)) == len(want)
            for g, w in zip(cb.where(d), want):
                same(g, w)
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            same(g, w)
        same(cb.flatnonzero(d), np.flatnonzero(x))


@pytest.mark.parametrize("dx", DTYPES)
@pytest.mark.parametrize("dy", [np.float32, np.int64, np.int8, np.bool_])
def test_where_promotes_as_numpy(gpu, dx, dy):
    cond = data((4, 5), np.bool_, 3)
    x, y = data((4, 5), dx, 4), data((5,), dy, 5)
    same(cb.where(cb.to_device(cond), cb.to_device(x), cb.to_device(y)), np.where(cond, x, y))


@pytest.mark.parametrize("x, y", [(1, 2.5), (np.int8(3), 300), (True, 0), (1000, -1)])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.float32, np.int32])
def test_where_with_scalars_is_value_based(gpu, x, y, dtype):
    a = data((6,), dtype, 6)
    cond = a > 0
    da = cb.to_device(a)
    for got, want in ((lambda: cb.where(da > 0, da, y), np.where(cond, a, y)),
                      (lambda: cb.where(da > 0, x, da), np.where(cond, x, a)),
                      (lambda: cb.where(cb.to_device(cond), x, y), np.where(cond, x, y))):
        if want.dtype in map(np.dtype, DTYPES):
            same(got(), want)
        else:  # numpy's dtype (uint16 for uint8 with 300) is not a device dtype: refused, not guessed
            with pytest.raises(TypeError, match=str(want.dtype)):
                got()


def test_where_broadcasts_views_and_non_bool_conditions(gpu):
    c = data((3, 1, 4), np.float64, 7)  # NaN counts as True, as in numpy
    x = data((2, 4), np.float32, 8)
    big = data((2, 8), np.int16, 9)
    same(cb.where(cb.to_device(c), cb.to_device(x), cb.to_device(big)[:, ::2]), np.where(c, x, big[:, ::2]))
    same(cb.where(cb.to_device(np.array(True)), 1.5, cb.to_device(x).T), np.where(True, 1.5, x.T))
    same(cb.where(cb.to_device(np.zeros((0, 4), bool)), 1, 2), np.where(np.zeros((0, 4), bool), 1, 2))
    with pytest.raises(ValueError):
        cb.where(cb.to_device(c), cb.to_device(x))
    with pytest.raises(ValueError):
        cb.where(cb.to_device(np.ones(3, bool)), cb.to_device(np.ones(4)), 0)


# ---- take / take_along_axis / put -------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7,), (4, 5), (2, 3, 4)])
def test_take(gpu, dtype, shape):
    idx = np.array([[0, -1], [1, -2]])  # in range for every axis (the smallest has 2)
    for name, x, d in cases(shape, dtype, 10):
        same(cb.take(d, idx), np.take(x, idx))
        for axis in range(-x.ndim, x.ndim):
            same(cb.take(d, idx, axis=axis), np.take(x, idx, axis=axis))
            same(cb.take(d, 1, axis=axis), np.take(x, 1, axis=axis))
            same(d.take([], axis=axis), x.take(np.array([], np.int64), axis=axis))
        for mode in ("wrap", "clip"):
            far = np.array([-9, 3, 40])
            same(cb.take(d, far, axis=0, mode=mode), np.take(x, far, axis=0, mode=mode))


def test_take_errors_and_out(gpu):
    x = np.arange(12.0).reshape(3, 4)
    d = cb.to_device(x)
    for bad in ([3], [-4], [0, 99]):
        with pytest.raises(IndexError):
            np.take(x, bad, axis=0)
        with pytest.raises(IndexError, match="out of bounds"):
            cb.take(d, bad, axis=0)
    with pytest.raises(IndexError):
        cb.take(d, [0.5])
    with pytest.raises(IndexError):
        cb.take(cb.to_device(np.zeros((0, 3))), [0], axis=0)
    with pytest.raises(np.AxisError):
        cb.take(d, [0], axis=2)
    with pytest.raises(ValueError):
        cb.take(d, [0], mode="bogus")
    out = cb.zeros((2, 4), np.float64)
    assert cb.take(d, [2, 0], axis=0, out=out) is out
    same(out, x[[2, 0]])


@pytest.mark.parametrize("dtype", DTYPES)
def test_take_along_axis(gpu, dtype):
    for name, x, d in cases((4, 6), dtype, 11):
        for axis in (0, 1, -1):
            order = np.argsort(x, axis=axis, kind="stable")
            same(cb.take_along_axis(d, cb.to_device(order), axis), np.take_along_axis(x, order, axis))
        first = np.zeros((1, x.shape[1]), np.int64)
        same(cb.take_along_axis(d, first, 0), np.take_along_axis(x, first, 0))  # broadcast along axis 1
        same(cb.take_along_axis(d, np.array([5, -1]), None), np.take_along_axis(x, np.array([5, -1]), None))
    with pytest.raises(IndexError):
        cb.take_along_axis(cb.to_device(np.ones((2, 2))), np.array([[2]]), 1)
    with pytest.raises(ValueError):
        cb.take_along_axis(cb.to_device(np.ones((2, 2))), np.array([1]), 1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_put(gpu, dtype):
    for name, x, d in cases((4, 5), dtype, 12):
        want = x.copy()
        v = data((3,), dtype, 13)
        np.put(want, [0, -1, 7, 7, 3], v)  # values repeat; a repeated index keeps the last
        cb.put(d, [0, -1, 7, 7, 3], cb.to_device(v))
        same(d, want)
        np.put(want, [1, 2], 1)
        d.put([1, 2], 1)
        same(d, want)
        with pytest.raises(IndexError):
            cb.put(d, [20], 1)
        for mode in ("wrap", "clip"):
            np.put(want, [-30, 50], 0, mode=mode)
            cb.put(d, [-30, 50], 0, mode=mode)
            same(d, want)
    with pytest.raises(TypeError):
        cb.put(np.zeros(3), [0], 1)


# ---- a[key] and a[key] = v --------------------------------------------------------------------

KEYS = [
    lambda x: x > 0,                        # a full mask
    lambda x: (x > 0)[:, 0] if x.ndim > 1 else np.array([True, False] * 3 + [True]),  # a mask of rows
    lambda x: np.array([2, 0, -1, 2]),
    lambda x: [1, 1],
    lambda x: np.array([[0, 1], [-1, 2]]),
    lambda x: (slice(None), np.array([1, -2])) if x.ndim > 1 else np.array([], np.int64),
    lambda x: (Ellipsis, np.array([0, 0])),
    lambda x: (np.array([0, 2]), np.array([1, 3])) if x.ndim > 1 else np.array([0]),
    lambda x: (1, np.array([2, 0])) if x.ndim > 1 else np.array([3]),
    lambda x: (slice(1, None), x[0] > 0) if x.ndim > 1 else np.zeros(7, bool),
    lambda x: (np.arange(x.shape[0]) % 2 == 0,) if x.ndim > 1 else np.ones(7, bool),
]


def _device_key(key):
    if isinstance(key, tuple):
        return tuple(cb.to_device(k) if isinstance(k, np.ndarray) else k for k in key)
    return cb.to_device(key) if isinstance(key, np.ndarray) else key


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7,), (4, 5)])
@pytest.mark.parametrize("k", range(len(KEYS)))
def test_getitem(gpu, dtype, shape, k):
    for name, x, d in cases(shape, dtype, 14):
        key = KEYS[k](x)
        same(d[_device_key(key)], x[key])
        same(d[key], x[key])  # host keys travel to the device


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(7,), (4, 5)])
@pytest.mark.parametrize("k", range(len(KEYS)))
def test_setitem(gpu, dtype, shape, k):
    for name, x, d in cases(shape, dtype, 15):
        key = KEYS[k](x)
        want = x.copy()
        want[key] = 1
        d[_device_key(key)] = 1
        same(d, want)
        selected = x[key]
        values = data(selected.shape, dtype, 16)  # a repeated index keeps the last value, as numpy's
        want[key] = values
        d[key] = cb.to_device(values)
        same(d, want)


@pytest.mark.parametrize("key", [True, False, (Ellipsis, True), (0, True), np.array(True)])
@pytest.mark.parametrize("shape", [(), (2, 3), (0,), (0, 3), (2, 0)])
def test_boolean_scalar_keys_are_0d_masks(gpu, key, shape):
    x = np.arange(float(np.prod(shape))).reshape(shape)
    d = cb.to_device(x)
    try:
        x[key]
    except IndexError:  # numpy: too many indices for a 0-d array, or 0 out of bounds of an empty axis
        with pytest.raises(IndexError):
            d[key]
        return
    same(d[key], x[key])
    want = x.copy()
    want[key] = 7
    d[key] = 7
    same(d, want)


@pytest.mark.parametrize("shape,mask_shape", [((1,), (0,)), ((3,), (0,)), ((2, 3), (0,)), ((1, 3), (1, 0)),
                                              ((2, 1), (2, 0)), ((2, 3), (0, 5)), ((1,), (2,))])
def test_a_mask_dimension_of_0_matches_any(gpu, shape, mask_shape):
    """numpy 1.24: a mask's 0-length dimension matches any length (it selects nothing); another
    mismatch is an IndexError, reading and writing."""
    x = np.arange(float(np.prod(shape))).reshape(shape)
    mask = np.zeros(mask_shape, np.bool_)
    d = cb.to_device(x)
    try:
        want = x[mask]
    except IndexError:
        with pytest.raises(IndexError, match="boolean index did not match"):
            d[cb.to_device(mask)]
        with pytest.raises(IndexError, match="boolean index did not match"):
            d[mask] = 7
        return
    same(d[cb.to_device(mask)], want)
    d[mask] = 7
    same(d, x)


def test_unhandled_advanced_forms_raise_instead_of_copying_to_the_host(gpu):
    d = cb.to_device(np.arange(24.0).reshape(2, 3, 4))
    for key in ((np.array([0, 1]), slice(None), 0), (np.array([0, 1]), slice(None), np.array([1, 2]))):
        with pytest.raises(IndexError, match="not supported on the device"):
            d[key]
        with pytest.raises(IndexError, match="not supported on the device"):
            d[key] = 1.0


def test_index_errors_match_numpy(gpu):
    x = np.arange(20).reshape(4, 5)
    d = cb.to_device(x)
    for key in ([4], [-5], (slice(None), [5]), np.ones(5, bool), (slice(None), np.ones(4, bool)),
                ([0, 1], [0, 9])):
        with pytest.raises(IndexError):
            x[key]
        with pytest.raises(IndexError):
            d[key]
        with pytest.raises(IndexError):
            d[key] = 0
    with pytest.raises(IndexError):
        d[np.array([0.5])]
    with pytest.raises(ValueError):
        d[np.array([0, 1])] = cb.to_device(np.ones((3, 5)))


# ---- sort / argsort / unique ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_sort_and_argsort(gpu, dtype, shape):
    for name, x, d in cases(shape, dtype, 17):
        for axis in [None] + list(range(-x.ndim, x.ndim)):
            same(cb.sort(d, axis=axis), np.sort(x, axis=axis))
            # Stable: equal values keep their order (numpy's kind='stable'; its default quicksort may
            # order ties either way).
            same(cb.argsort(d, axis=axis), np.argsort(x, axis=axis, kind="stable"))
        copy = d.copy()
        copy.sort(axis=0)
        same(copy, np.sort(x, axis=0))


def test_sort_puts_nan_last_and_refuses_0d(gpu):
    x = np.array([np.nan, 1.0, -np.inf, np.nan, 0.0, np.inf, -1.0], np.float32)
    same(cb.sort(cb.to_device(x)), np.sort(x))
    same(cb.argsort(cb.to_device(x)), np.argsort(x, kind="stable"))
    with pytest.raises(np.AxisError):
        cb.sort(cb.to_device(np.float64(1.0)))
    same(cb.sort(cb.to_device(np.float64(1.0)), axis=None), np.sort(np.float64(1.0), axis=None))
    with pytest.raises(ValueError):
        cb.sort(cb.to_device(x), kind="bogus")


def test_sort_of_long_rows(gpu):
    x = np.random.default_rng(3).standard_normal(100_003).astype(np.float32)
    x[::1000] = np.nan
    same(cb.sort(cb.to_device(x)), np.sort(x))
    same(cb.argsort(cb.to_device(x)), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (9,), (4, 5)])
def test_unique(gpu, dtype, shape):
    for name, x, d in cases(shape, dtype, 18):
        same(cb.unique(d), np.unique(x))
        got = cb.unique(d, return_index=True, return_inverse=True, return_counts=True)
        want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
        assert len(got) == 4
        for g, w in zip(got, want):
            same(g, w)


# ---- dispatch and residence -------------------------------------------------------------------

def test_numpy_dispatch_returns_device_arrays(gpu):
    x = data((4, 5), np.float64, 19)
    d = cb.to_device(x)
    idx = np.array([[1], [0], [3], [2]])
    same(np.where(d > 0, d, 0.0), np.where(x > 0, x, 0.0))
    for g, w in zip(np.where(d > 0), np.where(x > 0)):
        same(g, w)
    for g, w in zip(np.nonzero(d), np.nonzero(x)):
        same(g, w)
    same(np.flatnonzero(d), np.flatnonzero(x))
    same(np.take(d, [1, 3]), np.take(x, [1, 3]))
    same(np.take_along_axis(d, cb.to_device(idx), 1), np.take_along_axis(x, idx, 1))
    same(np.sort(d), np.sort(x))
    same(np.argsort(d, axis=0), np.argsort(x, axis=0, kind="stable"))
    same(np.unique(d), np.unique(x))
    want = x.copy()
    np.put(want, [0, 1], [7.0, 8.0])
    assert np.put(d, [0, 1], [7.0, 8.0]) is None
    same(d, want)


def test_data_stays_on_the_device(gpu, monkeypatch):
    """Only scalars come back (a count, an index bound): never the data."""
    x = data((64, 33), np.float32, 20)
    d = cb.to_device(x)
    sizes = record_downloads(monkeypatch)
    mask = d > 0
    results = [cb.where(mask, d, -d), cb.nonzero(d)[1], cb.take(d, [3, -1], axis=1), d[mask], d[[1, 5]],
               d[:, [0, 2]], cb.sort(d, axis=0), cb.argsort(d), cb.unique(d),
               cb.take_along_axis(d, cb.argsort(d), 1)]
    d[mask] = 0.0
    d[[1, 2]] = cb.to_device(np.ones((2, 33), np.float32))
    cb.put(d, [0, 5], 3.0)
    cb.synchronize()
    assert all(isinstance(r, cb.ndarray) for r in results)
    assert sizes and max(sizes) <= 8, sizes


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 5), (4, 1, 6), (2, 2, 2, 3)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_unravel_index_matches_numpy(gpu, shape, order):
    flat = np.array([0, 1, int(np.prod(shape)) - 1, int(np.prod(shape)) // 2, 3 % int(np.prod(shape))])
    got = np.unravel_index(cb.to_device(flat), shape, order=order)
    want = np.unravel_index(flat, shape, order=order)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, cb.ndarray)
        np.testing.assert_array_equal(cb.from_device(g), w)
    np.testing.assert_array_equal(cb.from_device(cb.unravel_index(cb.to_device(flat.reshape(-1, 1)), shape)[0]),
                                  np.unravel_index(flat.reshape(-1, 1), shape)[0])


def test_argmax_over_every_axis_unravels_on_the_device(gpu):
    a = np.random.default_rng(2).random((5, 7, 3))
    got = np.unravel_index(cb.argmax(cb.to_device(a)), a.shape)
    assert tuple(int(c) for c in got) == np.unravel_index(np.argmax(a), a.shape)


@pytest.mark.parametrize("indices, shape, error", [
    ([0, 12], (3, 4), ValueError),
    ([-1], (3, 4), ValueError),
    ([0.5], (3, 4), TypeError),
    ([0], (3, -4), ValueError),
    ([0], (3, 4.0), TypeError),
])
def test_unravel_index_refuses_what_numpy_refuses(gpu, indices, shape, error):
    with pytest.raises(error):
        np.unravel_index(np.asarray(indices), shape)  # numpy's own answer, for the same inputs
    with pytest.raises(error):
        cb.unravel_index(cb.to_device(np.asarray(indices)), shape)


def test_unravel_index_in_an_unknown_order_is_refused(gpu):
    with pytest.raises(ValueError, match="order"):
        cb.unravel_index(cb.to_device(np.array([1])), (2, 2), order="K")


@pytest.mark.parametrize("dims", [(7,), (3, 4), (2, 3, 5)])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_ravel_multi_index_matches_numpy(gpu, dims, order, mode):
    rng = np.random.default_rng(len(dims))
    coords = tuple(rng.integers(-2 if mode != "raise" else 0, n + (2 if mode != "raise" else 0), size=(4, 3))
                   for n in dims)
    want = np.ravel_multi_index(coords, dims, mode=mode, order=order)
    got = np.ravel_multi_index(tuple(cb.to_device(c) for c in coords), dims, mode=mode, order=order)
    np.testing.assert_array_equal(cb.from_device(got), want)


def test_ravel_multi_index_refuses_what_numpy_refuses(gpu):
    with pytest.raises(ValueError, match="invalid entry"):
        cb.ravel_multi_index((cb.to_device(np.array([0, 3])), cb.to_device(np.array([1, 1]))), (3, 4))
    with pytest.raises(TypeError):
        cb.ravel_multi_index((cb.to_device(np.array([0.5])),), (3,))
    with pytest.raises(ValueError):
        cb.ravel_multi_index((cb.to_device(np.array([0])),), (3, 4))


def test_dask_argmax_over_every_axis_runs_on_device_chunks(gpu):
    cbd = pytest.importorskip("cudabridge.dask")
    x = np.random.default_rng(1).random((40, 30))
    d = cbd.from_array(x, chunks=(16, 16))
    assert int(d.argmax().compute(scheduler="sync")) == np.argmax(x)
    assert int(d.argmin().compute(scheduler="sync")) == np.argmin(x)
