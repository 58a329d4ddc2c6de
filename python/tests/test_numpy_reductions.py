"""Reductions and scans against numpy 1.24: every function x device dtype x shape (0-d, empty, 1-d,
3-d with each axis and axis tuples, keepdims, non-contiguous views), NaN/inf and integer overflow,
numpy's exceptions, np.* dispatch, the array methods, dtype= and out=."""
import itertools
import warnings

import numpy as np
import pytest

import cudabridge as cb

from test_elementwise import DTYPES

# name -> (takes an axis tuple, takes keepdims)
REDUCTIONS = {"sum": (True, True), "prod": (True, True), "mean": (True, True), "max": (True, True),
              "min": (True, True), "argmax": (False, True), "argmin": (False, True), "var": (True, True),
              "std": (True, True), "nansum": (True, True), "nanmean": (True, True), "nanmax": (True, True),
              "nanmin": (True, True), "count_nonzero": (True, True), "any": (True, True), "all": (True, True)}
SCANS = ("cumsum", "cumprod")


def data(shape, dtype, seed, small=False):
    """Values with NaN and +-inf for floats (a few, so most slices stay finite); small values for
    products (so float results stay finite), integers that overflow int64 products."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.kind == "f":
        x = rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape) if small else rng.uniform(-50, 50, shape)
        x = x.astype(dtype)
        flat = x.reshape(-1)
        if flat.size >= 12:
            flat[[2, 11]] = np.nan
            flat[5], flat[8] = np.inf, -np.inf
        return x
    info = np.iinfo(dtype)
    lo, hi = (-3, 3) if small else (max(info.min, -100), min(info.max, 100))
    return rng.integers(max(lo, info.min), hi, shape, endpoint=True).astype(dtype)


def views(shape, dtype, seed, small):
    """(name, host array, device array) for the shape, plus a strided and a transposed view."""
    x = data(shape, dtype, seed, small)
    yield "contiguous", x, cb.to_device(x)
    if len(shape) == 3:
        big = data((shape[0], shape[1] * 2, shape[2]), dtype, seed + 1, small)
        yield "strided", big[:, ::2, ::-1], cb.to_device(big)[:, ::2, ::-1]
        yield "transposed", x.transpose(2, 0, 1), cb.to_device(x).transpose(2, 0, 1)


SHAPES = [(), (0,), (0, 3), (5,), (17,), (3, 4, 5)]


def axes_for(ndim, tuples):
    yield None
    for a in range(ndim):
        yield a
    if ndim:
        yield -1
    if tuples and ndim == 3:
        yield (0, 2)
        yield (0, 1, 2)
        yield (-1, 0)


def numpy_result(fn):
    """numpy's result, or the exception type it raises."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np.asarray(fn()), None
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            return None, type(e)


def raises_like(raised):
    """pytest.raises for numpy's exception type, or the builtin it derives from (numpy's private
    _UFuncOutputCastingError is a TypeError)."""
    return pytest.raises(next(b for b in (raised, np.AxisError, ValueError, TypeError) if issubclass(raised, b)
                              and b.__module__ in ("builtins", "numpy")))


def device_result(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def compare(name, got, want, dtype):
    assert isinstance(got, cb.ndarray), type(got)
    g = cb.from_device(got)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    if want.dtype.kind == "f":
        if name in ("cumsum", "var", "std", "mean", "nanmean", "sum", "nansum"):
            # another summation order (pairwise in numpy, a scan tree or float64 partials here)
            tol = dict(rtol=2e-4, atol=2e-3) if np.dtype(dtype) == np.float32 else dict(rtol=1e-9, atol=1e-9)
            if want.dtype == np.float16:  # numpy rounds to half at every step of a strided sum
                tol = dict(rtol=1e-2, atol=0.25)
        else:
            tol = dict(rtol={"float16": 1e-3, "float32": 2e-6}.get(want.dtype.name, 1e-12))
        np.testing.assert_allclose(g, want, equal_nan=True, **tol)
    else:
        np.testing.assert_array_equal(g, want)


CASES = [(name, dtype, shape) for name in list(REDUCTIONS) + list(SCANS) for dtype in DTYPES for shape in SHAPES]


@pytest.mark.parametrize("name,dtype,shape", CASES, ids=[f"{n}-{np.dtype(d)}-{s}" for n, d, s in CASES])
def test_against_numpy(gpu, name, dtype, shape):
    tuples, has_keepdims = REDUCTIONS.get(name, (False, False))
    small = name in ("prod", "cumprod")
    seed = 7
    for view, x, d in views(shape, dtype, seed, small):
        for axis in axes_for(x.ndim, tuples):
            for keepdims in ([False, True] if has_keepdims else [None]):
                kw = {"axis": axis}
                if keepdims is not None:
                    kw["keepdims"] = keepdims
                where = f"{name}({view} {x.dtype} {x.shape}, {kw})"
                want, raised = numpy_result(lambda: getattr(np, name)(x, **kw))
                for how, call in (("np", lambda: getattr(np, name)(d, **kw)),
                                  ("cb", lambda: getattr(cb, name)(d, **kw))):
                    if raised is not None:
                        with raises_like(raised):
                            device_result(call)
                        continue
                    try:
                        compare(name, device_result(call), want, dtype)
                    except AssertionError as e:
                        raise AssertionError(f"{how}.{where}: {e}") from None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["nanmax", "nanmin", "nanmean", "nansum", "argmax", "argmin", "max", "min"])
def test_all_nan_slices(gpu, dtype, name):
    x = np.arange(12, dtype=dtype).reshape(3, 4)
    x[1] = np.nan  # an all-NaN row
    x[2, 2] = np.nan  # a NaN among values
    d = cb.to_device(x)
    for axis in (None, 0, 1):
        want, _ = numpy_result(lambda: getattr(np, name)(x, axis=axis))
        compare(name, device_result(lambda: getattr(np, name)(d, axis=axis)), want, dtype)
    if name in ("nanmax", "nanmin"):
        with pytest.warns(RuntimeWarning, match="All-NaN"):
            getattr(cb, name)(d, axis=1)
    if name == "nanmean":
        with pytest.warns(RuntimeWarning, match="empty slice"):
            cb.nanmean(d, axis=1)


def test_argmax_ties_nan_and_inf(gpu):
    x = np.array([[1.0, 3.0, 3.0, np.inf, np.inf], [np.nan, 2.0, np.nan, -np.inf, 0.0],
                  [-np.inf, -np.inf, 5.0, 5.0, -1.0]])
    d = cb.to_device(x)
    for name in ("argmax", "argmin"):
        for axis in (None, 0, 1, -1):
            compare(name, getattr(d, name)(axis=axis), np.asarray(getattr(x, name)(axis=axis)), x.dtype)
    ints = np.array([5, 1, 5, 1, -7, -7], np.int8)
    assert int(cb.argmax(cb.to_device(ints))) == 0 and int(cb.argmin(cb.to_device(ints))) == 4


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.uint64, np.bool_])
@pytest.mark.parametrize("n", [40, 41, 44])  # whole blocks of 4, a one-element last block, one of 4
def test_argmax_of_long_arrays_searches_blocks(gpu, monkeypatch, dtype, n):
    """The two-level search of long 1-D arrays (blocks made tiny here so every case is cheap):
    the extreme in the first, a middle and the last block, ties across blocks, NaN first or after
    the extreme, and a strided view (which takes the general path)."""
    from cudabridge import _reductions
    monkeypatch.setattr(_reductions, "_ARG_BLOCKED_FROM", 8)
    monkeypatch.setattr(_reductions, "_ARG_BLOCK", 4)
    rng = np.random.default_rng(n)
    base = (rng.integers(0, 2, n) if dtype == np.bool_ else rng.integers(10, 60, n)).astype(dtype)
    cases = [base, np.zeros(n, dtype), base[::-1].copy()]
    for at in (0, 5, n // 2, n - 1):
        for value in (1, 100):
            x = base.copy()
            x[at] = x[-1 - at] = value  # a tie: the first index wins
            cases.append(x)
    if np.dtype(dtype).kind == "f":
        for first_nan in (3, n - 1):
            x = base.copy()
            x[first_nan], x[1] = np.nan, np.inf
            cases.append(x)
    for x in cases:
        d = cb.to_device(x)
        for name in ("argmax", "argmin"):
            assert int(getattr(cb, name)(d)) == getattr(np, name)(x), (name, x)
            assert int(getattr(cb, name)(d[::2])) == getattr(np, name)(x[::2]), (name, "strided", x)
        assert cb.argmax(d, keepdims=True).shape == (1,)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.bool_])
@pytest.mark.parametrize("n", [256, 257])  # blocks of 16 (256 = 16 * 16), and a prime: the general path
def test_argmax_along_long_rows_searches_blocks(gpu, monkeypatch, dtype, n):
    """The two-level search row by row (rows made short here so every case is cheap): extremes in
    a row's first, middle and last block, ties across blocks, NaN before or after the extreme,
    rows of a 3-D array, keepdims and out=."""
    from cudabridge import _reductions
    monkeypatch.setattr(_reductions, "_ARG_BLOCKED_ROWS_FROM", 64)
    rng = np.random.default_rng(n)
    x = (rng.integers(0, 2, (2, 9, n)) if dtype == np.bool_ else rng.integers(10, 60, (2, 9, n))).astype(dtype)
    for row, (at, value) in enumerate([(0, 100), (n // 2, 100), (n - 1, 100), (3, 1), (n - 2, 1)]):
        x[0, row, at] = x[0, row, -1 - at] = value  # a tie: the first index wins
    if np.dtype(dtype).kind == "f":
        x[1, 0, 5], x[1, 0, 20] = np.nan, np.inf
        x[1, 1, 30], x[1, 1, 2] = np.nan, -np.inf
        x[1, 2, :] = np.nan
    d = cb.to_device(x)
    for name in ("argmax", "argmin"):
        for axis in (-1, 2):
            np.testing.assert_array_equal(cb.from_device(getattr(cb, name)(d, axis=axis)), getattr(np, name)(x, axis=axis))
        got = getattr(cb, name)(d, axis=-1, keepdims=True)
        np.testing.assert_array_equal(cb.from_device(got), getattr(np, name)(x, axis=-1, keepdims=True))
        out = cb.empty((2, 9), np.int64)
        assert getattr(cb, name)(d, axis=-1, out=out) is out
        np.testing.assert_array_equal(cb.from_device(out), getattr(np, name)(x, axis=-1))


def test_argmax_of_a_long_array_at_full_block_size(gpu):
    x = np.random.default_rng(3).random(200_003, dtype=np.float32)
    x[150_001] = 2.0
    x[199_999] = -1.0
    d = cb.to_device(x)
    assert int(d.argmax()) == 150_001 and int(d.argmin()) == 199_999
    x[77] = np.nan
    assert int(cb.argmax(cb.to_device(x))) == 77 and int(cb.argmin(cb.to_device(x))) == 77


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.bool_, np.float16, np.int32])
@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min", "any", "all", "var", "nansum", "nanmax"])
def test_no_axes_reduces_each_element_alone(gpu, name, dtype):
    """axis=(): a copy in the reduction's dtype (sum of uint8 is uint64, mean of int8 float64)."""
    x = (np.arange(6) % 3).astype(dtype).reshape(2, 3)
    d = cb.to_device(x)
    got = getattr(cb, name)(d, axis=())
    want = getattr(np, name)(x, axis=())
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.get(), want)
    got[0, 0] = 1
    np.testing.assert_array_equal(d.get(), x)  # not the input itself


def test_integer_overflow(gpu):
    big = np.full(40, 7, np.int32)  # 7**40 wraps in int64, as numpy's
    compare("prod", cb.prod(cb.to_device(big)), np.asarray(np.prod(big)), np.int32)
    compare("cumprod", cb.cumprod(cb.to_device(big)), np.cumprod(big), np.int32)
    wide = np.full(10, 2**62, np.int64)
    compare("sum", cb.sum(cb.to_device(wide)), np.asarray(np.sum(wide)), np.int64)
    compare("cumsum", cb.cumsum(cb.to_device(wide)), np.cumsum(wide), np.int64)
    i8 = np.full(100, 100, np.int8)  # int64 results: no wrap at int8
    compare("cumsum", cb.cumsum(cb.to_device(i8)), np.cumsum(i8), np.int8)
    compare("prod", cb.prod(cb.to_device(np.full(3, 200, np.uint8))), np.asarray(np.uint64(8000000)), np.uint8)


@pytest.mark.parametrize("n", [1023, 1024, 1025, 16 * 64 * 17 + 5, 100003])
@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.bool_, np.float64, np.float32])
def test_long_scans_in_blocks(gpu, n, dtype):
    """A long 1-D cumsum / cumprod runs in blocks of 16 (_blocked_scan): every length around the
    blocks' edges and a tail, integers exactly (wrapping as numpy's), floats to summation order."""
    rng = np.random.default_rng(n)
    x = rng.random(n) < 0.5 if dtype == np.bool_ else (rng.integers(-4, 5, n) / (4 if np.dtype(dtype).kind == "f"
                                                                                     else 1)).astype(dtype)
    compare("cumsum", cb.cumsum(cb.to_device(x)), np.cumsum(x), dtype)
    signs = rng.choice(np.array([-1, 1, 2], np.int64), n)
    compare("cumprod", cb.cumprod(cb.to_device(signs)), np.cumprod(signs), np.int64)  # wraps past 2**63


def test_float_overflow_and_inf(gpu):
    x = np.array([1e30, 1e30, 1e-30, 3.0], np.float32)
    compare("prod", cb.prod(cb.to_device(x)), np.asarray(np.prod(x)), np.float32)
    y = np.array([np.inf, 0.0, 2.0])
    compare("prod", cb.prod(cb.to_device(y)), np.asarray(np.prod(y)), np.float64)  # inf * 0 = NaN
    compare("cumprod", cb.cumprod(cb.to_device(y)), np.cumprod(y), np.float64)
    compare("var", cb.var(cb.to_device(y)), np.asarray(np.var(y)), np.float64)


@pytest.mark.parametrize("ddof", [0, 1, 2, 5, 6])
@pytest.mark.parametrize("name", ["var", "std"])
def test_ddof(gpu, name, ddof):
    x = data((5, 3), np.float64, 3)[:, ::-1]
    d = cb.to_device(np.ascontiguousarray(x))[:, :]
    for axis in (None, 0, 1):
        want, _ = numpy_result(lambda: getattr(np, name)(x, axis=axis, ddof=ddof))
        compare(name, device_result(lambda: getattr(np, name)(d, axis=axis, ddof=ddof)), want, np.float64)
    if ddof >= 5:
        with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
            getattr(cb, name)(d, axis=0, ddof=ddof)


@pytest.mark.parametrize("name,dtype", list(itertools.product(
    ["sum", "prod", "mean", "var", "std", "nansum", "nanmean", "cumsum", "cumprod"],
    [np.float32, np.float64, np.int64, np.int16])))
def test_dtype_argument(gpu, name, dtype):
    x = data((4, 6), np.int32, 5, small=True)
    d = cb.to_device(x)
    for axis in (None, 1):
        want, raised = numpy_result(lambda: getattr(np, name)(x, axis=axis, dtype=dtype))
        if raised is not None:  # std with an integer dtype= along an axis
            with raises_like(raised):
                device_result(lambda: getattr(np, name)(d, axis=axis, dtype=dtype))
            continue
        compare(name, device_result(lambda: getattr(np, name)(d, axis=axis, dtype=dtype)), want, dtype)


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min", "argmax", "argmin", "var", "std", "nansum",
                                  "nanmean", "nanmax", "nanmin", "cumsum", "cumprod"])
def test_out(gpu, name):
    x = data((3, 5), np.float64, 9)
    d = cb.to_device(x)
    want, _ = numpy_result(lambda: getattr(np, name)(x, axis=1))
    out = cb.zeros(want.shape, want.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = getattr(np, name)(d, axis=1, out=out)
    assert got is out
    compare(name, out, want, np.float64)
    with pytest.raises((ValueError, TypeError)):
        getattr(cb, name)(d, axis=1, out=cb.zeros((7,), want.dtype))


def test_methods(gpu):
    x = data((3, 4, 5), np.float64, 2, small=True)
    x = np.nan_to_num(x, nan=0.25, posinf=2.0, neginf=-2.0)
    d = cb.to_device(x)
    for name in ("prod", "argmax", "argmin", "var", "std", "cumsum", "cumprod"):
        for axis in (None, 1, -1):
            compare(name, getattr(d, name)(axis=axis), np.asarray(getattr(x, name)(axis=axis)), np.float64)
    compare("std", d.std(axis=(0, 2), ddof=1, keepdims=True), x.std(axis=(0, 2), ddof=1, keepdims=True),
            np.float64)
    compare("prod", d.prod(axis=0, keepdims=True), x.prod(axis=0, keepdims=True), np.float64)
    compare("argmax", d.argmax(axis=2, keepdims=True), x.argmax(axis=2, keepdims=True), np.float64)
    compare("prod", np.multiply.reduce(d, axis=1), np.multiply.reduce(x, axis=1), np.float64)


def test_refusals_and_empty(gpu):
    with pytest.raises(ValueError, match="empty sequence"):
        cb.argmax(cb.zeros((0,)))
    with pytest.raises(ValueError, match="empty sequence"):
        cb.zeros((0, 3)).argmin(axis=0)
    compare("argmax", cb.zeros((0, 3)).argmax(axis=1), np.zeros((0, 3)).argmax(axis=1), np.float32)
    with pytest.raises(np.AxisError):
        cb.cumsum(cb.zeros((2, 3)), axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        cb.prod(cb.zeros((2, 3)), axis=(0, 0))
    compare("prod", cb.prod(cb.zeros((2, 0), np.int32), axis=1), np.prod(np.zeros((2, 0), np.int32), axis=1),
            np.int32)


def test_array_api_aliases(gpu):
    x = cb.to_device(np.array([0.25, 0.5], np.float64))
    pairs = {"acos": "arccos", "asin": "arcsin", "atan": "arctan", "acosh": "arccosh", "asinh": "arcsinh",
             "atanh": "arctanh"}
    for alias, name in pairs.items():
        assert getattr(cb, alias) is getattr(cb, name)
    compare("atan2", cb.atan2(x, x + 1), np.arctan2([0.25, 0.5], [1.25, 1.5]), np.float64)
    compare("pow", cb.pow(x, 2), np.array([0.0625, 0.25]), np.float64)
    i = cb.to_device(np.array([1, 8], np.int32))
    compare("shift", cb.bitwise_left_shift(i, 2), np.array([4, 32], np.int32), np.int32)
    compare("shift", cb.bitwise_right_shift(i, 1), np.array([0, 4], np.int32), np.int32)
    compare("invert", cb.bitwise_invert(i), np.array([-2, -9], np.int32), np.int32)
