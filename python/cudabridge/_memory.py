"""Device memory for arrays: blocks from the runtime, kept in a pool when their array dies.

Freeing device memory waits for the work queued on it (as cudaFree does), which would make every
temporary of an expression synchronize. As CuPy does, a freed block goes back to a pool keyed by
(stream, size) instead; work on one stream runs in order, so the next array on that stream may
reuse it at once. The pool holds at most POOL_LIMIT bytes; cb.free_pool() empties it.
"""

from . import _core

POOL_LIMIT = 1 << 30

# The pool's lists and counters change only with the GIL held, in single dict / list operations
# (atomic under the GIL), so no lock is taken on this path: it runs for every array an
# operator makes. Streams belong to one device, so (stream, size) names a bucket.
_pool = {}          # (stream, nbytes) -> [Buffer, ...]
_pooled = [0]       # bytes in the pool
_generation = [0]   # bumped by init/shutdown: blocks of an old runtime are never reused


class Block:
    """One device allocation, returned to the pool when the last array using it goes away."""

    __slots__ = ("buffer", "nbytes", "stream", "generation", "__weakref__")

    def __init__(self, nbytes, stream):
        bucket = _pool.get((stream, nbytes))
        buf = None
        if bucket:
            try:
                buf = bucket.pop()
                _pooled[0] -= nbytes
            except IndexError:  # another thread took the last one
                buf = None
        self.buffer = buf if buf is not None else _core.Buffer(nbytes)
        self.nbytes = nbytes
        self.stream = stream
        self.generation = _generation[0]

    def __del__(self):
        buf = getattr(self, "buffer", None)  # None too when __init__ failed
        if buf is None or self.generation != _generation[0]:
            return
        if _pooled[0] + self.nbytes <= POOL_LIMIT:
            _pool.setdefault((self.stream, self.nbytes), []).append(buf)
            _pooled[0] += self.nbytes
            self.buffer = None
        # Over the limit: the Buffer is freed with this block (the runtime waits as it must).


def pooled_bytes():
    return _pooled[0]


def free_pool():
    """Gives every pooled block back to the runtime."""
    blocks = list(_pool.values())
    _pool.clear()
    _pooled[0] = 0
    del blocks


def new_generation():
    """After init or shutdown: old blocks are never reused (their runtime is gone)."""
    _generation[0] += 1
    _pool.clear()
    _pooled[0] = 0
