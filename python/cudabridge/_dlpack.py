"""Interop with the CPU and GPU stacks: DLPack (x.__dlpack__, x.__dlpack_device__, cb.from_dlpack)
and the CUDA array interface (v3, real GPUs only).

On a real GPU an array exports its device memory, zero-copy, as a kDLCUDA tensor. On the simulated
GPU the array's memory is the simulator's VRAM, which lives in this process: the export
synchronizes the device and hands out the array's bytes at the host address the GPU's BAR1
aperture gives them (cbMemGetHostPointer), as a kDLCPU tensor. np.from_dlpack(x) and
torch.from_dlpack(x) then read and write the device array itself, no copy. Where BAR1 does not
reach the array (a profile without resizable BAR and an array past its first 256 MiB) or the view
has negative strides, the export is a host copy instead; copy=False then raises BufferError, and
copy=True always copies. __cuda_array_interface__ is absent on the simulator (hasattr is False):
no pointer there is device memory another GPU library can use.
"""

import numpy as np

from . import _core, errors

kDLCPU, kDLCUDA = 1, 2
# DLDataTypeCode by numpy kind: kDLInt, kDLUInt, kDLFloat, kDLComplex, kDLBool.
_TYPE_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}

_simulated = {}  # (runtime generation, device) -> bool


def is_simulated(device):
    key = (_core.generation(), device)
    s = _simulated.get(key)
    if s is None:
        s = _simulated[key] = bool(_core.properties(device)["simulated"])
    return s


def device_of(a):
    """x.__dlpack_device__(): (kDLCPU, 0) on the simulated GPU (its VRAM is host memory of this
    process), (kDLCUDA, device index) on a real one."""
    return (kDLCPU, 0) if is_simulated(a.device) else (kDLCUDA, a.device)


def _capsule(owner, address, shape, strides, dtype, device):
    code = _TYPE_CODES.get(dtype.kind)
    if code is None:
        raise BufferError(f"dtype {dtype} has no DLPack type")
    return _core.dlpack_capsule(owner, address, list(shape), list(strides), code, dtype.itemsize * 8, device[0],
                                device[1])


def _host_address(a):
    """(host address of a's first element through BAR1, None) or (None, why not)."""
    if any(s < 0 for s in a._strides):
        return None, "it has negative strides, which DLPack consumers do not all take"
    if a.size == 0:
        return None, "it is empty"
    span = (1 + sum((n - 1) * s for n, s in zip(a.shape, a._strides))) * a.dtype.itemsize
    try:
        return _core.host_pointer(a._block, a._offset, span), None
    except errors.DeviceLostError:
        raise
    except errors.Error as e:  # the range is not host-visible through BAR1
        return None, str(e)


def export(a, stream=None, max_version=None, dl_device=None, copy=None):
    """x.__dlpack__(): a "dltensor" capsule (DLPack 0.8's DLManagedTensor)."""
    device = device_of(a)
    if dl_device is not None and tuple(dl_device) != device:
        raise BufferError(f"this array exports to DLPack device {device}, not {tuple(dl_device)}")
    if device[0] == kDLCPU:
        _core.synchronize()
        if copy is not True:
            address, why_not = _host_address(a)
            if address is not None:
                return _capsule(a._block, address, a.shape, a._strides, a.dtype, device)
            if copy is False:
                raise BufferError(f"the array cannot be exported without a copy: {why_not}")
        host = a.get()
        strides = [s // host.itemsize for s in host.strides]
        return _capsule(host, host.ctypes.data, host.shape, strides, host.dtype, device)
    if copy is True:
        a = a.copy()
    # The consumer's stream (None, 1, 2 or a cudaStream_t) cannot wait on CudaBridge's streams:
    # the work that writes the array is finished before the memory is handed over.
    if stream is not None and not isinstance(stream, int):
        raise TypeError("stream must be None or an int")
    _core.synchronize()
    return _capsule(a._block, a._block.ptr + a._offset, a.shape, a._strides, a.dtype, device)


def cuda_array_interface(a):
    """x.__cuda_array_interface__ (version 3), on a real GPU only: AttributeError on the simulator."""
    if is_simulated(a.device):
        raise AttributeError("__cuda_array_interface__: the simulated GPU's memory is not device memory another "
                             "library can use (use DLPack: np.from_dlpack(x))")
    _core.synchronize()  # "stream": None promises that no synchronization is needed
    return {"shape": a.shape, "typestr": a.dtype.str, "data": (a._block.ptr + a._offset, False),
            "strides": None if a.is_contiguous else a.strides, "descr": [("", a.dtype.str)], "stream": None,
            "version": 3}


def from_dlpack(obj):
    """A device array from a DLPack producer (an object with __dlpack__ and __dlpack_device__):
    host (kDLCPU) tensors of numpy, torch and others are copied to the device; a cudabridge array
    is returned as a view of the same memory."""
    from ._array import ndarray, to_device
    if isinstance(obj, ndarray):
        return ndarray._view(obj._block, obj._offset, obj._shape, obj._strides, obj._dtype)
    if not hasattr(obj, "__dlpack__") or not hasattr(obj, "__dlpack_device__"):
        raise TypeError(f"from_dlpack needs an object with __dlpack__ and __dlpack_device__, not "
                        f"{type(obj).__name__}")
    device_type, _ = obj.__dlpack_device__()
    if device_type != kDLCPU:
        raise BufferError(f"from_dlpack imports host (kDLCPU) tensors; this one is on DLPack device type "
                          f"{device_type}")
    return to_device(np.from_dlpack(obj))
