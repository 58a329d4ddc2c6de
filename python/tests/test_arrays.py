"""Attributes, conversions, views (basic indexing shares memory as numpy's does), writes through
views, reshape / transpose / astype / copy, and the constructors."""
import numpy as np
import pytest

import cudabridge as cb

from test_elementwise import check


def test_attributes_and_conversions(gpu):
    x = np.arange(12, dtype=np.int16).reshape(3, 4)
    d = cb.to_device(x)
    assert (d.shape, d.dtype, d.ndim, d.size, d.nbytes, len(d)) == ((3, 4), np.int16, 2, 12, 24, 3)
    assert d.strides == x.strides
    np.testing.assert_array_equal(np.asarray(d), x)
    np.testing.assert_array_equal(np.asarray(d, dtype=np.float64), x.astype(np.float64))
    assert repr(d) == repr(x)
    assert str(d) == str(x)
    assert d.T.shape == (4, 3)
    assert d.tolist() == x.tolist()
    assert cb.to_device(np.float32(2.5)).item() == 2.5
    with pytest.raises(TypeError, match="unsized"):
        len(cb.ones(()))


def test_basic_indexing_gives_views(gpu):
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    d = cb.to_device(x)
    for key in [1, -1, (1, 2), (slice(None), 1), (Ellipsis, 2), (slice(1, None), slice(None, None, 2)),
                (slice(None, None, -1),), (None, 1), (1, None, slice(2, 4)), (0, 0, 0), (slice(5, 1),)]:
        check(d[key], np.asarray(x[key]))
    v = d[1:, ::2]
    v[...] = 0  # a write through the view lands in the parent
    x[1:, ::2] = 0
    check(d, x)
    d[0, 1] = cb.to_device(np.full(5, 7, np.float32))
    x[0, 1] = 7
    check(d, x)
    d[:, :, 0] = np.arange(4, dtype=np.float32)  # broadcast into the view
    x[:, :, 0] = np.arange(4, dtype=np.float32)
    check(d, x)
    with pytest.raises(IndexError, match="out of bounds"):
        d[3]
    with pytest.raises(IndexError, match="too many indices"):
        d[0, 0, 0, 0]
    with pytest.raises(ValueError, match="could not broadcast"):
        d[0] = np.ones((3, 3), np.float32)


def test_advanced_indexing_copies_as_numpy_does(gpu):
    x = np.arange(10, dtype=np.int32)
    d = cb.to_device(x)
    check(d[np.array([1, 3, 5])], x[[1, 3, 5]])
    check(d[d > 4], x[x > 4])
    d[d > 7] = -1
    x[x > 7] = -1
    check(d, x)


def test_reshape_transpose_astype_copy(gpu):
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    d = cb.to_device(x)
    check(d.reshape(6, 4), x.reshape(6, 4))
    check(d.reshape((4, -1)), x.reshape(4, -1))
    check(d.transpose(2, 0, 1), x.transpose(2, 0, 1))
    check(d.T.reshape(-1), x.T.reshape(-1))  # a non-contiguous source is copied first
    check(d.astype(np.int8), x.astype(np.int8))
    check(d.astype(np.bool_), x.astype(np.bool_))
    c = d.copy()
    c[0] = 0
    check(d, x)  # the copy is separate
    with pytest.raises(ValueError, match="cannot reshape"):
        d.reshape(5, 5)
    with pytest.raises(ValueError, match="axes don't match"):
        d.transpose(0, 1)


def test_constructors(gpu):
    check(cb.zeros((2, 3)), np.zeros((2, 3), np.float32))
    check(cb.ones((2, 3), np.int64), np.ones((2, 3), np.int64))
    check(cb.full((4,), 2.5), np.full(4, 2.5))
    check(cb.array([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]]))
    cb.seed(42)
    r1 = cb.from_device(cb.rand((1000,)))
    cb.seed(42)
    r2 = cb.from_device(cb.rand((1000,)))
    np.testing.assert_array_equal(r1, r2)  # counter-based: the same seed, the same numbers
    assert r1.dtype == np.float64 and 0 <= r1.min() and r1.max() < 1 and abs(r1.mean() - 0.5) < 0.05
    assert cb.rand((8, 8), np.float32).dtype == np.float32
    free, total = cb.mem_info()
    assert 0 < free <= total


@pytest.mark.parametrize("dtype", [np.longdouble, np.clongdouble, "U3", object, "M8[s]"])
def test_unsupported_dtypes_raise_type_error(gpu, dtype):
    with pytest.raises(TypeError, match="not supported|not understood"):
        cb.to_device(np.zeros(3, dtype=dtype))
    with pytest.raises(TypeError):
        cb.zeros(3, dtype=dtype)


def test_shape_errors(gpu):
    with pytest.raises(ValueError, match="could not be broadcast"):
        cb.ones((3,)) + cb.ones((4,))
    with pytest.raises(ValueError, match="negative dimensions"):
        cb.zeros((-1,))
    with pytest.raises(TypeError):
        cb.ones((2,)) + "text"
