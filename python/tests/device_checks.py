"""Checks the device-array test files share."""
import numpy as np

import cudabridge as cb


def same(got, want):
    """Device array `got` holds exactly numpy's `want`: dtype, shape and values (NaN equal to NaN)."""
    assert isinstance(got, cb.ndarray), type(got)
    host = got.get()
    want = np.asarray(want)
    assert host.dtype == want.dtype, (host.dtype, want.dtype)
    assert host.shape == want.shape, (host.shape, want.shape)
    np.testing.assert_array_equal(host, want)
