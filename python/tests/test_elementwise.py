"""Operators and functions against numpy 1.24: every dtype pair, broadcast shapes, scalars
(numpy's value-based casting), reflected and in-place forms, comparisons, division, overflow."""
import itertools
import warnings

import numpy as np
import pytest

import cudabridge as cb

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16, np.bool_, np.uint16, np.uint32,
          np.uint64, np.float16]
SUPPORTED = [np.dtype(d) for d in DTYPES]
SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1)), ((), (5,)), ((0, 3), (3,))]
OPS = {"add": lambda x, y: x + y, "subtract": lambda x, y: x - y, "multiply": lambda x, y: x * y,
       "divide": lambda x, y: x / y, "floor_divide": lambda x, y: x // y, "equal": lambda x, y: x == y,
       "not_equal": lambda x, y: x != y, "less": lambda x, y: x < y, "less_equal": lambda x, y: x <= y,
       "greater": lambda x, y: x > y, "greater_equal": lambda x, y: x >= y}


def sample(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-50, 50, shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True).astype(dtype)


def expect(op, x, y):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return OPS[op](x, y)


def check(got, want):
    got = cb.from_device(got) if isinstance(got, cb.ndarray) else got
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-3 if want.dtype == np.float16 else 1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("da,db", list(itertools.product(DTYPES, DTYPES)))
def test_every_dtype_pair(gpu, op, da, db):
    x, y = sample((3, 4), da, 1), sample((4,), db, 2)
    try:
        want = expect(op, x, y)
    except TypeError as e:  # numpy refuses (bool - bool): so must we
        with pytest.raises(TypeError):
            OPS[op](cb.to_device(x), cb.to_device(y))
        return
    if op in ("divide", "floor_divide") and want.dtype.kind != "f" and not np.all(y):
        y = np.where(y == 0, np.ones_like(y), y)  # integer division by zero: numpy warns and gives 0
        want = expect(op, x, y)
    check(OPS[op](cb.to_device(x), cb.to_device(y)), want)


@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("op", ["add", "multiply", "less", "divide"])
def test_broadcast_shapes(gpu, op, sa, sb):
    x, y = sample(sa, np.float32, 3), sample(sb, np.float32, 4)
    check(OPS[op](cb.to_device(x), cb.to_device(y)), expect(op, x, y))
    check(OPS[op](cb.to_device(y), cb.to_device(x)), expect(op, y, x))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [2, -3, 2.5, True, 300, np.float32(1.5), np.int16(7)])
def test_scalars_follow_value_based_casting(gpu, dtype, scalar):
    x = sample((5,), dtype, 5)
    for op in ("add", "multiply", "subtract", "greater"):
        try:
            want = expect(op, x, scalar)
        except (TypeError, OverflowError):
            continue
        if np.dtype(np.result_type(x.dtype, scalar)) not in SUPPORTED:
            # a dtype the device lacks (complex; every real dtype is there): a clear TypeError.
            with pytest.raises(TypeError, match="not supported on the device"):
                OPS[op](cb.to_device(x), scalar)
            continue
        check(OPS[op](cb.to_device(x), scalar), want)
        want_r = expect(op, scalar, x)
        check(OPS[op](scalar, cb.to_device(x)), want_r)


def test_reflected_and_in_place(gpu):
    x = sample((3, 4), np.float32, 6)
    d = cb.to_device(x)
    check(2.0 - d, 2.0 - x)
    check(10 / (d + 100), 10 / (x + 100))
    check(x + d, x + x)  # numpy array on the left: our reflected operator runs
    d += 1
    d *= 2
    d -= cb.to_device(x)
    d /= 4
    check(d, ((x + 1) * 2 - x) / 4)
    i = cb.to_device(np.arange(5, dtype=np.int32))
    i += 3
    i *= np.int32(2)
    check(i, (np.arange(5, dtype=np.int32) + 3) * 2)
    with pytest.raises(TypeError, match="same_kind"):
        i += 1.5  # numpy refuses float into int in place
    f = cb.to_device(np.ones(3, np.float64))
    f += cb.to_device(np.arange(3, dtype=np.int32))  # int into float: fine
    check(f, np.ones(3) + np.arange(3))


def test_integer_overflow_wraps_and_division_rounds_down(gpu):
    a = np.array([120, -120, 127, 5], dtype=np.int8)
    check(cb.to_device(a) + np.int8(10), a + np.int8(10))
    u = np.array([250, 3], dtype=np.uint8)
    check(cb.to_device(u) * 2, u * 2)
    n = np.array([7, -7, 7, -7], dtype=np.int32)
    d = np.array([2, 2, -2, -2], dtype=np.int32)
    check(cb.to_device(n) // cb.to_device(d), n // d)
    check(cb.to_device(n) / cb.to_device(d), n / d)


def test_functions_and_scalar_op(gpu):
    x, y = sample((6,), np.float32, 7), sample((6,), np.float32, 8)
    check(cb.add(cb.to_device(x), cb.to_device(y)), x + y)
    check(cb.multiply(cb.to_device(x), y), x * y)
    check(cb.subtract(x, cb.to_device(y)), x - y)
    check(cb.divide(cb.to_device(x), 4), x / 4)
    for op, fn in [("+", np.add), ("-", np.subtract), ("*", np.multiply), ("/", np.divide), ("mul", np.multiply)]:
        check(cb.scalar_op(cb.to_device(x), op, 3.0), fn(x, 3.0))
    with pytest.raises(ValueError, match="unknown operation"):
        cb.scalar_op(cb.to_device(x), "%", 2)
    check(-cb.to_device(x), -x)
    check(abs(cb.to_device(x)), abs(x))


@pytest.mark.parametrize("da,db", [(np.float32, np.float32), (np.float64, np.float32), (np.int32, np.int32),
                                   (np.int8, np.int16), (np.float32, np.int64)])
@pytest.mark.parametrize("sa,sb", [((4,), (4,)), ((4,), (4, 3)), ((2, 4), (4,)), ((5, 4), (4, 3)), ((4,), (4, 1))])
def test_matmul(gpu, da, db, sa, sb):
    x, y = sample(sa, da, 9), sample(sb, db, 10)
    check(cb.to_device(x) @ cb.to_device(y), x @ y)
    check(cb.matmul(cb.to_device(x), cb.to_device(y)), np.matmul(x, y))


def test_matmul_shape_errors(gpu):
    with pytest.raises(ValueError, match="mismatch"):
        cb.ones((2, 3)) @ cb.ones((4, 2))
    with pytest.raises(ValueError, match="not have enough dimensions"):
        cb.matmul(cb.ones(()), cb.ones((3,)))
