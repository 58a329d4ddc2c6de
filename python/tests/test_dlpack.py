"""DLPack round trips with numpy and torch; __cuda_array_interface__ absent on the simulator.

On the simulated GPU the export is the device array's own memory, seen through BAR1 (kDLCPU),
after synchronizing: the data must be identical, the consumer must read the device array itself
(checked by address: the capsule's pointer is cbMemGetHostPointer's), and writes either side must
reach the other. Views BAR1 cannot export (negative strides) and copy=True are host copies. On a
real GPU the export is the device memory (kDLCUDA)."""
import ctypes
import sys

import numpy as np
import pytest

import cudabridge as cb
from cudabridge import _dlpack

DTYPES = [np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


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


def _bar1_address(x):
    return cb._core.host_pointer(x._block, x._offset, x.nbytes)


def test_numpy_reads_the_device_array_itself(gpu):
    x = cb.asarray(np.arange(10, dtype=np.float32)) * 2
    capsule = x.__dlpack__()
    address = _capsule_data_pointer(capsule)
    got = np.from_dlpack(_Capsule(capsule, x.__dlpack_device__()))
    assert got.ctypes.data == address == _bar1_address(x)
    np.testing.assert_array_equal(got, np.arange(10, dtype=np.float32) * 2)
    # No copy: a store through the exported address is the device array's, and a device write
    # shows in the consumer's array once the device is synchronized.
    ctypes.c_float.from_address(address).value = 99  # numpy 1.24's import is read-only
    assert float(x[0]) == 99
    x[1:3] = -7
    cb.synchronize()
    np.testing.assert_array_equal(got[:4], [99, -7, -7, 6])


def test_views_export_their_own_elements_in_place(gpu):
    x = cb.asarray(np.arange(30, dtype=np.float64).reshape(5, 6))
    view = x[1:4, 2::2]
    got = np.from_dlpack(view)
    assert got.ctypes.data == _bar1_address(x) + (1 * 6 + 2) * 8
    assert got.strides == (48, 16)
    np.testing.assert_array_equal(got, np.arange(30.0).reshape(5, 6)[1:4, 2::2])


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


@pytest.fixture()
def host_copies(monkeypatch):
    """Weak references to the host copies the exports make."""
    import weakref
    refs = []
    get = cb.ndarray.get

    def recording_get(self):
        host = get(self)
        refs.append(weakref.ref(host))
        return host

    monkeypatch.setattr(cb.ndarray, "get", recording_get)
    return refs


def test_capsules_hold_the_device_memory_until_the_consumer_lets_go(gpu, host_copies):
    x = cb.asarray(np.arange(5, dtype=np.float64))
    block = x._block
    before = sys.getrefcount(block)
    capsule = x.__dlpack__()  # never consumed: the capsule's destructor calls the deleter
    held = sys.getrefcount(block)
    assert held == before + 1 and not host_copies
    del capsule
    released = sys.getrefcount(block)
    assert released == before
    a = np.from_dlpack(x)  # consumed: numpy calls the deleter when its array goes
    del x
    held_by_numpy = sys.getrefcount(block)
    assert held_by_numpy == before
    np.testing.assert_array_equal(a, np.arange(5))
    del a
    assert sys.getrefcount(block) == before - 1


def test_copy_true_and_negative_strides_export_host_copies(gpu, host_copies):
    import gc
    x = cb.asarray(np.arange(6, dtype=np.int32))
    for producer, expect in ((lambda: x.__dlpack__(copy=True), [0, 1, 2, 3, 4, 5]),
                             (lambda: x[::-1].__dlpack__(), [5, 4, 3, 2, 1, 0])):
        capsule = producer()
        assert host_copies[-1]() is not None
        got = np.from_dlpack(_Capsule(capsule, (1, 0)))
        np.testing.assert_array_equal(got, expect)
        assert got.ctypes.data != _bar1_address(x)
        ctypes.c_int32.from_address(got.ctypes.data).value = 100  # the copy's, not the device's
        assert int(x[0]) == 0 and int(x[5]) == 5
        del capsule, got
        gc.collect()
        assert host_copies[-1]() is None  # the deleter freed the copy


def test_the_consumers_array_survives_shutdown(tmp_path):
    """After cb.shutdown() the simulated VRAM is gone; an exported array then reads zeros instead
    of crashing the process (run in a child: shutdown ends this session's runtime)."""
    import subprocess
    code = ("import cudabridge as cb, numpy as np\n"
            "cb.init()\n"
            "a = np.from_dlpack(cb.asarray(np.arange(1, 9, dtype=np.float32)))\n"
            "assert a.sum() == 36\n"
            "cb.shutdown()\n"
            "print(float(a.sum()))\n")
    env = dict(__import__("os").environ, CUDABRIDGE_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0.0"


def test_consumers_rename_the_capsule(gpu):
    name = ctypes.pythonapi.PyCapsule_GetName
    name.restype, name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    x = cb.asarray(np.arange(3, dtype=np.int32))
    capsule = x.__dlpack__()
    assert name(capsule) == b"dltensor"
    a = np.from_dlpack(_Capsule(capsule, x.__dlpack_device__()))
    assert name(capsule) == b"used_dltensor"
    del capsule  # the consumer owns the tensor now: its array stays valid
    np.testing.assert_array_equal(a, [0, 1, 2])


def test_copy_false_and_other_devices_raise(gpu):
    x = cb.zeros(3)
    assert x.__dlpack__(copy=False) is not None  # the device memory itself: no copy needed
    with pytest.raises(BufferError, match="without a copy: it has negative strides"):
        x[::-1].__dlpack__(copy=False)
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
@pytest.mark.parametrize("dtype", [d for d in DTYPES if d not in (np.uint16, np.uint32, np.uint64)])
def test_torch_from_dlpack(gpu, dtype):  # torch (Debian's) refuses kUInt wider than 8 bits
    host = (np.arange(24) * 5 % 13).astype(dtype).reshape(2, 3, 4)
    x = cb.asarray(host)
    t = torch.from_dlpack(x)
    assert t.device.type == "cpu" and tuple(t.shape) == host.shape
    np.testing.assert_array_equal(t.numpy(), host)
    tv = torch.from_dlpack(x.transpose(2, 0, 1))
    np.testing.assert_array_equal(tv.numpy(), host.transpose(2, 0, 1))


@needs_torch
def test_torch_shares_the_device_array(gpu):
    x = cb.asarray(np.linspace(0, 1, 16, dtype=np.float32))
    capsule = x.__dlpack__()
    address = _capsule_data_pointer(capsule)
    t = torch.utils.dlpack.from_dlpack(capsule)
    assert t.data_ptr() == address == _bar1_address(x)
    np.testing.assert_array_equal(t.numpy(), np.linspace(0, 1, 16, dtype=np.float32))
    t[0] = 5  # torch's tensor is writable: the store is the device array's
    t[15] += 1
    assert float(x[0]) == 5 and float(x[15]) == 2
    y = x * 2  # and the device's result, computed from torch's writes
    np.testing.assert_array_equal(torch.from_dlpack(y).numpy()[[0, 15]], [10, 4])


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


@pytest.mark.parametrize("dtype, code", [(np.float32, 2), (np.float64, 2), (np.int8, 0), (np.int64, 0),
                                         (np.uint8, 1), (np.uint16, 1), (np.uint64, 1), (np.bool_, 6)])
def test_capsule_dtype_and_shape_fields(gpu, dtype, code):
    """DLTensor's fields as the spec lays them out: device at 8, ndim at 16, dtype (code, bits, lanes) at 20,
    the shape pointer at 24."""
    x = cb.zeros((2, 3), dtype)
    capsule = x.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    t = get(capsule, b"dltensor")
    assert ctypes.c_int32.from_address(t + 8).value == 1  # kDLCPU
    assert ctypes.c_int32.from_address(t + 16).value == 2
    assert (ctypes.c_uint8.from_address(t + 20).value, ctypes.c_uint8.from_address(t + 21).value,
            ctypes.c_uint16.from_address(t + 22).value) == (code, np.dtype(dtype).itemsize * 8, 1)
    shape = ctypes.c_void_p.from_address(t + 24).value
    assert [ctypes.c_int64.from_address(shape + 8 * k).value for k in range(2)] == [2, 3]


def test_real_gpu_branch_exports_the_device_memory(gpu, monkeypatch):
    """With the simulated flag forced off: kDLCUDA, the device address itself (zero-copy), the
    Buffer kept alive by the capsule, and the CUDA array interface v3. (No consumer can read a
    simulated device address, so only the fields are checked.)"""
    import sys as _sys
    x = cb.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))[:, 1:]
    monkeypatch.setitem(_dlpack._simulated, (cb._core.generation(), x.device), False)
    block = x._block
    refs = _sys.getrefcount(block)  # (counted outside the asserts, which hold temporaries)
    capsule = x.__dlpack__(stream=None)
    held = _sys.getrefcount(block)
    assert held == refs + 1
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    t = get(capsule, b"dltensor")
    assert ctypes.c_void_p.from_address(t).value == x._block.ptr + x._offset
    assert ctypes.c_int32.from_address(t + 8).value == 2  # kDLCUDA
    strides = ctypes.c_void_p.from_address(t + 32).value
    assert [ctypes.c_int64.from_address(strides + 8 * k).value for k in range(2)] == [4, 1]
    del capsule
    released = _sys.getrefcount(block)
    assert released == refs
    cai = x.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (3, 3) and cai["typestr"] == "<f4"
    assert cai["data"] == (x._block.ptr + x._offset, False) and cai["strides"] == (16, 4)
    assert cai["stream"] is None
