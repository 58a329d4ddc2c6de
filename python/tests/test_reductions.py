"""sum / mean / max / min against numpy: every dtype, all axes or some, keepdims."""
import numpy as np
import pytest

import cudabridge as cb

from test_elementwise import DTYPES, check, sample  # noqa: F401


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (0, 1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction(gpu, dtype, op, axis, keepdims):
    x = sample((3, 4, 5), dtype, 11)
    want = getattr(x, op)(axis=axis, keepdims=keepdims)
    want = np.asarray(want)
    got = getattr(cb.to_device(x), op)(axis=axis, keepdims=keepdims)
    if want.dtype.kind == "f":
        g = cb.from_device(got)
        assert g.dtype == want.dtype and g.shape == want.shape
        # another summation order (float16: numpy rounds to half at every step of a strided sum)
        tol = dict(rtol=1e-2, atol=0.1) if x.dtype == np.float16 else dict(rtol=2e-5)
        np.testing.assert_allclose(g, want, **tol)
    else:
        check(got, want)


def test_reduce_by_name_and_scalars(gpu):
    x = np.arange(10, dtype=np.float32)
    d = cb.to_device(x)
    assert float(cb.reduce(d, "sum")) == 45.0
    assert float(cb.reduce(d, "mean")) == 4.5
    assert float(d.max()) == 9.0 and int(d.min()) == 0
    assert f"{d.sum():.1f}" == "45.0"
    with pytest.raises(ValueError, match="unknown reduction"):
        cb.reduce(d, "median")
    with pytest.raises(ValueError, match="zero-size array"):
        cb.zeros((0,)).max()
    # An empty array reduced along a non-empty axis is fine in numpy, and here.
    check(cb.zeros((0, 3)).max(axis=1), np.zeros((0, 3), np.float32).max(axis=1))
    with pytest.raises(ValueError, match="zero-size array"):
        cb.zeros((0, 3)).max(axis=0)
    with pytest.raises(np.AxisError):
        d.sum(axis=3)
