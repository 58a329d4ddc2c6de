"""DLPack round trips with numpy and torch; __cuda_array_interface__ absent on the simulator.

On the simulated GPU the export is a synchronized host copy (kDLCPU): the data must be identical,
the consumer must read the exported buffer itself (no second copy: checked by address), and
writes to it must not reach the device array. On a real GPU the export is the device memory."""
import ctypes
import sys

import numpy as np
import pytest

import cudabridge as cb
from cudabridge import _dlpack

DTYPES = [np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8]


def _simulated():
    cb.init()
    return cb.devices()[0].properties["simulated"]


pytestmark = pytest.mark.skipif(not _simulated(), reason="these tests check the simulated GPU's kDLCPU export")


class _Capsule:
    """A producer that hands out one given capsule (to see what a consumer does with it)."""

    def __init__(self, capsule, device):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


def _capsule_data_pointer(capsule):
    """DLManagedTensor.dl_tensor.data of an unconsumed "dltensor" capsule."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    managed = get(capsule, b"dltensor")
    return ctypes.c_void_p.from_address(managed).value


def test_dlpack_device(gpu):
    assert cb.zeros(3).__dlpack_device__() == (1, 0)  # kDLCPU


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_from_dlpack(gpu, dtype):
    host = (np.arange(24) * 7 % 11).astype(dtype).reshape(4, 6)
    x = cb.asarray(host)
    got = np.from_dlpack(x)
    assert got.dtype == host.dtype and got.shape == host.shape
    np.testing.assert_array_equal(got, host)


def test_numpy_reads_the_exported_buffer_without_a_copy(gpu):
    x = cb.asarray(np.arange(10, dtype=np.float32)) * 2
    capsule = x.__dlpack__()
    address = _capsule_data_pointer(capsule)
    got = np.from_dlpack(_Capsule(capsule, x.__dlpack_device__()))
    assert got.ctypes.data == address
    np.testing.assert_array_equal(got, np.arange(10, dtype=np.float32) * 2)
    # The export is a copy: the device array's address is the device's, and writes stay on the host.
    assert address != x._block.ptr
    ctypes.c_float.from_address(address).value = 99  # numpy 1.24's import is read-only
    assert got[0] == 99
    assert float(x[0]) == 0.0


def test_views_export_their_elements(gpu):
    host = np.arange(30, dtype=np.int32).reshape(5, 6)
    x = cb.asarray(host)
    for view, expect in ((x.T, host.T), (x[1:4, ::2], host[1:4, ::2]), (x[2], host[2]), (x[1, 1], host[1, 1])):
        np.testing.assert_array_equal(np.from_dlpack(view), expect)


def test_export_waits_for_queued_work(gpu):
    x = cb.ones((512, 512), np.float32)
    for _ in range(5):
        x = x + 1
    assert np.all(np.from_dlpack(x) == 6)


def test_unconsumed_capsules_release_their_copy(gpu):
    import gc
    import weakref
    x = cb.asarray(np.arange(5, dtype=np.float64))
    capsule = x.__dlpack__()
    del capsule
    gc.collect()
    # A consumed one: the consumer's deleter releases it (numpy holds it while its array lives).
    a = np.from_dlpack(x)
    base = a.base
    ref = weakref.ref(base) if base is not None and type(base).__weakrefoffset__ else None
    del a, base
    gc.collect()
    if ref is not None:
        assert ref() is None


def test_copy_false_and_other_devices_raise(gpu):
    x = cb.zeros(3)
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(copy=False)
    with pytest.raises(BufferError, match="DLPack device"):
        x.__dlpack__(dl_device=(2, 0))


def test_no_cuda_array_interface_on_the_simulator(gpu):
    x = cb.zeros(3)
    assert not hasattr(x, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="simulated"):
        x.__cuda_array_interface__


@pytest.mark.parametrize("dtype", DTYPES)
def test_cb_from_dlpack_numpy(gpu, dtype):
    host = (np.arange(20) % 9).astype(dtype).reshape(4, 5)
    got = cb.from_dlpack(host[:, 1:])
    assert isinstance(got, cb.ndarray) and got.dtype == host.dtype
    np.testing.assert_array_equal(got.get(), host[:, 1:])


def test_cb_from_dlpack_of_a_device_array_is_a_view(gpu):
    x = cb.asarray(np.arange(4, dtype=np.float32))
    y = cb.from_dlpack(x)
    assert y._block is x._block
    with pytest.raises(TypeError, match="__dlpack__"):
        cb.from_dlpack([1, 2, 3])


# ---- torch (Debian's python3-torch) ---------------------------------------------------------

try:
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not importable on " + sys.executable)


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_from_dlpack(gpu, dtype):
    host = (np.arange(24) * 5 % 13).astype(dtype).reshape(2, 3, 4)
    x = cb.asarray(host)
    t = torch.from_dlpack(x)
    assert t.device.type == "cpu" and tuple(t.shape) == host.shape
    np.testing.assert_array_equal(t.numpy(), host)
    tv = torch.from_dlpack(x.transpose(2, 0, 1))
    np.testing.assert_array_equal(tv.numpy(), host.transpose(2, 0, 1))


@needs_torch
def test_torch_reads_the_exported_buffer_without_a_copy(gpu):
    x = cb.asarray(np.linspace(0, 1, 16, dtype=np.float32))
    capsule = x.__dlpack__()
    address = _capsule_data_pointer(capsule)
    t = torch.utils.dlpack.from_dlpack(capsule)
    assert t.data_ptr() == address
    np.testing.assert_array_equal(t.numpy(), np.linspace(0, 1, 16, dtype=np.float32))


@needs_torch
def test_cb_from_dlpack_torch(gpu):
    t = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    got = cb.from_dlpack(t)
    np.testing.assert_array_equal(got.get(), t.numpy())
    got = cb.from_dlpack(t.T)
    np.testing.assert_array_equal(got.get(), t.T.numpy())
    # And back: device -> torch -> device.
    np.testing.assert_array_equal(cb.from_dlpack(torch.from_dlpack(got)).get(), t.T.numpy())


def test_dlpack_device_is_cuda_on_a_real_gpu(gpu, monkeypatch):
    """The real-GPU branch of __dlpack_device__, with the simulated flag forced off."""
    x = cb.zeros(2)
    monkeypatch.setitem(_dlpack._simulated, (cb._core.generation(), x.device), False)
    assert x.__dlpack_device__() == (2, x.device)
