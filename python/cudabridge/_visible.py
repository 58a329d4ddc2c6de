"""CUDABRIDGE_VISIBLE_DEVICES: the eGPUs a process should use, in order, as CUDA_VISIBLE_DEVICES
names GPUs for CUDA.

The variable holds a comma-separated list. Each entry is either an index among the connected eGPUs
in the runtime's order (the order of cb.devices() in a process that sees them all; unset: every
one) or a GPU UUID as cb.Device(i).uuid gives it ("GPU-..."; a unique prefix of at least 8
characters after "GPU-" is enough). Unlike CUDA, an entry that names no device is an error, never
a silently shortened list.

What this selection does today: cudabridge.dask binds each worker to the first device of its list,
and cb.visible_devices() answers the runtime ordinals the list stands for. The runtime itself still
attaches to every connected eGPU, so cb.device_count() and cb.set_device() keep their unfiltered
numbering.
"""

import os

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


def resolve(entries, uuids):
    """Runtime ordinals for parsed entries, given the UUID of each attached device by ordinal."""
    count = len(uuids)
    if entries is None:
        return list(range(count))
    ordinals = []
    for entry in entries:
        if isinstance(entry, int):
            if entry >= count:
                raise ValueError(f"{ENV} names device {entry}, but this process has {count} connected eGPU(s) "
                                 f"(0..{count - 1})")
            ordinal = entry
        else:
            matches = [i for i, u in enumerate(uuids) if u.lower().startswith(entry.lower())]
            if not matches:
                raise ValueError(f"{ENV} names {entry}, which is none of the connected eGPUs ({', '.join(uuids)})")
            if len(matches) > 1:
                raise ValueError(f"{ENV}: {entry} matches several eGPUs ({', '.join(uuids[i] for i in matches)})")
            ordinal = matches[0]
        if ordinal in ordinals:
            raise ValueError(f"{ENV} names device {ordinal} twice")
        ordinals.append(ordinal)
    return ordinals


def ordinals(text=None):
    """The runtime ordinals that CUDABRIDGE_VISIBLE_DEVICES (or `text`) selects, in its order. The
    runtime must be initialized (cb.init())."""
    entries = parse(os.environ.get(ENV) if text is None else text)
    count = _core.device_count()
    uuids = [_core.properties(i)["uuid"] for i in range(count)] if entries and any(
        isinstance(e, str) for e in entries) else [""] * count
    return resolve(entries, uuids)
