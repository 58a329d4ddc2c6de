"""numpy's remaining array functions on the device (_shaping.py), against numpy 1.24 on the same
inputs: diff, append, pad, the flips and rot90, the stacks and splits, resize, diag / diagflat /
tri / triu / tril, kron, cross, meshgrid, argwhere, select, put_along_axis, copyto, partition,
lexsort, nan_to_num, fix, heaviside, sinc, real_if_close, interp, polyval, vander and polyfit. Each
goes through
numpy's dispatch (np.f(device_array)) and the cb namespace, on contiguous arrays and on
non-contiguous views, over several dtypes, 0-d and empty arrays; results are device arrays of
numpy's dtype, shape and values, and bad input raises numpy's exception."""
import numpy as np
import pytest

import cudabridge as cb

from device_checks import same

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]
RTOL = {np.dtype(np.float16): 1e-3, np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-13,
        np.dtype(np.complex64): 2e-6, np.dtype(np.complex128): 1e-13}


def sample(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    values = rng.integers(-6, 7, shape)
    return np.asarray((values / 4 if np.dtype(dtype).kind == "f" else values).astype(dtype))


def device(x, view):
    """x on the device (arrays in lists and tuples too); view=True: as a non-contiguous view (every
    other element of an array twice as wide, the others holding different values)."""
    if isinstance(x, np.ndarray):
        if not view or x.ndim == 0:
            return cb.asarray(x)
        wide = np.empty(x.shape[:-1] + (2 * x.shape[-1],), x.dtype)
        wide[..., ::2] = x
        wide[..., 1::2] = ~x if x.dtype == np.bool_ else x + 1
        return cb.asarray(wide)[..., ::2]
    if isinstance(x, (list, tuple)) and any(isinstance(e, np.ndarray) for e in x):
        return type(x)(device(e, view) for e in x)
    return x


def host(x):
    """A fresh host copy of x (in-place functions write into it)."""
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, (list, tuple)):
        return type(x)(host(e) for e in x)
    return x


def match(got, want):
    """Device result `got` (or a list of them) is numpy's `want`: dtype, shape and values."""
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            match(g, w)
        return
    want = np.asarray(want)
    if want.dtype.kind not in "fc":
        same(got, want)
        return
    assert isinstance(got, cb.ndarray), type(got)
    h = got.get()
    assert (h.dtype, h.shape) == (want.dtype, want.shape), ((h.dtype, h.shape), (want.dtype, want.shape))
    np.testing.assert_allclose(h, want, rtol=RTOL[want.dtype], atol=0, equal_nan=True)


def numpy_of(fn, args):
    with np.errstate(all="ignore"):
        return fn(np, *host(args))


def run(fn, args, via=("np", "cb")):
    """fn(m, *args) with m = numpy on host data, and with m = numpy (dispatch) and m = cudabridge on
    device data, contiguous and as views: the device results match numpy's."""
    want = numpy_of(fn, args)
    for view in (False, True):
        for name in via:
            got = fn(np if name == "np" else cb, *[device(x, view) for x in args])
            match(got, want)


# ---- cases over every dtype -----------------------------------------------------------------------

def cases(dtype):
    """(id, fn(m, *arrays), arrays) for one dtype; fn is called with m = np and with m = cb."""
    a1, b1 = sample((7,), dtype), sample((7,), dtype, 5)
    a2, b2 = sample((4, 6), dtype, 1), sample((4, 6), dtype, 6)
    a3, b3 = sample((2, 3, 4), dtype, 2), sample((2, 3, 4), dtype, 7)
    s, e = sample((), dtype, 3), sample((0, 3), dtype)
    c1, c2 = sample((4, 6), np.bool_, 8), sample((4, 6), np.bool_, 9)
    idx = np.random.default_rng(4).integers(-6, 6, (4, 2))
    yield from [
        ("diff", lambda m, a: m.diff(a), [a1]),
        ("diff-axis0-n2", lambda m, a: m.diff(a, n=2, axis=0), [a2]),
        ("diff-3d-axis1", lambda m, a: m.diff(a, axis=1), [a3]),
        ("diff-n-past-length", lambda m, a: m.diff(a, n=9), [a1]),
        ("diff-n0", lambda m, a: m.diff(a, n=0), [a2]),
        ("diff-prepend-append", lambda m, a, b: m.diff(a, prepend=0, append=b), [a2, sample((4, 1), dtype)]),
        ("diff-empty", lambda m, a: m.diff(a, axis=0), [e]),
        ("append-flat", lambda m, a, b: m.append(a, b), [a2, a1]),
        ("append-axis0", lambda m, a, b: m.append(a, b, axis=0), [a2, sample((2, 6), dtype)]),
        ("append-scalar", lambda m, a: m.append(a, 5), [a1]),
        ("append-0d", lambda m, a: m.append(a, [1.5]), [s]),
        ("pad-constant", lambda m, a: m.pad(a, 2), [a1]),
        ("pad-constant-values", lambda m, a: m.pad(a, ((1, 2), (3, 0)), constant_values=((7, 8), (9, 1))), [a2]),
        ("pad-constant-pair", lambda m, a: m.pad(a, (2, 1), constant_values=5), [a2]),
        ("pad-3d", lambda m, a: m.pad(a, ((0, 1), (2, 0), (1, 1)), constant_values=(3, 4)), [a3]),
        ("pad-constant-cast", lambda m, a: m.pad(a, 1, constant_values=(2.7, -1.5)), [a2]),
        ("pad-column-widths", lambda m, a: m.pad(a, ((1,), (2,)), constant_values=-1), [a2]),
        ("pad-edge", lambda m, a: m.pad(a, ((2, 3), (1, 4)), mode="edge"), [a2]),
        ("pad-reflect", lambda m, a: m.pad(a, ((2, 3), (5, 4)), mode="reflect"), [a2]),
        ("pad-reflect-long", lambda m, a: m.pad(a, (11, 17), mode="reflect"), [a1]),
        ("pad-reflect-odd", lambda m, a: m.pad(a, ((3, 9), (2, 1)), mode="reflect", reflect_type="odd"), [a2]),
        ("pad-symmetric", lambda m, a: m.pad(a, (3, 16), mode="symmetric"), [a1]),
        ("pad-symmetric-odd", lambda m, a: m.pad(a, 5, mode="symmetric", reflect_type="odd"), [a2]),
        ("pad-wrap", lambda m, a: m.pad(a, (7, 2), mode="wrap"), [sample((4,), dtype)]),
        ("pad-wrap-2d", lambda m, a: m.pad(a, ((5, 1), (2, 13)), mode="wrap"), [a2]),
        ("pad-reflect-singleton", lambda m, a: m.pad(a, ((2, 1), (1, 0)), mode="reflect"), [sample((1, 3), dtype)]),
        ("pad-0d", lambda m, a: m.pad(a, 3), [s]),
        ("pad-empty-constant", lambda m, a: m.pad(a, 1, constant_values=2), [e]),
        ("pad-empty-edge", lambda m, a: m.pad(a, ((0, 0), (1, 1)), mode="edge"), [e]),
        ("fliplr", lambda m, a: m.fliplr(a), [a2]),
        ("fliplr-3d", lambda m, a: m.fliplr(a), [a3]),
        ("flipud", lambda m, a: m.flipud(a), [a2]),
        ("flipud-1d", lambda m, a: m.flipud(a), [a1]),
    ] + [
        (f"rot90-k{k}", lambda m, a, k=k: m.rot90(a, k), [a2]) for k in (-1, 0, 1, 2, 3, 5)
    ] + [
        ("rot90-axes10", lambda m, a: m.rot90(a, axes=(1, 0)), [a2]),
        ("rot90-3d", lambda m, a: m.rot90(a, 3, axes=(0, 2)), [a3]),
        ("rot90-3d-negative-axes", lambda m, a: m.rot90(a, 1, axes=(2, -2)), [a3]),
        ("column_stack", lambda m, a, b: m.column_stack((a, b)), [sample((4,), dtype), a2]),
        ("column_stack-0d", lambda m, a: m.column_stack([a, a]), [s]),
        ("dstack-2d", lambda m, a, b: m.dstack((a, b)), [a2, b2]),
        ("dstack-1d", lambda m, a, b: m.dstack([a, b]), [a1, b1]),
        ("dstack-3d", lambda m, a: m.dstack((a, a)), [a3]),
        ("atleast_3d-0d", lambda m, a: m.atleast_3d(a), [s]),
        ("atleast_3d-1d", lambda m, a: m.atleast_3d(a), [a1]),
        ("atleast_3d-2d", lambda m, a: m.atleast_3d(a), [a2]),
        ("atleast_3d-3d", lambda m, a: m.atleast_3d(a), [a3]),
        ("atleast_3d-several", lambda m, a, b, c: m.atleast_3d(a, b, c), [s, a1, a2]),
        ("vsplit", lambda m, a: m.vsplit(a, 2), [a2]),
        ("vsplit-indices", lambda m, a: m.vsplit(a, [1, 3, 9]), [a2]),
        ("hsplit", lambda m, a: m.hsplit(a, 3), [a2]),
        ("hsplit-1d", lambda m, a: m.hsplit(a, [2, 5]), [a1]),
        ("dsplit", lambda m, a: m.dsplit(a, 2), [a3]),
        ("dsplit-indices", lambda m, a: m.dsplit(a, [1]), [a3]),
        ("resize-grow", lambda m, a: m.resize(a, (5, 7)), [a2]),
        ("resize-int", lambda m, a: m.resize(a, 3), [a1]),
        ("resize-to-empty", lambda m, a: m.resize(a, (2, 0)), [a1]),
        ("resize-from-empty", lambda m, a: m.resize(a, (2, 3)), [e]),
        ("resize-0d", lambda m, a: m.resize(a, [2, 2]), [s]),
        ("diag-1d", lambda m, a: m.diag(a), [a1]),
        ("diag-1d-k2", lambda m, a: m.diag(a, 2), [a1]),
        ("diag-1d-k-3", lambda m, a: m.diag(a, k=-3), [a1]),
        ("diag-2d", lambda m, a: m.diag(a), [a2]),
        ("diag-2d-k1", lambda m, a: m.diag(a, 1), [a2]),
        ("diag-2d-k-2", lambda m, a: m.diag(a, -2), [a2]),
        ("diag-2d-k-far", lambda m, a: m.diag(a, 9), [a2]),
        ("diag-empty", lambda m, a: m.diag(a), [a1[:0]]),
        ("diagflat", lambda m, a: m.diagflat(a), [sample((2, 3), dtype)]),
        ("diagflat-k", lambda m, a: m.diagflat(a, k=-1), [a1]),
        ("triu", lambda m, a: m.triu(a), [a2]),
        ("triu-k", lambda m, a: m.triu(a, k=2), [a2]),
        ("tril-k", lambda m, a: m.tril(a, k=-1), [a2]),
        ("tril-stack", lambda m, a: m.tril(a, k=1), [a3]),
        ("triu-1d", lambda m, a: m.triu(a, k=-2), [a1]),
        ("tril-empty", lambda m, a: m.tril(a), [e]),
        ("kron-1d", lambda m, a, b: m.kron(a, b), [a1[:3], b1[:4]]),
        ("kron-2d", lambda m, a, b: m.kron(a, b), [a2, sample((2, 3), dtype, 3)]),
        ("kron-1d-2d", lambda m, a, b: m.kron(a, b), [a1[:3], a2]),
        ("kron-2d-1d", lambda m, a, b: m.kron(a, b), [a2, a1[:2]]),
        ("kron-3d-2d", lambda m, a, b: m.kron(a, b), [a3, sample((2, 2), dtype)]),
        ("kron-scalar", lambda m, a: m.kron(a, 3), [a2]),
        ("kron-0d", lambda m, a, b: m.kron(a, b), [s, sample((), dtype, 9)]),
        ("kron-0d-2d", lambda m, a, b: m.kron(a, b), [s, a2]),
        ("argwhere-2d", lambda m, a: m.argwhere(a), [a2]),
        ("argwhere-1d", lambda m, a: m.argwhere(a), [a1]),
        ("argwhere-3d", lambda m, a: m.argwhere(a), [a3]),
        ("argwhere-0d", lambda m, a: m.argwhere(a), [s]),
        ("argwhere-empty", lambda m, a: m.argwhere(a), [e]),
        ("select", lambda m, c, d, x, y: m.select([c, d], [x, y], 7), [c1, c2, a2, b2]),
        ("select-scalar-choice", lambda m, c, x: m.select([c], [3], default=x), [c1, a2]),
        ("select-broadcast", lambda m, c, x, y: m.select([c, c[0]], [x[0], y]), [c1, a2, b2]),
        ("put_along_axis", lambda m, a, i, v: (m.put_along_axis(a, i, v, 1), a)[1], [a2, idx, sample((4, 2), dtype)]),
        ("put_along_axis-scalar", lambda m, a, i: (m.put_along_axis(a, i, 1, -1), a)[1], [a2, idx]),
        ("put_along_axis-axis0", lambda m, a, i, v: (m.put_along_axis(a, i, v, 0), a)[1],
         [a2, np.array([[3, 0, 1, -1, 2, 0]]), sample((1, 6), dtype, 2)]),
        ("put_along_axis-broadcast", lambda m, a, i, v: (m.put_along_axis(a, i, v, 1), a)[1],
         [a2, np.array([[1, 4]]), sample((4, 1), dtype, 3)]),
        ("put_along_axis-none", lambda m, a, i, v: (m.put_along_axis(a, i, v, None), a)[1],
         [a2, np.array([0, 23, -2, 5]), sample((4,), dtype, 4)]),
        ("put_along_axis-3d", lambda m, a, i, v: (m.put_along_axis(a, i, v, 2), a)[1],
         [a3, np.zeros((2, 3, 1), np.int64) + 3, sample((2, 3, 1), dtype, 5)]),
        ("copyto", lambda m, d, x: (m.copyto(d, x), d)[1], [a2, b2]),
        ("copyto-broadcast", lambda m, d, x: (m.copyto(d, x), d)[1], [a2, b2[1]]),
        ("copyto-where", lambda m, d, x, w: (m.copyto(d, x, where=w), d)[1], [a2, b2, c1]),
        ("copyto-scalar-where", lambda m, d, w: (m.copyto(d, d.dtype.type(1), where=w), d)[1], [a2, c1[0]]),
        ("copyto-unsafe", lambda m, d, x: (m.copyto(d, x, casting="unsafe"), d)[1], [a2, sample((4, 6), np.float64)]),
        ("copyto-0d", lambda m, d, x: (m.copyto(d, x), d)[1], [s, sample((), dtype, 1)]),
        ("lexsort", lambda m, k1, k2: m.lexsort((k1, k2)), [a1, b1]),
        ("lexsort-one-key", lambda m, k: m.lexsort((k,)), [a1]),
        ("lexsort-2d-keys", lambda m, k: m.lexsort(k), [a2]),
        ("lexsort-axis0", lambda m, k1, k2: m.lexsort((k1, k2), axis=0), [a3, b3]),
        ("lexsort-2d", lambda m, k1, k2, k3: m.lexsort((k1, k2, k3)), [a2, b2, c1]),
        ("lexsort-empty", lambda m, k: m.lexsort((k, k)), [e]),
        ("lexsort-0d", lambda m, k: m.lexsort((k, k)), [s]),
    ]
    if dtype != np.bool_:  # numpy's cross subtracts: bool raises (see the errors below)
        yield from [
            ("cross-3", lambda m, a, b: m.cross(a, b), [a1[:3], b1[:3]]),
            ("cross-batch", lambda m, a, b: m.cross(a, b), [sample((5, 3), dtype), b1[:3]]),
            ("cross-2-3", lambda m, a, b: m.cross(a, b), [sample((4, 2), dtype), sample((4, 3), dtype, 1)]),
            ("cross-3-2", lambda m, a, b: m.cross(a, b), [a1[:3], b1[:2]]),
            ("cross-2-2", lambda m, a, b: m.cross(a, b), [sample((3, 2), dtype), b1[:2]]),
            ("cross-axes", lambda m, a, b: m.cross(a, b, axisa=0, axisb=1, axisc=0),
             [sample((3, 5), dtype), sample((5, 3), dtype, 1)]),
            ("cross-axis", lambda m, a, b: m.cross(a, b, axis=1), [sample((2, 3, 4), dtype), a3[:, :, :1]]),
            ("cross-empty", lambda m, a, b: m.cross(a, b), [sample((0, 3), dtype), b1[:3]]),
        ]


ALL_CASES = [(dtype, case) for dtype in DTYPES for case in cases(dtype)]


@pytest.mark.parametrize("dtype,case", ALL_CASES, ids=[f"{c[0]}-{np.dtype(d).name}" for d, c in ALL_CASES])
def test_matches_numpy(gpu, dtype, case):
    _, fn, args = case
    run(fn, args)


@pytest.mark.parametrize("dtype", DTYPES)
def test_meshgrid(gpu, dtype):
    x, y, z = sample((3,), dtype), sample((4,), dtype, 1), sample((2,), dtype, 2)
    run(lambda m, a, b: m.meshgrid(a, b), [x, y])
    run(lambda m, a, b: m.meshgrid(a, b, indexing="ij"), [x, y])
    run(lambda m, a, b, c: m.meshgrid(a, b, c), [x, y, z])
    run(lambda m, a: m.meshgrid(a), [x])
    run(lambda m, a, b: m.meshgrid(a, b), [x[:0], y])
    # sparse= and copy= are numpy's keywords (cb.meshgrid is the array API's, indexing= only).
    run(lambda m, a, b, c: m.meshgrid(a, b, c, sparse=True), [x, y, z], via=("np",))
    run(lambda m, a, b: m.meshgrid(a, b, indexing="ij", sparse=True, copy=False), [x, y], via=("np",))
    run(lambda m, a, b: m.meshgrid(a, b, copy=False), [x, y], via=("np",))


@pytest.mark.parametrize("args", [(3,), (3, 5), (4, 2, 1), (4, 4, -2), (0,), (3, 3, 7), (2, None, -5)])
@pytest.mark.parametrize("dtype", [None, np.float32, np.int32, np.bool_])
def test_tri(gpu, args, dtype):
    kwargs = {} if dtype is None else {"dtype": dtype}
    match(cb.tri(*args, **kwargs), np.tri(*args, **kwargs))
    like = cb.zeros(1)
    match(np.tri(*args, like=like, **kwargs), np.tri(*args, **kwargs))  # numpy's like= dispatches


# ---- partial sorts --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kth,axis", [(3, -1), ([0, 5], -1), (-1, -1), (2, 0), (np.array([1, 2]), 0), (10, None)])
def test_partition_is_a_sort(gpu, dtype, kth, axis):
    """A full sort is a valid partition: each kth element in its sorted place, the smaller before
    it, the larger after. The device's result is the sort; numpy's (another valid one) is checked
    against it at kth."""
    a = sample((4, 6), dtype)
    for view in (False, True):
        for m in (np, cb):
            d = device(a, view)
            got = m.partition(d, kth, axis=axis)
            want = np.sort(a, axis=axis)
            match(got, want)
            ref = np.partition(a, kth, axis=axis)
            ax = -1 if axis is None else axis
            for k in np.atleast_1d(kth):
                np.testing.assert_array_equal(np.take(got.get(), k, ax), np.take(ref, k, ax))
            order = m.argpartition(d, kth, axis=axis)
            match(order, np.argsort(a, axis=axis, kind="stable"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_partition_and_lexsort_put_nan_last(gpu, dtype):
    a = np.array([3, np.nan, -1, 2, np.nan, 0], dtype)
    run(lambda m, x: m.partition(x, 2), [a])
    run(lambda m, x, y: m.lexsort((x, y)), [a, np.array([1, 1, 1, 0, 0, 0], dtype)])


# ---- elementwise ----------------------------------------------------------------------------------

SPECIAL = [0.0, -0.0, 1.5, -2.5, np.nan, np.inf, -np.inf, 3.0, -0.5, 1e30]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_to_num(gpu, dtype):
    a = np.array(SPECIAL, dtype).reshape(2, 5)
    run(lambda m, x: m.nan_to_num(x), [a])
    with np.errstate(over="ignore"):  # -1e300 overflows float32: numpy's cast warns, and so does this one
        run(lambda m, x: m.nan_to_num(x, nan=-9, posinf=7.5, neginf=-1e300), [a])
    run(lambda m, x: m.nan_to_num(x, nan=np.inf), [a])
    run(lambda m, x: m.nan_to_num(x), [np.asarray(a[0, 4])])
    run(lambda m, x: m.nan_to_num(x), [a[:0]])
    for m in (np, cb):
        d = cb.asarray(a)
        got = m.nan_to_num(d, copy=False, nan=1.0)
        match(d, np.nan_to_num(a, nan=1.0))  # in place
        match(got, np.nan_to_num(a, nan=1.0))
        d = cb.asarray(a)
        m.nan_to_num(d, nan=1.0)
        match(d, a)  # copy=True leaves the input alone


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.int32, np.int64, np.bool_])
def test_nan_to_num_other_dtypes(gpu, dtype):
    if np.dtype(dtype).kind == "c":
        re = np.array(SPECIAL, np.float64)
        a = np.empty(re.shape, dtype)
        a.real, a.imag = re, np.roll(re, 3)
    else:
        a = sample((2, 5), dtype)
    run(lambda m, x: m.nan_to_num(x), [a])
    run(lambda m, x: m.nan_to_num(x, nan=2, posinf=3, neginf=-3), [a])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.int16])
def test_fix(gpu, dtype):
    a = (np.array(SPECIAL[:8] + [-7.9, 7.9]) if np.dtype(dtype).kind == "f" else np.arange(-5, 5)).astype(dtype)
    run(lambda m, x: m.fix(x), [a])
    run(lambda m, x: m.fix(x), [a.reshape(2, 5)])
    run(lambda m, x: m.fix(x), [np.asarray(a[3])])
    run(lambda m, x: m.fix(x), [a[:0]])
    want = np.fix(a)
    for m in (np, cb):
        out = cb.zeros(a.shape, np.float64)
        assert m.fix(cb.asarray(a), out=out) is out
        match(out, want.astype(np.float64))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_])
def test_sinc(gpu, dtype):
    a = np.array([0, 1, -2, 0.5, 3.25, -0.25, 1e-3, 7], np.float64).astype(dtype)
    run(lambda m, x: m.sinc(x), [a])
    run(lambda m, x: m.sinc(x), [a.reshape(2, 4)])
    run(lambda m, x: m.sinc(x), [np.asarray(a[2])])
    run(lambda m, x: m.sinc(x), [a[:0]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.int8, np.bool_])
def test_heaviside(gpu, dtype):
    """cb.heaviside and np.heaviside (a ufunc, handed over by numpy's ufunc protocol)."""
    a = np.array([-1.5, 0, 2, 0, -0.0, 3, 1, -7], np.float64).astype(dtype)
    h = np.array([0.5, 0.25, 1, 0, 2, 3, 4, 5], np.float64).astype(dtype)
    run(lambda m, x, y: m.heaviside(x, y), [a, h])
    run(lambda m, x: m.heaviside(x, 0.5), [a.reshape(2, 4)])
    run(lambda m, x, y: m.heaviside(x, y), [a.reshape(8, 1), h[:3]])
    if np.dtype(dtype).kind == "f":
        run(lambda m, x: m.heaviside(x, np.nan), [np.array([np.nan, 0, -np.inf, np.inf], dtype)])


def test_heaviside_out_and_dispatch(gpu):
    a = np.array([-1.0, 0, 2])
    out = cb.zeros(3, np.float64)
    assert cb.heaviside(cb.asarray(a), 0.5, out=out) is out
    match(out, np.heaviside(a, 0.5))
    out2 = cb.zeros(3, np.float64)
    assert np.heaviside(cb.asarray(a), 0.5, out=out2) is out2  # the ufunc protocol hands it over
    match(out2, np.heaviside(a, 0.5))
    with pytest.raises(TypeError):
        cb.heaviside(cb.asarray(a.astype(np.complex128)), 0.5)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_real_if_close(gpu, dtype):
    eps = np.finfo(dtype).eps
    close = (np.arange(6) + 1j * eps * np.array([0, 1, -50, 99, 2, 0])).astype(dtype)
    far = close.copy()
    far[3] += 1e-3j
    for a in (close, far, close.reshape(2, 3), close[:0], np.asarray(close[2])):
        run(lambda m, x: m.real_if_close(x), [a])
    run(lambda m, x: m.real_if_close(x, tol=1e-2), [far])
    run(lambda m, x: m.real_if_close(x, tol=0.5), [far])


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_real_if_close_returns_a_real_input(gpu, dtype):
    d = cb.asarray(sample((3,), dtype))
    assert cb.real_if_close(d) is d
    assert np.real_if_close(d) is d


# ---- interp and polyval ---------------------------------------------------------------------------

X = np.array([-3, -1, 0, 0.5, 1, 1.5, 2, 2.25, 3, 4, 9, np.nan, 5.5, 6, 6.5, -0.25])
XP = np.array([-1, 0, 1, 2, 3, 4, 6])
FP = np.array([5, -2, 0.5, 0.5, 3, 1e3, -7])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_interp(gpu, dtype):
    x, xp, fp = X if np.dtype(dtype).kind == "f" else X[:11].astype(dtype), XP.astype(dtype), FP
    run(lambda m, a: m.interp(a, list(xp), list(fp)), [x])
    run(lambda m, a, b, c: m.interp(a, b, c), [x, xp, fp.astype(np.float32)])
    run(lambda m, a, b, c: m.interp(a, b, c, left=-100, right=np.float32(100)), [x.reshape(-1, 1), xp, fp])
    run(lambda m, a, b, c: m.interp(a, b, c, period=5), [x, xp, fp])
    run(lambda m, a, b, c: m.interp(a, b, c), [np.asarray(x[3]), xp, fp])  # 0-d
    run(lambda m, a, b, c: m.interp(a, b, c), [x[:0], xp, fp])
    run(lambda m, a, b, c: m.interp(a, b, c), [x, xp[:1], fp[:1]])  # one point
    run(lambda m, a, b, c: m.interp(a, b, c), [x, xp[:2], fp[:2]])


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # assert_allclose's of infinities
def test_interp_special_values(gpu):
    xp = np.array([0, 1, 1, 2, 3, 4.0])  # a repeated point
    fp = np.array([0, np.inf, 1, -np.inf, np.nan, 2])
    x = np.array([0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, -np.inf, np.inf])
    run(lambda m, a, b, c: m.interp(a, b, c), [x, xp, fp])
    fc = (fp + 1j * np.arange(6)).astype(np.complex128)
    run(lambda m, a, b, c: m.interp(a, b, c), [x, xp, fc])
    run(lambda m, a, b, c: m.interp(a, b, c, left=1j, right=-2), [x - 1, xp, fc])
    run(lambda m, a, b, c: m.interp(a, b, c, period=2.5), [x, xp, fc])


@pytest.mark.parametrize("dtype", DTYPES)
def test_polyval(gpu, dtype):
    x = sample((3, 4), dtype)
    run(lambda m, a: m.polyval([1.5, -2, 0.25], a), [x])
    run(lambda m, a: m.polyval(np.array([3, 0, -1, 2]), a), [x])
    run(lambda m, a: m.polyval([2], a), [np.asarray(x[0, 0])])
    run(lambda m, a: m.polyval([], a), [x])
    run(lambda m, p, a: m.polyval(p, a), [sample((4,), dtype, 1), x])  # device coefficients, same dtype
    run(lambda m, p, a: m.polyval(p, a), [np.array([0.5, -1, 2]), x.astype(np.float64)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_vander(gpu, dtype):
    x = sample((5,), dtype, 3)
    run(lambda m, a: m.vander(a), [x])
    run(lambda m, a: m.vander(a, 3), [x])
    run(lambda m, a: m.vander(a, 4, increasing=True), [x])
    run(lambda m, a: m.vander(a, 0), [x])
    run(lambda m, a: m.vander(a, 1), [x])
    run(lambda m, a: m.vander(a), [x[:0]])
    with pytest.raises(ValueError, match="one-dimensional"):
        cb.vander(cb.ones((2, 2)))


def polyfit_data(dtype, columns=None):
    rng = np.random.default_rng(31)
    x = np.linspace(-2, 3, 25)
    y = 0.5 * x ** 3 - x ** 2 + 2 * x - 1 + 0.05 * rng.standard_normal(25)
    if columns:
        y = np.stack([y * (k + 1) + k for k in range(columns)], axis=1)
    return x.astype(dtype), y.astype(dtype)


def fits(fn, args, rtol):
    """fn(m, *args) on the device (dispatch and cb, contiguous and views) against numpy: dtypes and
    shapes equal, values within rtol of the largest (a fit's last digits hang on the algorithm:
    LAPACK's SVD there, Jacobi rotations here; float32 data leaves float32's)."""
    want = fn(np, *host(args))
    want = list(want) if isinstance(want, tuple) else [want]
    for view in (False, True):
        for m in (np, cb):
            got = fn(m, *[device(x, view) for x in args])
            got = list(got) if isinstance(got, tuple) else [got]
            assert len(got) == len(want)
            for g, w in zip(got, want):
                w = np.asarray(w)
                h = g.get() if isinstance(g, cb.ndarray) else np.asarray(g)
                assert (h.dtype, h.shape) == (w.dtype, w.shape), ((h.dtype, h.shape), (w.dtype, w.shape))
                np.testing.assert_allclose(h, w, rtol=rtol, atol=rtol * float(np.abs(w).max(initial=0)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("deg", [0, 1, 3, 5])
@pytest.mark.parametrize("columns", [None, 2])
def test_polyfit(gpu, dtype, deg, columns):
    x, y = polyfit_data(dtype, columns)
    rtol = 1e-6 if dtype == np.float32 else 1e-10
    fits(lambda m, a, b: m.polyfit(a, b, deg), [x, y], rtol)
    fits(lambda m, a, b, w: m.polyfit(a, b, deg, w=w), [x, y, np.linspace(0.5, 2, 25)], rtol)


def test_polyfit_full_and_covariance(gpu):
    x, y = polyfit_data(np.float64)
    x2, y2 = polyfit_data(np.float64, 3)
    fits(lambda m, a, b: m.polyfit(a, b, 3, full=True), [x, y], 1e-10)  # c, residuals, rank, s, rcond
    fits(lambda m, a, b: m.polyfit(a, b, 2, cov=True), [x, y], 1e-10)
    fits(lambda m, a, b: m.polyfit(a, b, 2, cov=True), [x2, y2], 1e-10)
    fits(lambda m, a, b: m.polyfit(a, b, 2, cov="unscaled"), [x, y], 1e-10)


def test_polyfit_warns_and_refuses_as_numpy(gpu):
    with pytest.warns(np.RankWarning, match="poorly conditioned"):
        cb.polyfit(cb.ones(5, np.float64), cb.arange(5, dtype=np.float64), 2)
    d = cb.arange(4, dtype=np.float64)
    for call, error, text in [(lambda: cb.polyfit(d, d, -1), ValueError, "deg >= 0"),
                              (lambda: cb.polyfit(d.reshape(2, 2), d, 1), TypeError, "1D vector for x"),
                              (lambda: cb.polyfit(d[:0], d[:0], 1), TypeError, "non-empty"),
                              (lambda: cb.polyfit(d, d.reshape(1, 2, 2), 1), TypeError, "1D or 2D"),
                              (lambda: cb.polyfit(d, d[:3], 1), TypeError, "same length"),
                              (lambda: cb.polyfit(d, d, 1, w=d.reshape(2, 2)), TypeError, "1-d array for weights"),
                              (lambda: cb.polyfit(d, d, 3, cov=True), ValueError, "must exceed order")]:
        with pytest.raises(error, match=text):
            call()


# ---- views, dispatch and what is refused -----------------------------------------------------------

def shares_memory(view, base):
    before = base.get().copy()
    view[...] = 9
    return not np.array_equal(before, base.get())


@pytest.mark.parametrize("make", [lambda m, d: m.fliplr(d), lambda m, d: m.flipud(d), lambda m, d: m.rot90(d),
                                  lambda m, d: m.diag(d, 1), lambda m, d: m.vsplit(d, 2)[1],
                                  lambda m, d: m.hsplit(d, [1])[1], lambda m, d: m.atleast_3d(d)])
def test_views_where_numpy_gives_views(gpu, make):
    for m in (np, cb):
        d = cb.asarray(np.arange(12.0).reshape(3, 4)[:2])
        assert shares_memory(make(m, d), d)


def test_copyto_into_an_overlapping_view_and_host_dst(gpu):
    a = np.arange(8.0)
    d = cb.asarray(a)
    np.copyto(d[1:], d[:-1])
    np.copyto(a[1:], a[:-1])
    match(d, a)
    with pytest.raises(TypeError, match="cudabridge.ndarray"):
        np.copyto(np.zeros(8), d)  # no silent copy into host memory
    with pytest.raises(TypeError, match="cudabridge.ndarray"):
        cb.put_along_axis(np.zeros((2, 2)), np.zeros((2, 1), np.int64), 1, 1)


def test_copyto_casting_follows_numpy(gpu):
    d = cb.zeros(3, np.int8)
    np.copyto(d, 300)  # a Python int: same_kind, wraps as numpy's
    match(d, np.full(3, 44, np.int8))
    np.copyto(d, cb.asarray(np.array([1, 2, 3], np.int16)), casting="same_kind")
    match(d, np.array([1, 2, 3], np.int8))
    np.copyto(d, np.int64(5), casting="safe")  # value-based for host scalars, as numpy 1.24
    match(d, np.full(3, 5, np.int8))


def test_pad_empty_mode_and_refused_modes(gpu):
    d = cb.asarray(np.arange(6.0).reshape(2, 3))
    got = np.pad(d, ((1, 2), (0, 3)), mode="empty")
    assert isinstance(got, cb.ndarray) and (got.shape, got.dtype) == ((5, 6), np.float64)
    match(got[1:3, 0:3], np.arange(6.0).reshape(2, 3))
    for mode in ("mean", "linear_ramp", "maximum", np.pad):  # numpy's, not done on the device: refused
        with pytest.raises(TypeError, match="device"):
            np.pad(d, 1, mode=mode)
    match(cb.pad(d, cb.asarray(np.array([1, 2])), constant_values=cb.asarray(np.array([5.0, 6.0]))),
          np.pad(np.arange(6.0).reshape(2, 3), (1, 2), constant_values=(5, 6)))


def test_lexsort_of_a_list_is_numpys_own_business(gpu):
    """numpy's lexsort dispatches on a tuple of keys or one array, not on a list: a tuple of device
    arrays (or cb.lexsort) stays on the device."""
    k = cb.asarray(np.array([2, 1, 2, 0]))
    match(np.lexsort((k, k)), np.array([3, 1, 0, 2]))
    match(cb.lexsort([k, k]), np.array([3, 1, 0, 2]))


def _e(fn, *args):
    return fn, list(args)


ERRORS = {
    "diff-0d": _e(lambda m, a: m.diff(a), np.float64(1.0).reshape(())),
    "diff-negative-n": _e(lambda m, a: m.diff(a, n=-1), np.arange(3)),
    "diff-axis": _e(lambda m, a: m.diff(a, axis=2), np.arange(6).reshape(2, 3)),
    "diff-prepend-shape": _e(lambda m, a, b: m.diff(a, prepend=b), np.arange(3), np.zeros((2, 2))),
    "append-0d-axis": _e(lambda m, a: m.append(a, [1], axis=0), np.array(1.0)),
    "append-shapes": _e(lambda m, a, b: m.append(a, b, axis=1), np.zeros((2, 3)), np.zeros((3, 1))),
    "pad-mode": _e(lambda m, a: m.pad(a, 1, mode="foo"), np.arange(3)),
    "pad-keyword": _e(lambda m, a: m.pad(a, 1, mode="edge", constant_values=3), np.arange(3)),
    "pad-float-width": _e(lambda m, a: m.pad(a, 2.0), np.arange(3)),
    "pad-negative-width": _e(lambda m, a: m.pad(a, (1, -1)), np.arange(3)),
    "pad-width-shape": _e(lambda m, a: m.pad(a, [[1, 2], [3, 4]]), np.arange(3)),
    "pad-empty-axis": _e(lambda m, a: m.pad(a, 1, mode="wrap"), np.zeros((0, 3))),
    "fliplr-1d": _e(lambda m, a: m.fliplr(a), np.arange(3)),
    "flipud-0d": _e(lambda m, a: m.flipud(a), np.array(3)),
    "rot90-same-axes": _e(lambda m, a: m.rot90(a, axes=(0, -2)), np.zeros((2, 3))),
    "rot90-one-axis": _e(lambda m, a: m.rot90(a, axes=(0,)), np.zeros((2, 3))),
    "rot90-axis-range": _e(lambda m, a: m.rot90(a, axes=(0, 3)), np.zeros((2, 3))),
    "column_stack-rows": _e(lambda m, a, b: m.column_stack((a, b)), np.zeros(3), np.zeros(4)),
    "vsplit-1d": _e(lambda m, a: m.vsplit(a, 1), np.arange(4)),
    "vsplit-uneven": _e(lambda m, a: m.vsplit(a, 3), np.zeros((4, 2))),
    "hsplit-0d": _e(lambda m, a: m.hsplit(a, 1), np.array(1)),
    "dsplit-2d": _e(lambda m, a: m.dsplit(a, 1), np.zeros((2, 2))),
    "resize-negative": _e(lambda m, a: m.resize(a, (-1, 2)), np.arange(3)),
    "diag-3d": _e(lambda m, a: m.diag(a), np.zeros((2, 2, 2))),
    "diag-0d": _e(lambda m, a: m.diag(a), np.array(1.0)),
    "triu-0d": _e(lambda m, a: m.triu(a), np.array(1.0)),
    "tril-0d": _e(lambda m, a: m.tril(a), np.array(1.0)),
    "cross-size": _e(lambda m, a, b: m.cross(a, b), np.zeros(4), np.zeros(3)),
    "cross-axisa": _e(lambda m, a, b: m.cross(a, b, axisa=2), np.zeros(3), np.zeros(3)),
    "cross-axisc": _e(lambda m, a, b: m.cross(a, b, axisc=3), np.zeros((2, 3)), np.zeros((2, 3))),
    "cross-bool": _e(lambda m, a, b: m.cross(a, b), np.ones(3, bool), np.ones(3, bool)),
    "cross-bool-2": _e(lambda m, a, b: m.cross(a, b), np.ones(2, bool), np.ones(2, bool)),
    "cross-bool-2-3": _e(lambda m, a, b: m.cross(a, b), np.ones(2, bool), np.ones(3, bool)),
    "cross-broadcast": _e(lambda m, a, b: m.cross(a, b), np.zeros((2, 3)), np.zeros((4, 3))),
    "meshgrid-indexing": _e(lambda m, a: m.meshgrid(a, indexing="q"), np.arange(3)),
    "select-lengths": _e(lambda m, c: m.select([c], []), np.array([True])),
    "select-empty": _e(lambda m, a: m.select([], [], default=a), np.array([1])),
    "select-not-bool": _e(lambda m, c: m.select([c], [c]), np.array([1, 0])),
    "select-shape": _e(lambda m, c, d: m.select([c, d], [1, 2]), np.array([True, False]), np.ones(3, bool)),
    "put_along_axis-float": _e(lambda m, a, i: m.put_along_axis(a, i, 1, 1), np.zeros((2, 3)), np.zeros((2, 1))),
    "put_along_axis-ndim": _e(lambda m, a, i: m.put_along_axis(a, i, 1, 1), np.zeros((2, 3)), np.array([0])),
    "put_along_axis-bounds": _e(lambda m, a, i: m.put_along_axis(a, i, 1, 1), np.zeros((2, 3)), np.array([[3]])),
    "put_along_axis-values": _e(lambda m, a, i: m.put_along_axis(a, i, np.ones(3), 1), np.zeros((2, 3)),
                                np.array([[0, 1]])),
    "put_along_axis-index-shape": _e(lambda m, a, i: m.put_along_axis(a, i, 1, 1), np.zeros((2, 3)),
                                     np.zeros((3, 2), np.int64)),
    "put_along_axis-axis": _e(lambda m, a, i: m.put_along_axis(a, i, 1, 2), np.zeros((2, 3)), np.array([[0]])),
    "copyto-same-kind": _e(lambda m, d, s: m.copyto(d, s), np.zeros(3, np.int32), np.ones(3)),
    "copyto-safe": _e(lambda m, d, s: m.copyto(d, s, casting="safe"), np.zeros(3, np.int32), np.ones(3, np.int64)),
    "copyto-float-scalar": _e(lambda m, d: m.copyto(d, 1.5), np.zeros(3, np.int8)),
    "copyto-shape": _e(lambda m, d, s: m.copyto(d, s), np.zeros(3), np.ones(2)),
    "copyto-where-dtype": _e(lambda m, d, w: m.copyto(d, 1.0, where=w), np.zeros(3), np.array([1, 0, 1])),
    "copyto-where-shape": _e(lambda m, d, w: m.copyto(d, 1.0, where=w), np.zeros(3), np.array([True, False])),
    "copyto-casting": _e(lambda m, d, s: m.copyto(d, s, casting="nope"), np.zeros(3), np.ones(3)),
    "partition-kth": _e(lambda m, a: m.partition(a, 5), np.arange(5)),
    "partition-negative-kth": _e(lambda m, a: m.partition(a, [1, -6]), np.arange(5)),
    "partition-float-kth": _e(lambda m, a: m.partition(a, 2.0), np.arange(5)),
    "partition-2d-kth": _e(lambda m, a: m.partition(a, [[1]]), np.arange(5)),
    "partition-kind": _e(lambda m, a: m.partition(a, 1, kind="quicksort"), np.arange(5)),
    "partition-order": _e(lambda m, a: m.partition(a, 1, order="x"), np.arange(5)),
    "partition-0d": _e(lambda m, a: m.partition(a, 0), np.array(1.0)),
    "partition-axis": _e(lambda m, a: m.partition(a, 0, axis=1), np.arange(5)),
    "argpartition-kth": _e(lambda m, a: m.argpartition(a, 4, axis=0), np.zeros((3, 2))),
    "argpartition-kind": _e(lambda m, a: m.argpartition(a, 0, kind="x"), np.arange(5)),
    "lexsort-no-keys": _e(lambda m, a: m.lexsort(a), np.zeros((0, 3))),
    "lexsort-shapes": _e(lambda m, a, b: m.lexsort((a, b)), np.arange(3), np.arange(4)),
    "lexsort-axis": _e(lambda m, a: m.lexsort((a,), axis=1), np.arange(3)),
    "fix-complex": _e(lambda m, a: m.fix(a), np.ones(2, np.complex128)),
    "fix-out-dtype": _e(lambda m, a, o: m.fix(a, out=o), np.arange(3), np.zeros(3, np.int64)),
    "interp-empty": _e(lambda m, a, xp, fp: m.interp(a, xp, fp), np.ones(2), np.zeros(0), np.zeros(0)),
    "interp-lengths": _e(lambda m, a, xp, fp: m.interp(a, xp, fp), np.ones(2), np.arange(3.0), np.arange(2.0)),
    "interp-2d": _e(lambda m, a, xp: m.interp(a, xp, xp), np.ones(2), np.ones((2, 2))),
    "interp-0d": _e(lambda m, a, xp: m.interp(a, xp, [1.0]), np.ones(2), np.array(1.0)),
    "interp-period": _e(lambda m, a: m.interp(a, [1, 2], [1, 2], period=0), np.ones(2)),
    "interp-period-2d": _e(lambda m, a, xp: m.interp(a, xp, xp, period=1), np.ones(2), np.ones((2, 2))),
    "interp-complex-x": _e(lambda m, a: m.interp(a, [1, 2], [1, 2]), np.ones(2, np.complex128)),
    "polyval-0d": _e(lambda m, p, x: m.polyval(p, x), np.array(3.0), np.arange(3.0)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_bad_input_raises_numpys_exception(gpu, name):
    fn, args = ERRORS[name]
    with pytest.raises(Exception) as numpy_error:
        numpy_of(fn, args)
    # numpy's public exception (its private UFuncTypeError subclasses reduce to TypeError).
    kind = next(k for k in numpy_error.type.__mro__ if k is np.AxisError or k.__module__ == "builtins")
    for view in (False, True):
        for m in (np, cb):
            if m is cb and name.startswith(("triu", "tril")):
                continue  # cb.triu / cb.tril are the array API's (below)
            with pytest.raises(kind):
                fn(m, *[device(x, view) for x in args])


def test_limits_of_the_device(gpu):
    """kron past 4-D (its 2N-dimensional product folds onto the kernels' 8) up to numpy's 32
    dimensions, and cb.triu / cb.tril of a 0-d array (the array API's: ValueError)."""
    a, b = sample((2, 1, 3, 2, 2), np.float64), sample((3, 2, 1, 2, 2), np.float64, 1)
    same(np.kron(cb.asarray(a), cb.asarray(b)), np.kron(a, b))
    with pytest.raises(ValueError, match="32"):
        np.kron(cb.zeros((1,) * 17), cb.zeros((1,) * 17))
    with pytest.raises(ValueError):
        cb.triu(cb.asarray(np.array(1.0)))


def test_nothing_comes_back_to_the_host_but_data_dependent_shapes(gpu, monkeypatch):
    """Only argwhere's row count and real_if_close's one flag are read back (and, here, nothing
    else): the results stay on the device."""
    from device_checks import record_downloads
    a = cb.asarray(sample((4, 6), np.float64))
    v = cb.asarray(sample((3,), np.float64, 1))
    k = cb.asarray(sample((4, 6), np.int64, 2))
    c = cb.asarray(sample((4, 6), np.bool_, 3))
    z = cb.asarray(np.array([1 + 1e-20j, 2]))
    downloads = record_downloads(monkeypatch)
    np.diff(a, 2, prepend=0)
    np.append(a, v)
    for mode in ("constant", "edge", "wrap", "reflect", "symmetric"):
        np.pad(a, ((2, 9), (7, 1)), mode=mode)
    np.rot90(a), np.column_stack((a, a)), np.dstack((a, a)), np.hsplit(a, 2), np.resize(a, (5, 9))
    np.diag(v, 1), np.diagflat(a), np.tri(4, like=a), np.triu(a, 1), np.kron(a, v), np.cross(v, v)
    np.meshgrid(v, v), np.select([c], [a], 3), np.partition(a, 2), np.argpartition(a, [1, 3])
    np.lexsort((a, k, c)), np.nan_to_num(a), np.fix(a), np.sinc(a), cb.heaviside(a, 0.5)
    np.interp(a, v, v), np.interp(a, v, v, period=2), np.polyval(v, a), np.polyval([1, 2], a)
    np.copyto(a, k, where=c, casting="unsafe")
    assert downloads == []
    np.argwhere(c)
    assert downloads == [8]  # the row count
    downloads.clear()
    np.real_if_close(z)
    assert downloads == [1]  # the flag that decides the dtype
