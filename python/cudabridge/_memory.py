"""Device memory for arrays: blocks from the runtime, kept in a pool when their array dies.

Freeing device memory waits for the work queued on it (as cudaFree does), which would make every
temporary of an expression synchronize. As CuPy does, a freed block goes back to a pool keyed by
(stream, size) instead; work on one stream runs in order, so the next array on that stream may
reuse it at once. The pool holds at most POOL_LIMIT bytes; cb.free_pool() empties it.
"""

import threading

from . import _core

POOL_LIMIT = 1 << 30

_lock = threading.Lock()
_pool = {}          # (generation, device, stream, nbytes) -> [Buffer, ...]
_pooled_bytes = 0
_generation = [0]   # bumped by init/shutdown: blocks of an old runtime are never reused


class Block:
    """One device allocation, returned to the pool when the last array using it goes away."""

    __slots__ = ("buffer", "nbytes", "stream", "generation", "__weakref__")

    def __init__(self, nbytes, stream):
        key = (_generation[0], _core.get_device(), stream, nbytes)
        buf = None
        with _lock:
            bucket = _pool.get(key)
            if bucket:
                buf = bucket.pop()
                global _pooled_bytes
                _pooled_bytes -= nbytes
        self.buffer = buf if buf is not None else _core.Buffer(nbytes)
        self.nbytes = nbytes
        self.stream = stream
        self.generation = _generation[0]

    def __del__(self):
        global _pooled_bytes
        buf = getattr(self, "buffer", None)  # None too when __init__ failed
        if buf is None or self.generation != _generation[0]:
            return
        with _lock:
            if _pooled_bytes + self.nbytes <= POOL_LIMIT:
                _pool.setdefault((self.generation, buf.device, self.stream, self.nbytes), []).append(buf)
                _pooled_bytes += self.nbytes
                self.buffer = None
                return
        # Over the limit: the Buffer is freed when this block is (the runtime waits as it must).


def pooled_bytes():
    return _pooled_bytes


def free_pool():
    """Gives every pooled block back to the runtime."""
    global _pooled_bytes
    with _lock:
        blocks = [b for bucket in _pool.values() for b in bucket]
        _pool.clear()
        _pooled_bytes = 0
    del blocks


def new_generation():
    """After init or shutdown: old blocks are never reused (their runtime is gone)."""
    global _pooled_bytes
    with _lock:
        _generation[0] += 1
        _pool.clear()
        _pooled_bytes = 0
