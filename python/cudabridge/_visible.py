"""CUDABRIDGE_VISIBLE_DEVICES: the eGPUs a process should use, in order, as CUDA_VISIBLE_DEVICES
names GPUs for CUDA.

The variable holds a comma-separated list. Each entry is either an index among the connected eGPUs
in the runtime's order (the order of cb.devices() in a process that sees them all; unset: every
one) or a GPU UUID as cb.Device(i).uuid gives it ("GPU-..."; a unique prefix of at least 8
characters after "GPU-" is enough). Unlike CUDA, an entry that names no device is an error, never
a silently shortened list.

The runtime applies it when it starts (cb.init()): the process sees only the eGPUs the list
names, numbered from 0 in the list's order, as a CUDA program sees CUDA_VISIBLE_DEVICES. A value
that names no connected eGPU leaves the process without a device, and cb.init() raises
NoDeviceError saying why. cudabridge.dask gives each worker one entry of the list; the
cudabridge-cli commands ignore the variable and show every eGPU, as nvidia-smi does.
"""

from . import _core

ENV = "CUDABRIDGE_VISIBLE_DEVICES"
_UUID_PREFIX = "GPU-"


def parse(text):
    """The entries of a CUDABRIDGE_VISIBLE_DEVICES value: ints and UUID strings, in order.
    None stands for "unset" (every device); "" selects none."""
    if text is None:
        return None
    entries = []
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            if text.strip():
                raise ValueError(f"{ENV}={text!r}: an empty entry between commas")
            continue
        if item.lstrip("-").isdigit():
            index = int(item)
            if index < 0:
                raise ValueError(f"{ENV}={text!r}: device index {index} is negative")
            entries.append(index)
        elif item.upper().startswith(_UUID_PREFIX):
            if len(item) < len(_UUID_PREFIX) + 8:
                raise ValueError(f"{ENV}={text!r}: UUID {item!r} is too short (give at least 8 characters "
                                 f"after {_UUID_PREFIX})")
            entries.append(_UUID_PREFIX + item[len(_UUID_PREFIX):].lower())
        else:
            raise ValueError(f"{ENV}={text!r}: {item!r} is neither a device index nor a GPU UUID (GPU-...)")
    return entries


def ordinals():
    """The runtime ordinals of this process's eGPUs: the runtime applied CUDABRIDGE_VISIBLE_DEVICES
    when it started, so they are 0..n-1 in the list's order."""
    return list(range(_core.device_count()))
