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


def record_downloads(monkeypatch):
    """A list that gets the byte count of every copy back to the host from now on."""
    from cudabridge import _array
    sizes = []
    real = _array._core.download

    def download(block, offset, dst, stream):
        sizes.append(dst.nbytes)
        return real(block, offset, dst, stream)

    monkeypatch.setattr(_array._core, "download", download)
    return sizes
