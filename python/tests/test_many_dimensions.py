"""Arrays of more dimensions than a kernel's descriptor holds (8), up to numpy's 32: reshapes,
views and indexing are metadata; elementwise operations, copies, fills and reductions fold the
dimensions onto the kernels' 8 (or loop over the leading ones), and what composes them works too
(argmax, cumsum, var); other kernels (sort, matmul, take) refuse such an array with ValueError. Each result against numpy 1.24 on the
same input."""
import numpy as np
import pytest

import cudabridge as cb

from device_checks import same

pytestmark = pytest.mark.usefixtures("gpu")

SHAPE = (2, 3, 2, 2, 1, 2, 3, 1, 2, 2, 2)  # 11 dimensions, two of length 1
X = (np.arange(int(np.prod(SHAPE))) % 7).astype(np.float32).reshape(SHAPE)


def strided(x):
    return x.T  # no two neighbouring dimensions merge: the leading ones are looped over


CASES = [
    ("exp", lambda m, x: m.exp(x)),
    ("add", lambda m, x: x + x),
    ("broadcast trailing", lambda m, x: x + x[0, 0]),
    ("broadcast inner", lambda m, x: x * x[:, :1]),
    ("scalar", lambda m, x: x * 2),
    ("transposed", lambda m, x: strided(x) + 1),
    ("transposed pair", lambda m, x: strided(x) - strided(x)[::-1]),
    ("sliced", lambda m, x: x[:, ::2, :, ::-1] - 1),
    ("compare", lambda m, x: x > 3),
    ("where", lambda m, x: m.where(x > 3, x, 0)),
    ("astype", lambda m, x: x.astype(np.int16)),
    ("complex", lambda m, x: m.sqrt(x.astype(np.complex64))),
    ("copy of a transpose", lambda m, x: strided(x).copy()),
    ("sum", lambda m, x: m.sum(x)),
    ("max of a transpose", lambda m, x: m.max(strided(x))),
    ("mean", lambda m, x: m.mean(x)),
    ("any", lambda m, x: m.any(x > 5)),
    ("sum along axes", lambda m, x: m.sum(x, axis=(0, 4, 9))),
    ("max along the last, kept", lambda m, x: m.max(strided(x), axis=-1, keepdims=True)),
    ("std along one", lambda m, x: m.std(x, axis=3)),
    ("all along one", lambda m, x: m.all(x > 0, axis=1)),
    ("argmax along one", lambda m, x: m.argmax(x, axis=0)),
    ("cumsum along one", lambda m, x: m.cumsum(x, axis=-2)),
    ("element", lambda m, x: x[1, 2, 1, 0, 0, 1, 2, 0, 1, 0, 1]),
    ("row", lambda m, x: x[1]),
    ("mask", lambda m, x: x[x > 4]),
    ("reshape to 12", lambda m, x: m.reshape(x, (1,) + SHAPE)),
    ("expand_dims", lambda m, x: m.expand_dims(x, (0, 5))),
    ("outer tensordot", lambda m, x: m.tensordot(x[0, 0, 0, 0, 0], x[1, 1, 1, 1, 0, 0], axes=0)),
]


@pytest.mark.parametrize("name,op", CASES, ids=[c[0] for c in CASES])
def test_against_numpy(name, op):
    got = op(cb, cb.to_device(X))
    want = op(np, X)
    if name in ("exp", "complex"):
        np.testing.assert_allclose(got.get(), want, rtol=2e-6)
        assert got.dtype == want.dtype and got.shape == want.shape
    else:
        same(got, np.asarray(want))


@pytest.mark.parametrize("make,args", [("zeros", ()), ("ones", (np.int8,)), ("empty", ())])
def test_creation(make, args):
    shape = (2, 1, 3, 1, 1, 1, 1, 1, 1, 2)
    got = getattr(cb, make)(shape, *args)
    assert got.shape == shape
    if make != "empty":
        same(got, getattr(np, make)(shape, *(args or (np.float32,))))
    same(cb.full((2,) * 9, 3.5), np.full((2,) * 9, 3.5))


def test_assignment():
    d = cb.to_device(X)
    d[...] = 7
    same(d, np.full_like(X, 7))
    d = cb.to_device(X)
    d[0] = cb.to_device(X[1])
    d[1][X[1] > 3] = -1
    want = X.copy()
    want[0] = X[1]
    want[1][X[1] > 3] = -1
    same(d, want)
    d += 1
    same(d, want + 1)


def test_limits():
    with pytest.raises(ValueError, match="maximum supported dimension for an ndarray is 32, found 33"):
        cb.zeros((1,) * 33)
    with pytest.raises(ValueError, match="at most 8 dimensions"):
        cb.sort(cb.to_device(X), axis=0)  # a sort is not folded
    assert repr(cb.zeros((1,) * 9)) == repr(np.zeros((1,) * 9, np.float32))
