"""numpy's statistics functions on device arrays (_statistics.py) against numpy 1.24 on the same
inputs, through np.<fn>(device array) and cb.<fn>: order statistics (median, quantile, percentile
and their nan-variants), average, ptp, cov, corrcoef, histogram, bincount, digitize, isin, in1d,
isclose, allclose and the nan-reductions; float32/float64/int32/int64/bool, 0-d, empty, multi-dim
and non-contiguous inputs, axis variants, NaN, and numpy's exceptions. Results are device arrays
(allclose: a Python bool)."""
import warnings

import numpy as np
import pytest

import cudabridge as cb

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]
SHAPES = [(), (0,), (0, 3), (7,), (8,), (3, 4, 5)]


def data(shape, dtype, seed, nan=True):
    """Values with a few NaN for floats (so most slices stay NaN-free), repeats for integers."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.kind == "f":
        x = rng.uniform(-50, 50, shape).astype(dtype)
        flat = x.reshape(-1)
        if nan and flat.size >= 12:
            flat[[2, 11]] = np.nan
        return x
    return rng.integers(-20, 20, shape).astype(dtype)


def views(shape, dtype, seed, nan=True):
    """(name, host array, device array): contiguous, and for 3-d a strided and a transposed view."""
    x = data(shape, dtype, seed, nan)
    yield "contiguous", x, cb.to_device(x)
    if len(shape) == 3:
        big = data((shape[0], shape[1] * 2, shape[2]), dtype, seed + 1, nan)
        yield "strided", big[:, ::2, ::-1], cb.to_device(big)[:, ::2, ::-1]
        yield "transposed", x.transpose(2, 0, 1), cb.to_device(x).transpose(2, 0, 1)


def axes_for(ndim):
    yield None
    yield from range(ndim)
    if ndim:
        yield -1
    if ndim == 3:
        yield (0, 2)
        yield (0, 1, 2)


def quiet(fn):
    """fn()'s result, or the type of the exception it raises; numpy's warnings silenced."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            return None, type(e)


def expected_error(raised):
    """The exception a device call must raise for numpy's `raised`: its public base class."""
    return next(b for b in (raised, np.AxisError, ZeroDivisionError, IndexError, ValueError, TypeError)
                if issubclass(raised, b) and b.__module__ in ("builtins", "numpy"))


def tolerance(dtype, loose):
    if np.dtype(dtype) == np.float32:
        return dict(rtol=2e-4, atol=2e-3) if loose else dict(rtol=2e-6, atol=1e-6)
    return dict(rtol=1e-9, atol=1e-9) if loose else dict(rtol=1e-12, atol=1e-12)


def matches(got, want, loose=False):
    """Device array `got` holds numpy's `want` (tuples element by element): dtype, shape, values
    (floats within tolerance, NaN equal to NaN; `loose` for another summation order)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), got
        for g, w in zip(got, want):
            matches(g, w, loose)
        return
    assert isinstance(got, cb.ndarray), type(got)
    host, want = got.get(), np.asarray(want)
    assert host.dtype == want.dtype, (host.dtype, want.dtype)
    assert host.shape == want.shape, (host.shape, want.shape)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(host, want, equal_nan=True, **tolerance(want.dtype, loose))
    else:
        np.testing.assert_array_equal(host, want)


def on_device(v):
    return cb.to_device(v) if isinstance(v, np.ndarray) else v


def check(name, host_args, kwargs=None, device_args=None, loose=False, device_kwargs=None):
    """np.<name> and cb.<name> of the device arguments (host arrays uploaded unless given) and
    keywords (the host ones unless given) against numpy's np.<name> of the host ones: the same
    result, or the same exception."""
    kwargs = kwargs or {}
    device_args = [on_device(v) for v in host_args] if device_args is None else device_args
    device_kwargs = kwargs if device_kwargs is None else device_kwargs
    want, raised = quiet(lambda: getattr(np, name)(*host_args, **kwargs))
    for how in (np, cb):
        where = f"{how.__name__}.{name}({[getattr(v, 'shape', v) for v in host_args]}, {kwargs})"
        if raised is not None:
            with pytest.raises(expected_error(raised)):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    getattr(how, name)(*device_args, **device_kwargs)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = getattr(how, name)(*device_args, **device_kwargs)
        try:
            if name == "allclose":
                assert type(got) is bool and got == want, (got, want)
            else:
                matches(got, want, loose)
        except AssertionError as e:
            raise AssertionError(f"{where}: {e}") from None


# ---- order statistics ---------------------------------------------------------------------------

# name -> extra positional arguments (q)
ORDER = [("median", ()), ("nanmedian", ()), ("quantile", (0.3,)), ("quantile", ([0.0, 0.25, 0.5, 1.0],)),
         ("quantile", (1,)), ("percentile", (75,)), ("percentile", ([10, 90],)), ("nanquantile", (0.3,)),
         ("nanquantile", ([0.0, 0.5, 1.0],)), ("nanpercentile", (50,)), ("nanpercentile", ([5, 95.5],))]
ORDER_CASES = [(n, q, d, s) for n, q in ORDER for d in DTYPES for s in SHAPES]


@pytest.mark.parametrize("name,q,dtype,shape", ORDER_CASES,
                         ids=[f"{n}{list(q)}-{np.dtype(d)}-{s}" for n, q, d, s in ORDER_CASES])
def test_order_statistics(gpu, name, q, dtype, shape):
    for view, x, d in views(shape, dtype, 11):
        for axis in axes_for(x.ndim):
            for keepdims in (False, True):
                check(name, (x,) + q, dict(axis=axis, keepdims=keepdims), (d,) + q)


def test_order_statistics_all_nan_slices(gpu):
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    x[0] = np.nan  # the first slice along axis 1 all-NaN (numpy then keeps float32)
    x[2, 1:3] = np.nan
    d = cb.to_device(x)
    for name, q in [("nanmedian", ()), ("nanquantile", (0.4,)), ("nanquantile", ([0.1, 0.9],)),
                    ("nanpercentile", (50,)), ("median", ()), ("quantile", (0.5,)), ("percentile", ([20, 80],))]:
        for axis in (None, 0, 1):
            check(name, (x,) + q, dict(axis=axis), (d,) + q)
    check("nanmedian", (np.full(3, np.nan),))
    check("nanquantile", (np.full(3, np.nan, np.float32), [0.5, 0.7]))
    with pytest.warns(RuntimeWarning, match="All-NaN slice"):
        cb.nanmedian(d, axis=1)
    with pytest.warns(RuntimeWarning, match="All-NaN slice"):
        cb.nanquantile(d, 0.5, axis=1)


def test_quantile_q_and_method(gpu):
    x = data((6, 5), np.float64, 3)
    d = cb.to_device(x)
    for q in ([0.5, 1.5], -0.1, np.nan, [[0.1, 0.2], [0.3, 1.0]], np.zeros((2, 2, 2))):
        check("quantile", (x, q), dict(axis=1), (d, q))
    check("percentile", (x, 101), {}, (d, 101))
    check("nanpercentile", (x, [-1, 50]), {}, (d, [-1, 50]))
    qd = cb.to_device(np.array([0.2, 0.6]))  # q on the device too
    matches(np.quantile(d, qd, axis=0), np.quantile(x, [0.2, 0.6], axis=0))
    matches(cb.percentile(d, cb.to_device(np.array(40.0))), np.percentile(x, 40.0))
    with pytest.raises(ValueError):
        cb.quantile(d, cb.to_device(np.array([0.5, 2.0])))
    with pytest.raises(ValueError):
        cb.quantile(d, 0.5, method="bogus")
    with pytest.raises(TypeError):
        cb.quantile(d, 0.5, method="lower")  # a valid numpy method the device does not run
    check("quantile", (x, 0.5), dict(axis=2), (d, 0.5))  # AxisError
    check("median", (x,), dict(axis=(0, 0)), (d,))  # repeated axis
    out = cb.zeros((5,), np.float64)
    assert np.median(d, axis=0, out=out) is out
    matches(out, np.median(x, axis=0))


def test_quantile_integer_wrap_and_bool(gpu):
    x = np.array([-128, -100, 100, 127], np.int8)  # hi - lo wraps in int8, as numpy's
    check("quantile", (x, [0.3, 0.5, 0.9]))
    check("median", (x,))
    b = np.array([True, False, True, True])
    check("quantile", (b, 0.5))  # numpy's TypeError: boolean subtract
    check("median", (b,))


# ---- average, ptp, cov, corrcoef ----------------------------------------------------------------

AVERAGE_CASES = [(d, s) for d in DTYPES for s in [(7,), (3, 4, 5)]]


@pytest.mark.parametrize("dtype,shape", AVERAGE_CASES, ids=[f"{np.dtype(d)}-{s}" for d, s in AVERAGE_CASES])
def test_average(gpu, dtype, shape):
    for view, x, d in views(shape, dtype, 5, nan=False):
        w = data(x.shape, np.float64, 9, nan=False) + 60  # positive weights
        for axis in axes_for(x.ndim):
            check("average", (x,), dict(axis=axis), (d,), loose=True)
            check("average", (x,), dict(axis=axis, returned=True), (d,), loose=True)
            check("average", (x,), dict(axis=axis, weights=w, returned=True), (d,), loose=True)
            check("average", (x,), dict(axis=axis, weights=w, keepdims=True), (d,), loose=True)
        for axis in range(x.ndim):  # 1-d weights along an axis
            w1 = np.arange(1, x.shape[axis] + 1, dtype=np.int32)
            check("average", (x,), dict(axis=axis, weights=w1, returned=True), (d,), loose=True)
            check("average", (x,), dict(axis=axis, weights=cb.to_device(w1)), (d,), loose=True)


def test_average_errors(gpu):
    x = data((3, 4), np.float64, 1, nan=False)
    d = cb.to_device(x)
    for kw in (dict(weights=np.zeros((3, 4))), dict(weights=np.ones(4)), dict(weights=np.ones(5), axis=1),
               dict(weights=np.ones((2, 2)), axis=1), dict(weights=np.array([1.0, -1.0, 0, 0]), axis=1)):
        check("average", (x,), kw, (d,))


PTP_CASES = [(d, s) for d in DTYPES for s in SHAPES]


@pytest.mark.parametrize("dtype,shape", PTP_CASES, ids=[f"{np.dtype(d)}-{s}" for d, s in PTP_CASES])
def test_ptp(gpu, dtype, shape):
    for view, x, d in views(shape, dtype, 2):
        for axis in axes_for(x.ndim):
            for keepdims in (False, True):
                check("ptp", (x,), dict(axis=axis, keepdims=keepdims), (d,))


COV_SHAPES = [(), (6,), (3, 7), (7, 3), (1, 5), (2, 1)]
COV_CASES = [(n, d, s) for n in ("cov", "corrcoef") for d in DTYPES[:4] for s in COV_SHAPES]


@pytest.mark.parametrize("name,dtype,shape", COV_CASES, ids=[f"{n}-{np.dtype(d)}-{s}" for n, d, s in COV_CASES])
def test_cov_corrcoef(gpu, name, dtype, shape):
    x = data(shape, dtype, 4, nan=False)
    d = cb.to_device(x)
    y = data(shape, dtype, 8, nan=False)
    options = [{}, dict(rowvar=False), dict(y=y), dict(y=y, rowvar=False), dict(dtype=np.float32)]
    if name == "cov":
        options += [dict(bias=True), dict(ddof=0), dict(ddof=2), dict(ddof=10)]
    for kw in options:
        check(name, (x,), kw, (d,), loose=True)
        if "y" in kw:
            check(name, (x,), kw, (d,), loose=True, device_kwargs=dict(kw, y=cb.to_device(y)))


def test_cov_views_and_errors(gpu):
    big = data((4, 12), np.float64, 6, nan=False)
    d = cb.to_device(big)[:, ::2]
    check("cov", (big[:, ::2],), {}, (d,), loose=True)
    check("corrcoef", (big[:, ::2].T,), dict(rowvar=False), (d.T,), loose=True)
    check("cov", (np.zeros((2, 2, 2)),))
    check("cov", (big,), dict(ddof=1.5))
    check("cov", (np.zeros((0, 3)),))


# ---- histogram, bincount, digitize --------------------------------------------------------------

HIST_CASES = [(d, s) for d in DTYPES for s in [(0,), (1,), (50,), (6, 7)]]


@pytest.mark.parametrize("dtype,shape", HIST_CASES, ids=[f"{np.dtype(d)}-{s}" for d, s in HIST_CASES])
def test_histogram(gpu, dtype, shape):
    x = data(shape, dtype, 12, nan=False)
    d = cb.to_device(x)
    edges = np.array([-30.0, -5.0, 0.0, 1.0, 12.5, 40.0])
    w = data(shape, np.float64, 3, nan=False)
    for kw in (dict(), dict(bins=7), dict(bins=3, range=(-10, 10)), dict(bins=4, range=(-10.5, 0.25)),
               dict(bins=edges), dict(bins=[0, 1, 2]), dict(bins=5, density=True), dict(bins=edges, density=True),
               dict(bins=6, weights=w), dict(bins=edges, weights=w), dict(bins=4, weights=w.astype(np.int32))):
        check("histogram", (x,), kw, (d,), loose=True)
        if "weights" in kw or "bins" in kw and np.ndim(kw["bins"]):  # the array arguments on the device too
            device_kw = {k: cb.to_device(np.asarray(v)) if k in ("weights", "bins") and np.ndim(v) else v
                         for k, v in kw.items()}
            check("histogram", (x,), kw, (d,), loose=True, device_kwargs=device_kw)


def test_histogram_nan_and_errors(gpu):
    x = data((30,), np.float64, 2)  # holds NaN
    d = cb.to_device(x)
    check("histogram", (x,), dict(bins=4, range=(-20, 20)), (d,))  # NaN dropped
    check("histogram", (x,), dict(bins=4), (d,))  # autodetected range of [nan, nan]
    for kw in (dict(bins=0), dict(bins=2.5), dict(bins=[3, 1, 2]), dict(bins=np.ones((2, 2))),
               dict(bins=3, range=(2, 1)), dict(bins=3, range=(0, np.inf)), dict(weights=np.ones(3))):
        check("histogram", (x,), kw, (d,))
    with pytest.raises(ValueError):
        cb.histogram(d, bins=cb.to_device(np.array([3.0, 1.0])))
    with pytest.warns(RuntimeWarning, match="Converting input from bool"):
        cb.histogram(cb.to_device(np.array([True, False, True])))


BINCOUNT_CASES = [np.int32, np.int64, np.uint8, np.bool_, np.int8]


@pytest.mark.parametrize("dtype", BINCOUNT_CASES, ids=[np.dtype(d).name for d in BINCOUNT_CASES])
def test_bincount(gpu, dtype):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2 if dtype == np.bool_ else 9, 40).astype(dtype)
    w = rng.uniform(-1, 1, 40)
    d = cb.to_device(x)
    for kw in (dict(), dict(minlength=3), dict(minlength=20)):
        check("bincount", (x,), kw, (d,))
        check("bincount", (x,), dict(kw, weights=w), (d,), loose=True)
        check("bincount", (x,), dict(kw, weights=w.astype(np.float32)), (d,), loose=True)
        check("bincount", (x[::3],), kw, (d[::3],))
    check("bincount", (x[:0],), dict(minlength=4), (d[:0],))
    check("bincount", (x[:0],), {}, (d[:0],))


def test_bincount_errors(gpu):
    for x, kw in ((np.array([1, -1, 2]), {}), (np.array([1.0, 2.0]), {}), (np.ones((2, 2), np.int64), {}),
                  (np.array(3), {}), (np.array([1, 2]), dict(minlength=-1)), (np.array([1, 2]), dict(weights=[1.0])),
                  (np.array([1, 2], np.uint64), {})):
        check("bincount", (x,), kw)


DIGITIZE_CASES = [(d, s) for d in DTYPES[:4] for s in [(), (0,), (9,), (3, 4)]]


@pytest.mark.parametrize("dtype,shape", DIGITIZE_CASES, ids=[f"{np.dtype(d)}-{s}" for d, s in DIGITIZE_CASES])
def test_digitize(gpu, dtype, shape):
    x = data(shape, dtype, 8)
    d = cb.to_device(x)
    for bins in ([-10, 0, 0, 5, 20], [30.5, 10, -3, -3], [], [1], [3, 3, 3]):
        for right in (False, True):
            check("digitize", (x, bins), dict(right=right), (d, bins))
            check("digitize", (x, np.asarray(bins)), dict(right=right), (d, cb.to_device(np.asarray(bins))))
    if x.ndim == 2:
        check("digitize", (x[:, ::2], [0, 1]), {}, (d[:, ::2], [0, 1]))


def test_digitize_errors(gpu):
    x = np.array([1.0, 2.0])
    d = cb.to_device(x)
    check("digitize", (x, [1, 3, 2]), {}, (d, [1, 3, 2]))
    check("digitize", (x, [[1, 2]]), {}, (d, [[1, 2]]))
    with pytest.raises(ValueError):
        cb.digitize(d, cb.to_device(np.array([1.0, 3.0, 2.0])))
    with pytest.raises(TypeError):
        cb.digitize(cb.to_device(np.array([1j])), [0, 1])


# ---- membership and closeness -------------------------------------------------------------------

ISIN_CASES = [(n, d, s) for n in ("isin", "in1d") for d in DTYPES for s in [(), (0,), (9,), (3, 4)]]


@pytest.mark.parametrize("name,dtype,shape", ISIN_CASES, ids=[f"{n}-{np.dtype(d)}-{s}" for n, d, s in ISIN_CASES])
def test_isin(gpu, name, dtype, shape):
    x = data(shape, dtype, 1)
    if x.size and x.dtype.kind == "f":
        x.reshape(-1)[0] = np.nan
    d = cb.to_device(x)
    tests = [data((5,), dtype, 2), np.array([np.nan, 3.0, 1e9]), data((2, 3), np.int64, 1), np.array([], dtype)]
    if x.size:
        tests.append(x.reshape(-1)[::2].copy())
    for t in tests:
        for invert in (False, True):
            check(name, (x, t), dict(invert=invert), (d, cb.to_device(t)))
            check(name, (x, t), dict(invert=invert), (d, t))
    if x.ndim == 2:
        check(name, (x[:, ::2], x[0]), {}, (d[:, ::2], d[0]))


def test_isin_scalar_and_kind(gpu):
    t = np.array([1, 5, 7])
    dt = cb.to_device(t)
    matches(np.isin(5, dt), np.isin(5, t))
    matches(cb.isin(4, dt), np.isin(4, t))
    check("isin", (np.arange(6), t), dict(kind="sort"), (cb.arange(6), dt))
    check("isin", (np.arange(6), t), dict(kind="bogus"), (cb.arange(6), dt))


CLOSE_PAIRS = [
    (np.array([1.0, 1.0 + 1e-6, 1.0 + 1e-4, np.inf, -np.inf, np.nan, np.nan, 0.0, 1e-9]),
     np.array([1.0, 1.0, 1.0, np.inf, np.inf, np.nan, 1.0, 1e-9, 0.0])),
    (np.array([[1, 2], [3, 4]], np.int32), np.array([1, 3], np.int64)),
    (np.array([True, False]), np.array([True, True])),
    (np.array([1.0, 2.0 + 1e-7], np.float32), np.array(2.0)),
    (np.array(3.0), np.array([3.0, 3.0000001, np.nan])),
    (np.zeros((0, 2)), np.zeros(2)),
    (np.array([np.iinfo(np.int64).min, 5]), np.array([np.iinfo(np.int64).min, 5])),
]


@pytest.mark.parametrize("name", ["isclose", "allclose"])
@pytest.mark.parametrize("pair", range(len(CLOSE_PAIRS)))
def test_isclose_allclose(gpu, name, pair):
    a, b = CLOSE_PAIRS[pair]
    da, db = cb.to_device(a), cb.to_device(b)
    for kw in ({}, dict(equal_nan=True), dict(rtol=1e-3), dict(atol=0.5, rtol=0)):
        check(name, (a, b), kw, (da, db))
        check(name, (a, b), kw, (da, b))
        check(name, (a, b), kw, (a, db))
    if a.ndim:
        check(name, (a, 1.0), {}, (da, 1.0))
        check(name, (2, b), {}, (2, db))
    if a.ndim == 2:
        check(name, (a[:, ::-1], b), {}, (da[:, ::-1], db))


# ---- nan-reductions -----------------------------------------------------------------------------

NAN_REDUCTIONS = ["nanvar", "nanstd", "nanprod", "nancumsum", "nancumprod", "nanargmax", "nanargmin"]
NAN_CASES = [(n, d, s) for n in NAN_REDUCTIONS for d in DTYPES for s in SHAPES]


@pytest.mark.parametrize("name,dtype,shape", NAN_CASES, ids=[f"{n}-{np.dtype(d)}-{s}" for n, d, s in NAN_CASES])
def test_nan_reductions(gpu, name, dtype, shape):
    scans = name in ("nancumsum", "nancumprod")
    for view, x, d in views(shape, dtype, 21):
        if name in ("nanprod", "nancumprod") and x.dtype.kind == "f":  # keep products finite
            x = x / np.float32(40) if x.dtype == np.float32 else x / 40
            d = d / (np.float32(40) if x.dtype == np.float32 else 40)
        for axis in axes_for(x.ndim):
            if scans and isinstance(axis, tuple):
                continue
            kwargs = [dict(axis=axis)] if scans else [dict(axis=axis), dict(axis=axis, keepdims=True)]
            if name in ("nanvar", "nanstd"):
                kwargs += [dict(axis=axis, ddof=1), dict(axis=axis, ddof=4), dict(axis=axis, dtype=np.float64)]
            if name == "nanprod" or scans:
                kwargs.append(dict(axis=axis, dtype=np.float64))
            for kw in kwargs:
                check(name, (x,), kw, (d,), loose=True)


def test_nan_reductions_all_nan(gpu):
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    x[1] = np.nan
    x[2, 2] = np.nan
    d = cb.to_device(x)
    for name in NAN_REDUCTIONS:
        for axis in (None, 0, 1):
            check(name, (x,), dict(axis=axis), (d,), loose=True)
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        cb.nanargmax(d, axis=1)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        cb.nanvar(d, axis=1)
    check("nanargmin", (np.zeros((0, 3)),), dict(axis=0), (cb.zeros((0, 3), np.float64),))
    check("nanvar", (x,), dict(dtype=np.int64), (d,))


# ---- nothing computed on the host ---------------------------------------------------------------

def test_no_data_comes_back(gpu, monkeypatch):
    """Where numpy's result shape and exceptions do not depend on the values, no value is copied
    back: the work stays on the device."""
    from device_checks import record_downloads
    x = cb.to_device(data((4, 6), np.float64, 3, nan=False))
    y = cb.to_device(data((4, 6), np.float64, 4, nan=False))
    i = cb.to_device(data((20,), np.int64, 5))
    sizes = record_downloads(monkeypatch)
    results = [cb.median(x), cb.median(x, axis=1), cb.quantile(x, [0.2, 0.7], axis=0), cb.percentile(x, 30),
               cb.average(x, axis=0), cb.ptp(x), cb.cov(x), cb.corrcoef(x, y), cb.isin(i, [1, 2, 3]),
               cb.isclose(x, y), cb.nancumsum(x, axis=1), cb.nanprod(x), cb.digitize(x, [-10, 0, 10]),
               cb.histogram(x, bins=5, range=(-50, 50))[0], cb.histogram(x, bins=[-40, 0, 40])[0]]
    cb.synchronize()
    assert sizes == [], sizes
    assert all(isinstance(r, cb.ndarray) for r in results)
