"""numpy's API on device arrays, against numpy 1.24 on the same inputs: creation, reshaping and
joining, reductions with dtype=/out=, and numpy's dispatch (np.* on a device array runs on the
device and returns a device array; what has no device implementation raises TypeError)."""
import numpy as np
import pytest

import cudabridge as cb

from test_elementwise import check

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16, np.bool_, np.uint16, np.uint32,
          np.uint64, np.float16]


def sample(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    return rng.integers(-20 if np.dtype(dtype).kind != "u" else 0, 20, shape).astype(dtype)


def non_contiguous(x):
    """A transposed, strided view of `x` on the device and the same view of it in numpy."""
    d = cb.to_device(x)
    return d.T[::2], x.T[::2]


# ---- creation ---------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [(5,), (2, 9), (2, 9, 3), (9, 2, -2), (0.5, 3.2, 0.7), (3, 3), (-1.5,),
                                  (10, 0, -1), (1, 2, 0.1)])
def test_arange(gpu, args):
    check(cb.arange(*args), np.arange(*args))


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.uint8, np.float64])
def test_arange_with_a_dtype(gpu, dtype):
    check(cb.arange(3, 40, 3, dtype=dtype), np.arange(3, 40, 3, dtype=dtype))


def test_arange_refuses_what_numpy_refuses(gpu):
    with pytest.raises(ZeroDivisionError):
        cb.arange(0, 5, 0)
    with pytest.raises(TypeError):
        cb.arange("5")


@pytest.mark.parametrize("args,kwargs", [((0, 1, 5), {}), ((2.5, -7, 13), {}), ((0, 10), {"endpoint": False}),
                                         ((1, 2, 1), {}), ((1, 2, 0), {}), ((0, 100, 7), {"dtype": np.int32}),
                                         ((3, 3, 4), {}), ((0, 1, 6), {"dtype": np.float32})])
def test_linspace(gpu, args, kwargs):
    check(cb.linspace(*args, **kwargs), np.linspace(*args, **kwargs))
    got, step = cb.linspace(0, 1, 11, retstep=True)
    want, want_step = np.linspace(0, 1, 11, retstep=True)
    check(got, want)
    assert step == want_step


@pytest.mark.parametrize("args", [(3,), (3, 5), (5, 3), (4, 4, 1), (4, 4, -2), (3, 5, 4), (0,), (2, 3, 7)])
def test_eye_and_identity(gpu, args):
    check(cb.eye(*args), np.eye(*args))
    check(cb.eye(*args, dtype=np.int32), np.eye(*args, dtype=np.int32))
    check(cb.identity(4, dtype=np.uint8), np.identity(4, dtype=np.uint8))


@pytest.mark.parametrize("dtype", DTYPES)
def test_like_family_keeps_shape_and_dtype(gpu, dtype):
    x = sample((3, 4), dtype)
    d = cb.to_device(x)
    check(cb.zeros_like(d), np.zeros_like(x))
    check(cb.ones_like(d), np.ones_like(x))
    check(cb.full_like(d, 7), np.full_like(x, 7))
    check(cb.zeros_like(d, dtype=np.float64, shape=(2, 5)), np.zeros_like(x, dtype=np.float64, shape=(2, 5)))
    e = cb.empty_like(d)
    assert (e.shape, e.dtype) == (x.shape, x.dtype)
    check(np.zeros_like(d), np.zeros_like(x))  # numpy's own names dispatch to the device
    assert isinstance(np.ones_like(d), cb.ndarray)


def test_asarray_copy_semantics(gpu):
    d = cb.to_device(np.arange(4, dtype=np.float32))
    assert cb.asarray(d) is d
    copy = cb.asarray(d, copy=True)
    copy[0] = 9
    check(d, np.arange(4, dtype=np.float32))
    check(cb.asarray(d, dtype=np.float64), np.arange(4, dtype=np.float64))
    with pytest.raises(ValueError, match="copy=False"):
        cb.asarray(d, dtype=np.float64, copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        cb.asarray([1, 2], copy=False)


# ---- reshaping: views where numpy gives views ---------------------------------------------------

def shares_memory(view, base):
    """Writing through `view` changes `base` (a view, not a copy)."""
    before = base.get().copy()
    view[...] = 99
    return not np.array_equal(before, base.get())


@pytest.mark.parametrize("fn", [
    lambda m: m.squeeze(np.ones((1, 3, 1, 2))), lambda m: m.squeeze(np.ones((1, 3, 1, 2)), axis=2),
    lambda m: m.expand_dims(np.arange(6).reshape(2, 3), 1), lambda m: m.expand_dims(np.arange(6), (0, 2)),
    lambda m: m.expand_dims(np.arange(6), -1), lambda m: m.flip(np.arange(24).reshape(2, 3, 4)),
    lambda m: m.flip(np.arange(24).reshape(2, 3, 4), 1), lambda m: m.flip(np.arange(24).reshape(2, 3, 4), (0, 2)),
    lambda m: m.moveaxis(np.arange(24).reshape(2, 3, 4), 0, -1),
    lambda m: m.moveaxis(np.arange(24).reshape(2, 3, 4), (0, 1), (2, 0)),
    lambda m: m.swapaxes(np.arange(24).reshape(2, 3, 4), 0, 2),
    lambda m: m.broadcast_to(np.arange(3), (4, 3)), lambda m: m.broadcast_to(np.arange(3).reshape(3, 1), (2, 3, 5)),
    lambda m: m.atleast_1d(np.float64(3)), lambda m: m.atleast_2d(np.arange(3)),
])
def test_views_match_numpy(gpu, fn):
    want = fn(np)
    got = fn(cb)
    check(got, np.asarray(want))


@pytest.mark.parametrize("view", [lambda d: cb.flip(d, 0)[0], lambda d: cb.expand_dims(d, 0)[0, 1],
                                  lambda d: cb.split(d, 3)[1], lambda d: cb.moveaxis(d, 0, 1)[0],
                                  lambda d: cb.squeeze(d[None])[2], lambda d: cb.diagonal(d, 1)])
def test_views_share_memory(gpu, view):
    d = cb.to_device(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert shares_memory(view(d), d)


def test_python_data_reaches_the_asked_dtype_without_passing_through_float64(gpu):
    big = 2**63 + 1  # numpy's own choice for [big, 1] is float64, which rounds it to 2**63
    assert cb.asarray([big, 1], dtype=np.uint64).get().tolist() == [big, 1]
    assert cb.asarray([[big]], np.uint64).get()[0, 0] == big
    check(cb.asarray([1.5, -2.5], dtype=np.int32), np.asarray([1.5, -2.5], dtype=np.int32))


def test_a_zero_dimensional_upload_keeps_its_shape(gpu):
    for value in (np.float32(2.5), np.asarray(True), np.int64(-3)):
        check(cb.to_device(value), np.asarray(value))


@pytest.mark.parametrize("sections,axis", [(3, 0), ([1, 3], 1), (2, 1), ([0, 2, 2], 0)])
def test_split(gpu, sections, axis):
    x = np.arange(24, dtype=np.float32).reshape(3, 8) if axis else np.arange(24, dtype=np.float32).reshape(6, 4)
    got, want = cb.split(cb.to_device(x), sections, axis), np.split(x, sections, axis)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        check(g, w)
    for g, w in zip(cb.array_split(cb.to_device(x), 5, axis), np.array_split(x, 5, axis)):
        check(g, w)
    with pytest.raises(ValueError, match="equal division"):
        cb.split(cb.to_device(np.arange(5)), 2)


# ---- joining and copying --------------------------------------------------------------------------

@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.int8, np.float64), (np.uint8, np.int16),
                                    (np.bool_, np.int32)])
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concatenate(gpu, dtypes, axis):
    a, b = sample((2, 3), dtypes[0], 1), sample((2, 3) if axis is None else (4, 3) if axis == 0 else (2, 5),
                                                dtypes[1], 2)
    if axis is None:
        b = sample((5,), dtypes[1], 2)
    got = cb.concatenate([cb.to_device(a), cb.to_device(b)], axis=axis)
    check(got, np.concatenate([a, b], axis=axis))
    check(np.concatenate([cb.to_device(a), cb.to_device(b)], axis=axis), np.concatenate([a, b], axis=axis))


def test_concatenate_of_views_and_errors(gpu):
    x = np.arange(20, dtype=np.float64).reshape(4, 5)
    dv, xv = non_contiguous(x)
    check(cb.concatenate([dv, dv[::-1]]), np.concatenate([xv, xv[::-1]]))
    with pytest.raises(ValueError, match="must match exactly"):
        cb.concatenate([cb.ones((2, 3)), cb.ones((2, 4))])
    with pytest.raises(ValueError, match="zero-dimensional"):
        cb.concatenate([cb.ones(()), cb.ones(())])
    with pytest.raises(ValueError, match="at least one"):
        cb.concatenate([])


@pytest.mark.parametrize("fn", [
    lambda m, a, b: m.stack([a, b]), lambda m, a, b: m.stack([a, b], axis=-1), lambda m, a, b: m.stack([a, b], 1),
    lambda m, a, b: m.hstack([a, b]), lambda m, a, b: m.vstack([a, b]), lambda m, a, b: m.hstack([a[0], b[1]]),
    lambda m, a, b: m.vstack([a[0], b[1]]),
])
def test_stack_family(gpu, fn):
    a, b = sample((3, 4), np.int32, 3), sample((3, 4), np.int32, 4)
    check(fn(cb, cb.to_device(a), cb.to_device(b)), fn(np, a, b))


@pytest.mark.parametrize("shift,axis", [(1, None), (-3, None), (2, 0), (-1, 1), ((1, 2), (0, 1)), (7, 1), (0, 0),
                                        (5, (0, 1))])
def test_roll(gpu, shift, axis):
    x = np.arange(15, dtype=np.int16).reshape(3, 5)
    check(cb.roll(cb.to_device(x), shift, axis), np.roll(x, shift, axis))


@pytest.mark.parametrize("reps", [2, (2, 1), (1, 3), (2, 2, 2), (0,), (3,)])
def test_tile(gpu, reps):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    check(cb.tile(cb.to_device(x), reps), np.tile(x, reps))
    check(cb.tile(cb.to_device(np.arange(3)), reps), np.tile(np.arange(3), reps))


@pytest.mark.parametrize("repeats,axis", [(2, None), (3, 0), (2, 1), ([1, 0, 2], 1), ([2, 1], 0), (0, 0)])
def test_repeat(gpu, repeats, axis):
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    check(cb.repeat(cb.to_device(x), repeats, axis), np.repeat(x, repeats, axis))
    check(cb.to_device(x).repeat(repeats, axis), np.repeat(x, repeats, axis))
    with pytest.raises(ValueError, match="negative"):
        cb.repeat(cb.to_device(x), -1)


def test_broadcast_arrays(gpu):
    a, b = np.arange(3), np.arange(4).reshape(4, 1)
    for got, want in zip(cb.broadcast_arrays(cb.to_device(a), cb.to_device(b)), np.broadcast_arrays(a, b)):
        check(got, want)
    with pytest.raises(ValueError, match="could not be broadcast"):
        cb.broadcast_to(cb.to_device(a), (4, 2))


# ---- reductions with numpy's keywords ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_reductions_through_numpy(gpu, dtype, axis):
    x = sample((4, 5), dtype, 5)
    d = cb.to_device(x)
    for name in ("sum", "mean", "max", "min", "any", "all"):
        want = getattr(np, name)(x, axis=axis)
        got = getattr(np, name)(d, axis=axis)
        assert isinstance(got, cb.ndarray), name
        check(got, np.asarray(want))
        check(getattr(cb, name)(d, axis=axis, keepdims=True), np.asarray(getattr(np, name)(x, axis=axis,
                                                                                           keepdims=True)))


def test_reduction_dtype_and_out(gpu):
    x = np.arange(1, 300, dtype=np.int16)
    d = cb.to_device(x)
    check(np.sum(d, dtype=np.int8), np.asarray(np.sum(x, dtype=np.int8)))
    check(d.sum(dtype=np.float32), np.asarray(x.sum(dtype=np.float32)))
    check(np.mean(d, dtype=np.float32), np.asarray(np.mean(x, dtype=np.float32)))
    out = cb.zeros((), np.float64)
    assert np.sum(d, out=out) is out
    check(out, np.asarray(np.sum(x), dtype=np.float64))
    with pytest.raises(ValueError, match="wrong shape"):
        np.sum(d, out=cb.zeros(2))
    check(np.add.reduce(cb.to_device(x.reshape(13, 23))), np.add.reduce(x.reshape(13, 23)))
    check(np.maximum.reduce(d), np.asarray(np.maximum.reduce(x)))


def test_any_all_of_empty_and_nan(gpu):
    check(cb.all(cb.zeros((0, 3))), np.asarray(np.all(np.zeros((0, 3)))))
    check(cb.any(cb.zeros((0, 3)), axis=0), np.any(np.zeros((0, 3)), axis=0))
    check(cb.any(cb.to_device(np.array([0.0, np.nan]))), np.asarray(True))
    assert np.array_equal(cb.arange(4), cb.arange(4))
    assert not np.array_equal(cb.arange(4), cb.arange(5))
    assert not cb.array_equal(cb.arange(4), cb.to_device(np.array([0, 1, 2, 4])))


# ---- numpy's dispatch ---------------------------------------------------------------------------------

@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.divide, np.floor_divide, np.maximum,
                                   np.minimum, np.equal, np.not_equal, np.less, np.less_equal, np.greater,
                                   np.greater_equal])
def test_numpy_ufuncs_run_on_the_device(gpu, ufunc):
    x, y = sample((3, 4), np.float32, 6) + 30, sample((4,), np.float32, 7) + 30
    d, e = cb.to_device(x), cb.to_device(y)
    got = ufunc(d, e)
    assert isinstance(got, cb.ndarray)
    check(got, ufunc(x, y))
    check(ufunc(x, e), ufunc(x, y))  # a numpy operand is uploaded
    check(ufunc(d, 2.5), ufunc(x, 2.5))
    out = cb.empty((3, 4), ufunc(x, y).dtype)
    assert ufunc(d, e, out=out) is out
    check(out, ufunc(x, y))


def test_numpy_operators_with_a_device_operand(gpu):
    x = np.arange(6, dtype=np.float32)
    d = cb.to_device(x)
    got = x + d
    assert isinstance(got, cb.ndarray)
    check(got, x + x)
    check(x * d, x * x)
    check(np.negative(d), -x)
    check(np.absolute(cb.to_device(-x)), x)
    check(np.positive(d), x)
    check(np.matmul(cb.to_device(x.reshape(2, 3)), cb.to_device(x.reshape(3, 2))), x.reshape(2, 3) @ x.reshape(3, 2))
    check(np.dot(d, d), np.asarray(np.dot(x, x)))


def test_numpy_functions_return_device_arrays(gpu):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    d = cb.to_device(x)
    assert np.shape(d) == (3, 4) and np.ndim(d) == 2 and np.size(d) == 12
    for fn in (lambda m, a: m.reshape(a, (4, 3)), lambda m, a: m.transpose(a), lambda m, a: m.ravel(a),
               lambda m, a: m.copy(a), lambda m, a: m.concatenate([a, a]), lambda m, a: m.squeeze(a[None])):
        got = fn(np, d)
        assert isinstance(got, cb.ndarray)
        check(got, fn(np, x))
    assert np.result_type(d, np.int64) == np.result_type(x, np.int64)


@pytest.mark.parametrize("call", [lambda d: np.spacing(d), lambda d: np.gradient(d), lambda d: np.convolve(d, d),
                                  lambda d: np.add.accumulate(d), lambda d: np.polyder(d),
                                  lambda d: np.linalg.eig(d.reshape(2, 2)), lambda d: np.add(d, d, where=d > 1)])
def test_what_has_no_device_implementation_raises_naming_it(gpu, call):
    d = cb.to_device(np.arange(4, dtype=np.float32))
    with pytest.raises(TypeError, match="device|not supported"):
        call(d)


def test_the_error_names_the_numpy_function_with_its_module(gpu):
    d = cb.to_device(np.eye(2))
    with pytest.raises(TypeError, match=r"^numpy\.linalg\.eig has no implementation on the device"):
        np.linalg.eig(d)
    with pytest.raises(TypeError, match=r"^numpy\.linalg\.eigvals has no implementation on the device"):
        np.linalg.eigvals(d)
    with pytest.raises(TypeError, match=r"^numpy\.gradient has no implementation on the device"):
        np.gradient(d)


def test_host_conversion_stays_explicit(gpu):
    x = np.arange(4, dtype=np.float32)
    d = cb.to_device(x)
    np.testing.assert_array_equal(np.asarray(d), x)
    np.testing.assert_array_equal(cb.asnumpy(d), x)


# ---- the array API namespace ----------------------------------------------------------------------------

def test_array_namespace(gpu):
    d = cb.arange(3)
    xp = d.__array_namespace__()
    assert xp is cb.array_api and xp.__array_api_version__ == "2022.12"
    assert xp.finfo(xp.float32).eps == np.finfo(np.float32).eps
    assert xp.iinfo(d).max == np.iinfo(np.int64).max
    with pytest.raises(ValueError, match="version"):
        d.__array_namespace__(api_version="1999.01")


# ---- products -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)),
                                    ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 3, 4), (2, 4, 5)),
                                    ((2, 1, 3, 4), (5, 4, 2)), ((6, 3, 4), (4,)), ((4,), (6, 4, 3))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_matmul_batched_and_broadcast(gpu, shapes, dtype):
    a, b = sample(shapes[0], dtype, 8), sample(shapes[1], dtype, 9)
    want = np.matmul(a, b)
    check(cb.to_device(a) @ cb.to_device(b), np.asarray(want))
    check(np.matmul(cb.to_device(a), cb.to_device(b)), np.asarray(want))
    with pytest.raises(ValueError, match="mismatch"):
        cb.matmul(cb.ones((2, 3, 4)), cb.ones((2, 5, 4)))


@pytest.mark.parametrize("dtype", [np.float32, np.complex128, np.uint8, np.float16])
def test_matmul_of_stacks_through_views(gpu, dtype):
    """One launch for a stack: transposed and sliced views, a broadcast stack, empty stacks."""
    t = sample((3, 5, 4), dtype, 16)
    u = sample((2, 1, 5, 6), dtype, 17)
    dt, du = cb.to_device(t), cb.to_device(u)
    check(cb.matmul(dt.transpose(0, 2, 1), dt), np.matmul(t.transpose(0, 2, 1), t))
    check(dt[::2].transpose(0, 2, 1) @ du[:, :, :, ::2], t[::2].transpose(0, 2, 1) @ u[:, :, :, ::2])
    check(cb.matmul(dt[:0], cb.to_device(sample((4, 2), dtype, 18))), np.empty((0, 5, 2), dtype))
    check(cb.matmul(cb.zeros((2, 3, 0), dtype), cb.zeros((2, 0, 4), dtype)), np.zeros((2, 3, 4), dtype))


def test_products(gpu):
    a, b = sample((3, 4), np.float64, 10), sample((4, 2), np.float64, 11)
    v, w = sample((4,), np.float64, 12), sample((4,), np.float64, 13)
    t, u = sample((2, 3, 4), np.float64, 14), sample((4, 3, 5), np.float64, 15)
    da, db, dv, dw, dt, du = (cb.to_device(x) for x in (a, b, v, w, t, u))
    check(cb.dot(da, db), a.dot(b))
    check(np.dot(dv, dw), np.asarray(np.dot(v, w)))
    check(cb.dot(dt, cb.to_device(b)), np.dot(t, b))
    check(cb.vdot(da, da), np.asarray(np.vdot(a, a)))
    check(np.inner(da, dv), np.inner(a, v))
    check(np.outer(dv, dw), np.outer(v, w))
    check(np.tensordot(dt, du, axes=([1, 2], [1, 0])), np.tensordot(t, u, axes=([1, 2], [1, 0])))
    check(cb.tensordot(dt, du, axes=1), np.tensordot(t, u, axes=1))
    check(cb.tensordot(da, db, axes=0), np.tensordot(a, b, axes=0))
    for sa, sb, axes in (((0, 0), (0, 0), 2), ((2, 0), (0, 3), 1), ((0, 3), (3, 2), 1)):  # empty operands
        x, y = np.zeros(sa), np.ones(sb)
        check(cb.tensordot(cb.to_device(x), cb.to_device(y), axes), np.tensordot(x, y, axes))
    for offset in (-2, -1, 0, 1, 3, 9):
        check(np.trace(da, offset), np.asarray(np.trace(a, offset)))
        check(np.diagonal(da, offset), np.diagonal(a, offset))
    check(np.diagonal(dt, 1, 2, 0), np.diagonal(t, 1, 2, 0))
    check(np.trace(dt, axis1=1, axis2=2), np.trace(t, axis1=1, axis2=2))
    wide = np.full((300, 300), 200, np.int16)  # dtype= is the answer's dtype too: 60,000 wraps in int16
    for dtype in (np.int16, np.uint8, np.float32):
        check(np.trace(cb.to_device(wide), dtype=dtype), np.asarray(np.trace(wide, dtype=dtype)))


@pytest.mark.parametrize("subscripts,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]), ("i,i->", [(4,), (4,)]), ("i,j->ij", [(3,), (4,)]), ("ij->ji", [(3, 4)]),
    ("ii->", [(4, 4)]), ("ii->i", [(4, 4)]), ("ij->i", [(3, 4)]), ("ij->", [(3, 4)]),
    ("bij,jk->bki", [(2, 3, 4), (4, 5)]), ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]), ("ij,j->i", [(3, 4), (4,)]),
    ("ab,cd->abcd", [(2, 3), (4, 5)]), ("ij,ij->ij", [(3, 4), (3, 4)]), ("ij,ij->", [(3, 4), (3, 4)]),
    ("ik,k", [(3, 4), (4,)]),
])
def test_einsum_contractions(gpu, subscripts, shapes):
    ops = [sample(s, np.float64, 16 + i) for i, s in enumerate(shapes)]
    want = np.einsum(subscripts, *ops)
    check(cb.einsum(subscripts, *(cb.to_device(x) for x in ops)), np.asarray(want))
    check(np.einsum(subscripts, *(cb.to_device(x) for x in ops)), np.asarray(want))


def test_einsum_refuses_clearly(gpu):
    with pytest.raises(ValueError, match="ellipsis"):
        cb.einsum("...i,i", cb.ones((2, 3)), cb.ones(3))
    with pytest.raises(ValueError, match="dimensions"):
        cb.einsum("ijk,jk", cb.ones((2, 3)), cb.ones((2, 3)))


@pytest.mark.parametrize("call", [
    lambda m, a, b: m.add(a, b, dtype=np.float64),
    lambda m, a, b: m.multiply(a, b, dtype=np.int64),
    lambda m, a, b: m.subtract(a, b, dtype=np.float32),
    lambda m, a, b: m.sqrt(a, dtype=np.float32),
    lambda m, a, b: m.add(a, 3, dtype=np.int16),
    lambda m, a, b: m.maximum(a, b, dtype=np.float64),
])
def test_a_ufunc_computes_in_the_dtype_it_is_given(gpu, call):
    a, b = np.arange(12, dtype=np.int32).reshape(3, 4), (np.arange(12, dtype=np.int32) * 7 - 20).reshape(3, 4)
    check(call(np, cb.to_device(a), cb.to_device(b)), call(np, a, b))


def test_a_dtype_numpy_would_not_cast_to_raises_numpys_error(gpu):
    a = np.linspace(0, 1, 6)
    with pytest.raises(TypeError, match="same_kind"):
        np.add(cb.to_device(a), cb.to_device(a), dtype=np.int32)


NORM_ORDS = [None, 1, -1, 2, np.inf, -np.inf, 0, 3, 0.5, "fro"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1), (1, 0)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_linalg_norm_matches_numpy(gpu, dtype, axis, keepdims):
    a = sample((3, 4), np.float64, 21)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * sample((3, 4), np.float64, 22)
    a = a.astype(dtype)
    for ord_ in NORM_ORDS:
        try:
            with np.errstate(all="ignore"):
                want = np.asarray(np.linalg.norm(a, ord_, axis, keepdims))
        except ValueError:  # an order numpy refuses for this axis: so does the device
            with pytest.raises(ValueError):
                cb.linalg.norm(cb.to_device(a), ord_, axis, keepdims)
            continue
        if ord_ == 2 and not isinstance(axis, int) and np.dtype(dtype).kind == "c":
            continue  # a complex matrix 2-norm: see test_linalg_norm_refuses_what_needs_singular_values
        got = np.linalg.norm(cb.to_device(a), ord_, axis, keepdims)
        assert isinstance(got, cb.ndarray)
        host = got.get()
        assert host.dtype == want.dtype and host.shape == want.shape, (ord_, host.dtype, want.dtype)
        np.testing.assert_allclose(host, want, rtol=2e-5 if want.dtype == np.float32 else 1e-12)


def test_linalg_norm_of_vectors_and_stacks(gpu):
    v = sample((7,), np.float32, 23)
    check(cb.linalg.norm(cb.to_device(v)), np.asarray(np.linalg.norm(v)))
    t = sample((2, 3, 4), np.float64, 24)
    check(np.linalg.norm(cb.to_device(t), axis=(1, 2)), np.linalg.norm(t, axis=(1, 2)))
    check(np.linalg.norm(cb.to_device(t), 1, axis=(0, 2)), np.linalg.norm(t, 1, axis=(0, 2)))
    check(np.linalg.norm(cb.to_device(t), np.inf, axis=2), np.linalg.norm(t, np.inf, axis=2))


def test_linalg_norms_from_singular_values(gpu):
    real = sample((2, 3, 4), np.float64, 25)
    complex_ = real[0] + 1j * real[1]
    for ord_ in (2, -2, "nuc"):
        check(cb.linalg.norm(cb.to_device(real), ord_, axis=(2, 1)), np.linalg.norm(real, ord_, axis=(2, 1)))
        check(cb.linalg.norm(cb.to_device(complex_), ord_), np.asarray(np.linalg.norm(complex_, ord_)))
    tiny = np.array([1.5, 2, 3], np.float32)  # 1 / ord overflows float32, as numpy's in-place root takes it
    for ord_ in (0.5, 3, 2.17e-185):
        check(cb.linalg.norm(cb.to_device(tiny), ord_), np.asarray(np.linalg.norm(tiny, ord_)))
    with pytest.raises(ValueError, match="vectors"):
        cb.linalg.norm(cb.to_device(np.ones(3)), "fro", axis=0)
    with pytest.raises(ValueError, match="dimensions"):
        cb.linalg.norm(cb.ones((2, 2, 2)), 1, axis=(0, 1, 2))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float64, np.int16, np.complex64, np.float32])
def test_view_reads_the_same_bytes_as_another_dtype(gpu, dtype):
    a = sample((3, 4), np.float32, 26)
    d = cb.to_device(a)
    got = d.view(dtype)
    want = a.view(dtype)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.get().tobytes() == want.tobytes()
    assert d[:, 2:4].view(dtype).get().tobytes() == a[:, 2:4].copy().view(dtype).tobytes()


@pytest.mark.parametrize("dtype", [np.int16, np.uint32, np.float64, np.complex64, np.complex128, np.uint8,
                                   np.bool_, np.float16, np.int64])
def test_byteswap_as_numpy(gpu, dtype):
    a = (np.arange(24) * 1234567 % 65521 - 300).astype(dtype).reshape(4, 6)
    d = cb.to_device(a)
    for view, host in ((d, a), (d[:, 1::2].T, a[:, 1::2].T), (d[2, 3], a[2, 3])):  # strided, 0-d
        got = view.byteswap()
        assert got.dtype == host.dtype and got.shape == host.shape
        assert got.get().tobytes() == host.byteswap().tobytes()
    same = d[1:3].byteswap(inplace=True)
    want = a.copy()
    want[1:3].byteswap(inplace=True)
    assert d.get().tobytes() == want.tobytes() and same.shape == (2, 6)


def test_a_view_writes_through_and_refuses_what_numpy_refuses(gpu):
    a = np.arange(8, dtype=np.float32)
    d = cb.to_device(a)
    d.view(np.int32)[0] = 7
    assert d.get()[:1].view(np.int32)[0] == 7
    with pytest.raises(ValueError, match="contiguous"):
        cb.to_device(a.reshape(2, 4))[:, ::2].view(np.float64)
    with pytest.raises(ValueError, match="0d"):
        cb.to_device(np.float32(1)).view(np.float64)
    with pytest.raises(ValueError, match="divisible"):
        cb.to_device(np.zeros(3, np.float32)).view(np.float64)


def test_array_api_linalg_names(gpu):
    t = sample((2, 3, 4), np.float64, 27)
    d = cb.to_device(t)
    check(cb.linalg.vector_norm(d), np.asarray(np.linalg.norm(t.reshape(-1))))
    check(cb.linalg.vector_norm(d, axis=(1, 2), ord=1), np.abs(t).sum(axis=(1, 2)))
    check(cb.linalg.vector_norm(d, axis=-1, ord=np.inf, keepdims=True), np.abs(t).max(axis=-1, keepdims=True))
    check(cb.linalg.matrix_norm(d), np.linalg.norm(t, axis=(-2, -1)))
    check(cb.linalg.matrix_norm(d, ord=-np.inf, keepdims=True), np.linalg.norm(t, -np.inf, (-2, -1), True))
    check(cb.linalg.diagonal(d, offset=1), np.diagonal(t, 1, -2, -1))
    check(cb.linalg.trace(d), np.trace(t, 0, -2, -1))
    check(cb.linalg.matmul(d, d.mT), t @ np.swapaxes(t, -1, -2))
    with pytest.raises(ValueError):
        cb.linalg.matrix_norm(cb.to_device(np.ones(3)))
