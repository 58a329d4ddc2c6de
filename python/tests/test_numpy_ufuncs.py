"""numpy's universal functions on the device, against numpy 1.24 on the same inputs: every ufunc x
every device dtype it accepts (each pair of dtypes for the binary ones), NaN/inf/-0.0, integer
overflow, division by zero and out-of-range shift counts, 0-d / empty / broadcast / non-contiguous
shapes, out=, the operators, and numpy's dispatch (np.exp(x) runs on the device and returns a
device array). Where numpy's result dtype is one the device lacks (complex) or numpy refuses the
dtype, the device raises TypeError."""
import itertools
import operator

import numpy as np
import pytest

import cudabridge as cb

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16, np.bool_, np.uint16, np.uint32,
          np.uint64, np.float16]
DEVICE_DTYPES = {np.dtype(d) for d in DTYPES}

UNARY = ["negative", "absolute", "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "square",
         "reciprocal", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
         "arccosh", "arctanh", "floor", "ceil", "trunc", "rint", "deg2rad", "rad2deg", "sign", "isnan", "isinf",
         "isfinite", "signbit", "logical_not", "invert", "radians", "degrees", "conjugate"]
BINARY = ["power", "arctan2", "hypot", "copysign", "logaddexp", "logaddexp2", "float_power", "fmod", "remainder", "fmax", "fmin", "logical_and", "logical_or",
          "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "maximum",
          "minimum", "floor_divide"]

FLOAT_SPECIALS = [np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, -0.5, 1.5, -2.5, 1.0, -1.0, 0.999, 3e38, -1e-30, 7.25,
                  -100.0, 88.5, 1e5]


def sample(dtype, n=40, seed=0):
    """n values of `dtype`: for floats the specials then spread values; for integers the extremes,
    0, +-1 and random bits (wrap-around, division by zero, huge shift counts)."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.integers(0, 2, n).astype(np.bool_)
    if dtype.kind == "f":
        with np.errstate(over="ignore"):
            special = np.array(FLOAT_SPECIALS, dtype=dtype)
        spread = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dtype)
        return np.concatenate([special, spread])[:n]
    info = np.iinfo(dtype)
    edges = [info.min, info.max, 0, 1, 2, 7, 8, 31, 63, 64]
    if info.min < 0:
        edges += [-1, -2, info.min + 1]
    wide = np.uint64 if dtype == np.uint64 else np.int64  # uint64's max is past int64 (no negative edges there)
    edges = np.array(edges, dtype=wide).astype(dtype)  # large counts wrap in narrow types
    rand = rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
    return np.concatenate([edges, rand])[:n]


def numpy_result(name, *args):
    with np.errstate(all="ignore"):
        return getattr(np, name)(*args)


def assert_matches(got, want):
    assert isinstance(got, cb.ndarray), type(got)
    host = got.get()
    want = np.asarray(want)
    assert host.dtype == want.dtype, (host.dtype, want.dtype)
    assert host.shape == want.shape, (host.shape, want.shape)
    if want.dtype.kind == "f":
        # numpy's SIMD float32 loops and the C library differ by a few ulp; float64 by ~1 ulp.
        # float16: computed in float32 and rounded once, as numpy; a float32 ulp apart can round
        # to neighbouring halves.
        rtol = {"float16": 1e-3, "float32": 4e-6}.get(want.dtype.name, 1e-13)
        tiny = np.finfo(want.dtype).tiny * (1 if want.dtype == np.float16 else 1e4)
        np.testing.assert_allclose(host, want, rtol=rtol, atol=tiny, equal_nan=True)
        # NaN / infinity / sign of infinity exactly where numpy has them
        np.testing.assert_array_equal(np.isnan(host), np.isnan(want))
        np.testing.assert_array_equal(np.isposinf(host), np.isposinf(want))
        np.testing.assert_array_equal(np.isneginf(host), np.isneginf(want))
    else:
        np.testing.assert_array_equal(host, want)


KERNEL = {"radians": "deg2rad", "degrees": "rad2deg"}  # numpy's other names for a kernel


def expect_refused(name, call):
    with pytest.raises(TypeError, match=KERNEL.get(name, name)):
        call()


def numpy_or_none(name, *args):
    """numpy's result, or None when numpy refuses the dtypes or gives one the device lacks."""
    try:
        want = numpy_result(name, *args)
    except TypeError:
        return None
    return want if np.asarray(want).dtype in DEVICE_DTYPES else None


# ---- unary: every op x every dtype --------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", UNARY)
def test_unary_every_dtype(gpu, name, dtype):
    x = sample(dtype, seed=UNARY.index(name))
    if name == "negative" and dtype == np.bool_:  # numpy refuses -bool with its own message
        with pytest.raises(TypeError):
            np.negative(cb.to_device(x))
        return
    want = numpy_or_none(name, x)
    d = cb.to_device(x)
    if want is None:
        expect_refused(name, lambda: getattr(np, name)(d))
        expect_refused(name, lambda: getattr(cb, name)(d))
        return
    assert_matches(getattr(np, name)(d), want)  # numpy's dispatch: runs on the device
    assert_matches(getattr(cb, name)(d), want)


UNARY_SHAPE_DTYPES = [np.float32, np.float64, np.int32, np.int16]


def shaped_cases(dtype, seed):
    """(device array, numpy array) pairs: 0-d, empty, 3-d, and a non-contiguous view."""
    x = sample(dtype, 60, seed)
    base = x.reshape(3, 4, 5)
    d = cb.to_device(base)
    return [(cb.to_device(x[7]), x[7].reshape(())),
            (cb.to_device(x[:0].reshape(0, 3)), x[:0].reshape(0, 3)),
            (d, base),
            (d.transpose(2, 0, 1)[::2, :, 1:], base.transpose(2, 0, 1)[::2, :, 1:])]


@pytest.mark.parametrize("dtype", UNARY_SHAPE_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", UNARY)
def test_unary_shapes(gpu, name, dtype):
    for d, x in shaped_cases(dtype, 11):
        want = numpy_or_none(name, x)
        if want is None:
            expect_refused(name, lambda: getattr(cb, name)(d))
            continue
        assert_matches(getattr(np, name)(d), want)


# ---- binary: every op x every dtype pair --------------------------------------------------------

def binary_inputs(name, da, db):
    x = sample(da, 24, seed=3).reshape(4, 6)
    y = sample(db, 6, seed=4)
    if name == "power" and np.dtype(db).kind == "i":
        y = np.where(y < 0, -(y + 1), y).astype(db)  # numpy refuses negative integer exponents
    return x, y


@pytest.mark.parametrize("da,db", list(itertools.product(DTYPES, DTYPES)),
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", BINARY)
def test_binary_every_dtype_pair(gpu, name, da, db):
    x, y = binary_inputs(name, da, db)
    want = numpy_or_none(name, x, y)
    dx, dy = cb.to_device(x), cb.to_device(y)
    if want is None:
        expect_refused(name, lambda: getattr(np, name)(dx, dy))
        expect_refused(name, lambda: getattr(cb, name)(dx, dy))
        return
    assert_matches(getattr(np, name)(dx, dy), want)
    assert_matches(getattr(cb, name)(dx, dy), want)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8, np.bool_], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", BINARY)
def test_binary_shapes(gpu, name, dtype):
    x, _ = binary_inputs(name, dtype, dtype)
    x = np.concatenate([x.reshape(-1)] * 3)[:60]
    y = x[::-1].copy()
    if name == "power" and np.dtype(dtype).kind == "i":
        y = np.where(y < 0, -(y + 1), y).astype(dtype)
    cases = [(x[5].reshape(()), y[9].reshape(())),           # 0-d with 0-d
             (x[:0].reshape(0, 4), y[:4]),                     # empty, broadcast
             (x[:12].reshape(3, 1, 4), y[:20].reshape(5, 4)),  # broadcast to (3, 5, 4)
             (x.reshape(3, 4, 5), y.reshape(5, 4, 3).T)]       # a transposed (non-contiguous) operand
    for hx, hy in cases:
        want = numpy_or_none(name, hx, hy)
        dx = cb.to_device(hx)
        dy = cb.to_device(hy)
        if hy.ndim == 3 and not hy.flags.c_contiguous:
            dy = cb.to_device(np.ascontiguousarray(hy.T)).T
            assert not dy.is_contiguous
        if want is None:
            expect_refused(name, lambda: getattr(cb, name)(dx, dy))
            continue
        assert_matches(getattr(np, name)(dx, dy), want)


@pytest.mark.parametrize("name", ["power", "arctan2", "remainder", "fmax", "left_shift", "bitwise_xor",
                                  "logical_or", "hypot", "copysign", "fmod", "right_shift", "fmin"])
@pytest.mark.parametrize("scalar", [3, -2, 2.5, True, 300, np.float32(1.5)], ids=repr)
def test_binary_with_python_scalars(gpu, name, scalar):
    """numpy 1.24's value-based casting: int8_array op 3 stays int8, op 300 goes to int16."""
    for dtype in (np.int8, np.int16, np.float32, np.int64):
        x = sample(dtype, 12, seed=5)
        d = cb.to_device(x)
        for args, dargs in (((x, scalar), (d, scalar)), ((scalar, x), (scalar, d))):
            try:
                want = numpy_result(name, *args)
            except (TypeError, ValueError) as e:
                with pytest.raises(type(e)):
                    getattr(cb, name)(*dargs)
                continue
            if np.asarray(want).dtype not in DEVICE_DTYPES:
                with pytest.raises(TypeError):
                    getattr(cb, name)(*dargs)
                continue
            assert_matches(getattr(np, name)(*dargs), want)


# ---- numpy's special cases ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_])
def test_integer_power_with_a_negative_exponent_raises_as_numpy(gpu, dtype):
    base = cb.to_device(np.array([2, 3, 1], dtype=dtype))
    for exponent in (np.array([1, -1, 2], np.int8), np.array([-3], np.int64)):
        with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
            np.power(np.array([2, 3, 1], dtype=dtype), exponent)
        with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
            np.power(base, cb.to_device(exponent))
        with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
            base ** cb.to_device(exponent)
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
        base ** -1
    # float results take negative exponents
    host = np.array([2, 3, 1], dtype=dtype)
    assert_matches(base.astype(np.float64) ** -1, host.astype(np.float64) ** -1)
    assert_matches(base ** -1.0, numpy_result("power", host, -1.0))  # bool, int8, uint8: float16


def test_integer_division_and_remainder_by_zero_give_zero(gpu):
    x = np.array([7, -7, 0, np.iinfo(np.int32).min, 5], np.int32)
    y = np.array([0, 0, 0, -1, 3], np.int32)
    dx, dy = cb.to_device(x), cb.to_device(y)
    for name in ("floor_divide", "remainder", "fmod"):
        assert_matches(getattr(np, name)(dx, dy), numpy_result(name, x, y))
    q, r = divmod(dx, dy)
    with np.errstate(all="ignore"):
        wq, wr = divmod(x, y)
    assert_matches(q, wq)
    assert_matches(r, wr)


def test_float_remainder_follows_the_divisor_sign(gpu):
    x = np.array([-7.0, 7.0, -7.0, 7.0, 0.0, -0.0, np.inf, 5.0, 1e300], np.float64)
    y = np.array([2.0, -2.0, 0.0, np.inf, -3.0, 3.0, 2.0, np.nan, 3e-300], np.float64)
    got = (cb.to_device(x) % cb.to_device(y)).get()
    want = numpy_result("remainder", x, y)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_fmax_fmin_ignore_nan_maximum_minimum_propagate_it(gpu):
    x = np.array([np.nan, 1.0, np.nan, -np.inf], np.float32)
    y = np.array([2.0, np.nan, np.nan, 3.0], np.float32)
    dx, dy = cb.to_device(x), cb.to_device(y)
    for name in ("fmax", "fmin", "maximum", "minimum"):
        assert_matches(getattr(cb, name)(dx, dy), getattr(np, name)(x, y))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_shifts_by_the_bit_width_or_more(gpu, dtype):
    bits = np.dtype(dtype).itemsize * 8
    x = np.array([1, 1, 1, -1 if dtype != np.uint8 else 255, 5, 64], dtype=dtype)
    y = np.array([bits - 1, bits, min(bits + 30, 127), bits, 0, 3], dtype=dtype)
    dx, dy = cb.to_device(x), cb.to_device(y)
    assert_matches(dx << dy, np.left_shift(x, y))
    assert_matches(dx >> dy, np.right_shift(x, y))


def test_integer_overflow_wraps(gpu):
    x = np.array([127, -128, 100, 16], np.int8)
    d = cb.to_device(x)
    assert_matches(d ** 2, x ** 2)
    assert_matches(cb.square(d), np.square(x))
    assert_matches(d << 3, x << 3)
    assert_matches(abs(d), np.abs(x))
    big = np.array([3, np.iinfo(np.int64).max], np.int64)
    assert_matches(cb.to_device(big) ** 41, big ** 41)


def test_logaddexp_handles_infinities_and_large_values(gpu):
    x = np.array([np.inf, -np.inf, np.nan, 1.0, -np.inf, 1000.0, -1000.0, 0.0], np.float64)
    y = np.array([np.inf, -np.inf, 1.0, 1.0, 5.0, 1000.0, 3.0, -0.0], np.float64)
    for name in ("logaddexp", "logaddexp2"):
        assert_matches(getattr(np, name)(cb.to_device(x), cb.to_device(y)), numpy_result(name, x, y))


def test_signbit_sees_negative_zero_and_nan(gpu):
    x = np.array([-0.0, 0.0, np.nan, -np.nan, -1.0, np.inf, -np.inf], np.float32)
    assert_matches(np.signbit(cb.to_device(x)), np.signbit(x))


def test_rint_rounds_half_to_even(gpu):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3.5, 1e16 + 2], np.float64)
    np.testing.assert_array_equal(cb.rint(cb.to_device(x)).get(), np.rint(x))


# ---- the operators, out=, divmod, clip --------------------------------------------------------------

OPERATORS = [operator.pow, operator.mod, operator.and_, operator.or_, operator.xor, operator.lshift,
             operator.rshift, divmod]


@pytest.mark.parametrize("op", OPERATORS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float64, np.bool_], ids=lambda d: np.dtype(d).name)
def test_operators_and_their_reflections(gpu, op, dtype):
    x = sample(dtype, 16, seed=8)
    y = sample(dtype, 16, seed=9)
    if op is operator.pow and np.dtype(dtype).kind in "iu":
        y = np.abs(y % 5).astype(dtype)
    for a, b, da, db in ((x, y, cb.to_device(x), cb.to_device(y)),      # array op array
                         (x, 3, cb.to_device(x), 3),                     # array op scalar
                         (2, y, 2, cb.to_device(y)),                     # reflected
                         (x, y, cb.to_device(x), y)):                    # device op numpy array
        try:
            with np.errstate(all="ignore"):
                want = op(a, b)
        except TypeError:
            with pytest.raises(TypeError):
                op(da, db)
            continue
        if isinstance(want, tuple):
            got = op(da, db)
            assert isinstance(got, tuple) and len(got) == 2
            for g, w in zip(got, want):
                assert_matches(g, w)
        else:
            assert_matches(op(da, db), want)


@pytest.mark.parametrize("dtype", [np.int16, np.int64, np.bool_, np.uint8], ids=lambda d: np.dtype(d).name)
def test_positive(gpu, dtype):
    x = sample(dtype, 20, seed=10)
    d = cb.to_device(x)
    if dtype == np.bool_:
        with pytest.raises(TypeError, match="positive"):
            np.positive(d)
        return
    assert_matches(np.positive(d), np.positive(x))
    assert_matches(+d, +x)
    assert_matches(cb.positive(d), np.positive(x))


@pytest.mark.parametrize("dtype", [np.int16, np.int64, np.bool_, np.uint8], ids=lambda d: np.dtype(d).name)
def test_invert_operator(gpu, dtype):
    x = sample(dtype, 20, seed=10)
    assert_matches(~cb.to_device(x), ~x)
    assert_matches(np.bitwise_not(cb.to_device(x)), ~x)
    with pytest.raises(TypeError):
        ~cb.to_device(np.ones(3, np.float32))


def test_in_place_operators(gpu):
    x = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    d = cb.to_device(x)
    view = d
    d **= 2
    d %= 7
    d <<= 2
    d |= 1
    d ^= 3
    d &= 0x3F
    d >>= 1
    want = x.copy()
    want **= 2
    want %= 7
    want <<= 2
    want |= 1
    want ^= 3
    want &= 0x3F
    want >>= 1
    assert d is view  # written in place
    assert_matches(d, want)


def test_out_argument(gpu):
    x = sample(np.float32, 12, seed=12)
    d = cb.to_device(x)
    out = cb.empty(12, np.float32)
    r = np.exp(d, out=out)
    assert r is out
    assert_matches(out, numpy_result("exp", x))
    out64 = cb.empty(12, np.float64)  # float32 result cast into float64 (same_kind)
    cb.sqrt(d, out=out64)
    with np.errstate(all="ignore"):
        assert_matches(out64, np.sqrt(x).astype(np.float64))
    ints = cb.to_device(np.arange(12, dtype=np.int32))
    iout = cb.empty(12, np.int32)
    with pytest.raises(TypeError):  # float64 result into int32: numpy's same_kind refusal
        np.exp(ints, out=iout)
    o2 = cb.empty((3, 4), np.float64)  # broadcast (3, 4) with (4,), float32 with float64
    w = np.array([2.0, -1.0, 0.5, 3.0])
    np.arctan2(cb.to_device(x.reshape(3, 4)), cb.to_device(w), out=o2)
    assert_matches(o2, np.arctan2(x.reshape(3, 4), w))
    q, r = cb.empty(12, np.float32), cb.empty(12, np.float32)
    got = np.divmod(d, 0.75, out=(q, r))
    assert got[0] is q and got[1] is r
    assert_matches(q, numpy_result("floor_divide", x, np.float32(0.75)))
    assert_matches(r, numpy_result("remainder", x, np.float32(0.75)))
    with pytest.raises(ValueError):
        cb.exp(d, out=cb.empty(5, np.float32))
    with pytest.raises(TypeError):
        np.exp(d, out=np.empty(12, np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.int64, np.uint8], ids=lambda d: np.dtype(d).name)
def test_clip(gpu, dtype):
    x = sample(dtype, 30, seed=13).reshape(5, 6)
    d = cb.to_device(x)
    lo = sample(dtype, 6, seed=14)
    for a_min, a_max in ((2, 10), (None, 5), (-3, None), (10, 2), (lo, 7), (cb.to_device(lo), None), (0, 300)):
        host_min = a_min.get() if isinstance(a_min, cb.ndarray) else a_min
        try:
            with np.errstate(all="ignore"):
                want = np.clip(x, host_min, a_max)
        except (TypeError, ValueError) as e:
            with pytest.raises(type(e)):
                np.clip(d, a_min, a_max)
            continue
        if want.dtype not in DEVICE_DTYPES:  # uint8 clipped to 300: numpy's uint16
            with pytest.raises(TypeError, match=str(want.dtype)):
                np.clip(d, a_min, a_max)
            continue
        assert_matches(np.clip(d, a_min, a_max), want)
        assert_matches(d.clip(a_min, a_max), want)
        assert_matches(cb.clip(d, a_min, a_max), want)
    out = cb.empty((5, 6), dtype)
    assert np.clip(d, 1, 4, out=out) is out
    assert_matches(out, np.clip(x, 1, 4))
    with pytest.raises(ValueError, match="One of max or min must be given"):
        cb.clip(d, None, None)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int16, np.int64, np.uint8],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("decimals", [0, 1, 2, -1, -2])
def test_around(gpu, dtype, decimals):
    x = sample(dtype, 40, seed=15)
    if np.dtype(dtype).kind == "f":
        x = np.concatenate([x, np.array([1.25, 2.675, -0.5, 0.5, 1.5, 2.5, 1234.5678, -15.0, 25.0], dtype)])
    d = cb.to_device(x)
    with np.errstate(all="ignore"):
        want = np.around(x, decimals)
    assert_matches(np.around(d, decimals), want)
    assert_matches(np.round(d, decimals), want)
    assert_matches(d.round(decimals), want)
    assert_matches(cb.round(d, decimals), want)
    out = cb.empty(x.shape, dtype)
    assert cb.around(d, decimals, out=out) is out
    assert_matches(out, want)


def test_around_of_bool_is_float16(gpu):
    x = np.array([True, False])
    assert_matches(np.around(cb.to_device(x)), np.around(x))


def test_clip_of_nan_stays_nan(gpu):
    x = np.array([np.nan, -5.0, 0.5, 9.0, np.inf], np.float64)
    assert_matches(cb.clip(cb.to_device(x), -1.0, 1.0), np.clip(x, -1.0, 1.0))


# ---- dispatch and refusals ----------------------------------------------------------------------------

def test_numpy_calls_return_device_arrays(gpu):
    d = cb.to_device(np.linspace(0.1, 0.9, 9))
    for name in UNARY:
        if name == "invert":
            continue
        assert isinstance(getattr(np, name)(d), cb.ndarray), name
    for name in BINARY:
        if name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"):
            continue
        assert isinstance(getattr(np, name)(d, d), cb.ndarray), name
    assert isinstance(np.clip(d, 0.2, 0.5), cb.ndarray)
    assert all(isinstance(r, cb.ndarray) for r in np.divmod(d, 0.25))
    assert isinstance(np.abs(d), cb.ndarray) and isinstance(np.mod(d, 0.3), cb.ndarray)


def test_unsupported_keyword_arguments_and_ufuncs_raise(gpu):
    d = cb.to_device(np.linspace(0.1, 0.9, 9))
    with pytest.raises(TypeError, match="where"):
        np.exp(d, where=np.ones(9, bool))
    with pytest.raises(TypeError, match="order"):
        np.sqrt(d, order="F")
    with pytest.raises(TypeError, match="spacing"):  # a ufunc with no device kernel
        np.spacing(d)
    with pytest.raises(TypeError, match="accumulate"):
        np.add.accumulate(d)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8])
def test_float16_results_of_8_bit_inputs(gpu, dtype):
    """numpy computes the floating-point functions of bool, int8 and uint8 in float16."""
    x = sample(dtype, 40, seed=13)
    d = cb.to_device(x)
    for name in ("exp", "sqrt", "sin", "floor", "log1p"):
        got = getattr(cb, name)(d)
        assert got.dtype == np.float16
        assert_matches(got, numpy_result(name, x))
    assert_matches(cb.arctan2(d, d), numpy_result("arctan2", x, x))
    # one wider operand makes the result float32, as numpy's
    assert_matches(cb.arctan2(d, cb.to_device(np.ones(40, np.int16))), numpy_result("arctan2", x, np.ones(40, np.int16)))
