"""Streams and events, usable as context managers: work queued inside `with stream:` goes to it.

As in CUDA, work on one stream runs in order and asynchronously; the default stream (0) is the
legacy one, which waits for the other blocking streams and they for it.
"""

import threading

from . import _core

class _ThreadState(threading.local):
    # Class defaults: reading an attribute a thread has not set finds these, with no
    # AttributeError raised and caught on every operator.
    stack = None    # the streams of this thread's `with stream:` blocks
    current = None  # (epoch, handle) this thread queues on now: one read per operator


_local = _ThreadState()


# Per device, the stream arrays use outside any `with stream:`: a non-blocking one of the
# module's own. Work on it runs in order like on the default stream, without the legacy default
# stream's cross-stream barriers on every call (which cost several times the launch itself).
_defaults = {}


_epoch = [0]  # bumped when the default streams change (set_device, shutdown): thread caches go stale


def current_stream():
    """The handle arrays queue work on in this thread."""
    cached = _local.current
    if cached is not None and cached[0] == _epoch[0]:
        return cached[1]
    return _find_current()


def _find_current():
    stack = _local.stack
    if stack:
        handle = stack[-1].handle
    else:
        device = _core.get_device()
        s = _defaults.get(device)
        if s is None:
            s = _defaults[device] = Stream(non_blocking=True)
        handle = s.handle
    _local.current = (_epoch[0], handle)
    return handle


def device_changed():
    """After set_device: this thread's default stream is the new device's."""
    _local.current = None


def forget_default_stream(device):
    """After a reset of `device`: its stream went with the reset (nothing to close)."""
    _epoch[0] += 1
    s = _defaults.pop(device, None)
    if s is not None:
        s.handle = 0


def drop_default_streams():
    """Before shutdown: the module's streams go with the runtime."""
    _epoch[0] += 1
    streams = list(_defaults.values())
    _defaults.clear()
    for s in streams:
        try:
            s.close()
        except Exception:  # a lost or reset device: the stream is gone with it
            s.handle = 0


class Stream:
    """A CUDA-style stream. `non_blocking=True` does not synchronize with the default stream."""

    def __init__(self, non_blocking=False):
        self.handle = _core.stream_create(non_blocking)
        self.non_blocking = non_blocking

    def synchronize(self):
        """Waits (GIL released) until everything queued on the stream has run."""
        _core.stream_synchronize(self.handle)

    def done(self):
        """True when all work queued on the stream has completed."""
        return _core.stream_query(self.handle)

    def __enter__(self):
        if _local.stack is None:
            _local.stack = []
        _local.stack.append(self)
        _local.current = None
        return self

    def __exit__(self, *exc):
        _local.stack.pop()
        _local.current = None
        return False

    def close(self):
        if self.handle and _core.initialized():
            _core.stream_destroy(self.handle)
        self.handle = 0

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return f"<cudabridge.Stream {self.handle:#x}{' non-blocking' if self.non_blocking else ''}>"


class Event:
    """A point in a stream's work; `elapsed_time` is in ms, from the device's clock (modeled on a
    simulated GPU, measured on hardware)."""

    def __init__(self):
        self.handle = _core.event_create()

    def record(self, stream=None):
        _core.event_record(self.handle, stream.handle if stream is not None else current_stream())
        return self

    def synchronize(self):
        _core.event_synchronize(self.handle)

    def done(self):
        return _core.event_query(self.handle)

    def elapsed_time(self, end):
        """Milliseconds from this event to `end` (both recorded)."""
        return _core.event_elapsed_ms(self.handle, end.handle)

    def __enter__(self):
        return self.record()

    def __exit__(self, *exc):
        return False

    def __del__(self):
        try:
            if self.handle and _core.initialized():
                _core.event_destroy(self.handle)
        except Exception:
            pass
