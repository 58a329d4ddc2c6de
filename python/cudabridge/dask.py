"""Dask with cudabridge arrays as chunks: one worker process per eGPU.

    import numpy as np
    import cudabridge.dask as cbd
    from distributed import Client

    with cbd.LocalCluster() as cluster, Client(cluster) as client:   # a worker per connected eGPU
        x = cbd.from_array(np.random.rand(4096, 4096), chunks=1024)   # chunks made on the workers
        print(cbd.to_numpy((x * 2).sum(axis=0)))                      # numpy, computed on the eGPUs

Importing this module registers, in the importing process:
  - cudabridge.ndarray as a dask.array chunk type (dask.array.register_chunk_type);
  - dask.sizeof for it (its nbytes);
  - distributed's "dask" serialization (dask_serialize / dask_deserialize): a chunk leaves its
    device through host memory as one C-ordered frame, and the receiving process uploads it to
    its own device (a worker's bound eGPU, elsewhere the thread's current device);
  - pickling of cudabridge.ndarray through the same host copy (copyreg), so graphs that embed a
    chunk or a meta array can travel to the scheduler and the workers.

A worker started with `preload=["cudabridge.dask"]` (LocalCluster does that; for other hosts:
`dask-worker --preload cudabridge.dask --nthreads 1 SCHEDULER` with CUDABRIDGE_VISIBLE_DEVICES set)
runs dask_setup(worker): it initializes the runtime, binds the worker to the first device
CUDABRIDGE_VISIBLE_DEVICES names (every task thread is made current on it), and logs the eGPUs'
connection and safety events. A task that meets a lost or reset eGPU fails with that error, named
by the device, and the worker then leaves the cluster so that distributed recomputes its chunks
elsewhere (docs/dask.md); nothing falls back to the CPU.
"""

import contextlib
import copyreg
import logging
import math
import os
import subprocess
import sys
import threading

import numpy as np

try:
    import dask.array as da
    from dask.sizeof import sizeof
except ImportError as e:  # pragma: no cover - depends on the machine
    raise ImportError("cudabridge.dask needs dask (Debian: apt-get install python3-dask python3-distributed)") from e

try:
    import distributed
    from distributed.protocol import dask_deserialize, dask_serialize
except ImportError:  # dask.array works without it; LocalCluster and the serializers need it
    distributed = None

import cudabridge as cb
from . import _dtypes, _visible

__all__ = ["from_array", "to_numpy", "matmul", "meta", "LocalCluster", "bound_device", "bind_process", "dask_setup",
           "dask_teardown", "VISIBLE_DEVICES_ENV"]

logger = logging.getLogger("cudabridge.dask")

VISIBLE_DEVICES_ENV = _visible.ENV

# This process's binding as a Dask worker (dask_setup): the runtime ordinal of its eGPU, or why
# there is none (then every task fails with that reason rather than run on another device).
_binding = {"ordinal": None, "error": None, "events": None, "worker": None, "leaving": False}
_leaving_lock = threading.Lock()


# ---- devices ----------------------------------------------------------------------------------

@contextlib.contextmanager
def _on_device(ordinal):
    """This thread's current device is `ordinal` inside the block; the previous one afterwards."""
    previous = cb.get_device()
    if previous == ordinal:
        yield
        return
    cb.set_device(ordinal)
    try:
        yield
    finally:
        cb.set_device(previous)


def _receiving_device():
    """Where a chunk that arrives in this process is created."""
    if _binding["error"] is not None:
        raise _unbound_error()
    ordinal = _binding["ordinal"]
    return cb.get_device() if ordinal is None else ordinal


def bound_device():
    """The eGPU this process's Dask worker is bound to: {"ordinal", "uuid", "name", "pid",
    "visible"}; None outside a worker set up by dask_setup."""
    ordinal = _binding["ordinal"]
    if ordinal is None:
        return None
    p = cb.Device(ordinal).properties
    return {"ordinal": ordinal, "uuid": p["uuid"], "name": p["name"], "pid": os.getpid(),
            "visible": os.environ.get(VISIBLE_DEVICES_ENV)}


# ---- registrations ----------------------------------------------------------------------------

da.register_chunk_type(cb.ndarray)


@sizeof.register(cb.ndarray)
def _sizeof(x):
    return int(x.nbytes)


def _to_host(x):
    """A C-ordered numpy copy of a chunk, read on the chunk's own device."""
    with _on_device(x.device):
        return x.get()


def _header_and_frames(x):
    host = _to_host(x)
    header = {"dtype": host.dtype.str, "shape": list(host.shape), "order": "C", "nbytes": int(host.nbytes)}
    return header, [host.reshape(-1).view(np.uint8).data]


def _from_header_and_frames(header, frames):
    try:
        dtype = np.dtype(header["dtype"])
        shape = tuple(int(n) for n in header["shape"])
        order = header["order"]
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"not a cudabridge.ndarray header: {header!r}") from e
    if order != "C":
        raise ValueError(f"cudabridge.ndarray frames must be C-ordered, not {order!r}")
    data = frames[0] if len(frames) == 1 else b"".join(bytes(f) for f in frames)
    flat = np.frombuffer(data, dtype=np.uint8)
    want = math.prod(shape) * dtype.itemsize
    if flat.nbytes != want:
        raise ValueError(f"cudabridge.ndarray frames hold {flat.nbytes} bytes; shape {shape} of {dtype} needs {want}")
    host = flat.view(dtype).reshape(shape)
    with _on_device(_receiving_device()):
        return cb.to_device(host)


if distributed is not None:
    @dask_serialize.register(cb.ndarray)
    def _dask_serialize(x):
        # A chunk sent to another worker is read here, outside any task: a lost or reset eGPU
        # found here must also take the worker out, or its peers would ask it for the chunk forever.
        try:
            return _header_and_frames(x)
        except cb.Error as e:
            named = _device_failure(e)
            if named is None:
                raise
            _device_failed(named)
            raise named from e

    @dask_deserialize.register(cb.ndarray)
    def _dask_deserialize(header, frames):
        return _from_header_and_frames(header, frames)


def _rebuild(header, frame):
    return _from_header_and_frames(header, [frame])


def _reduce_ndarray(x):
    header, (frame,) = _header_and_frames(x)
    return _rebuild, (header, frame.tobytes())


copyreg.pickle(cb.ndarray, _reduce_ndarray)


# ---- dask arrays of device chunks ---------------------------------------------------------------

def meta(dtype, ndim):
    """The empty device array dask keeps as a cudabridge dask array's meta. Device arrays need a
    runtime, so a process that builds such graphs attaches to the connected eGPUs (never
    connecting one: NoDeviceError when none is connected)."""
    if not cb.is_initialized():
        try:
            cb.init(autoconnect=False)
        except cb.NoDeviceError as e:
            raise cb.NoDeviceError(f"a cudabridge dask array's meta is an (empty) device array, so this process needs a "
                                   f"connected eGPU ('cudabridge-cli connect'): {e}") from None
    return cb.empty((0,) * ndim, _dtypes.check(dtype))


def _upload_block(block):
    return cb.to_device(block)


def _download_block(block):
    if isinstance(block, cb.ndarray):
        return _to_host(block)
    return np.asarray(block)


def _is_device_dask_array(x):
    return isinstance(x, da.Array) and isinstance(x._meta, cb.ndarray)


def from_array(x, chunks="auto"):
    """A dask array of cudabridge chunks from a numpy array, a cudabridge array or a dask array of
    numpy chunks. Each chunk is uploaded on the worker that holds it (to that worker's eGPU). A dask
    array that already has device chunks is returned (rechunked when `chunks` is not "auto")."""
    if _is_device_dask_array(x):
        return x if isinstance(chunks, str) and chunks == "auto" else x.rechunk(chunks)
    if isinstance(x, cb.ndarray):
        x = _to_host(x)
    if isinstance(x, np.ndarray):
        _dtypes.check(x.dtype)  # TypeError now, not in a worker later
        x = da.from_array(x, chunks=chunks, asarray=True, meta=np.empty((0,) * x.ndim, x.dtype))
    elif isinstance(x, da.Array):
        if not isinstance(x._meta, np.ndarray):
            raise TypeError(f"from_array: a dask array of {type(x._meta).__name__} chunks; numpy or cudabridge "
                            f"chunks are supported")
        _dtypes.check(x.dtype)
        if not (isinstance(chunks, str) and chunks == "auto"):
            x = x.rechunk(chunks)
    else:
        raise TypeError(f"from_array takes a numpy array, a cudabridge array or a dask array, not "
                        f"{type(x).__name__}")
    return x.map_blocks(_upload_block, dtype=x.dtype, meta=meta(x.dtype, x.ndim))


def to_numpy(x):
    """The dask array of numpy chunks a cudabridge dask array stands for (each chunk downloaded
    on its worker); compute() it, or call .compute() on the result, for a numpy array."""
    if not isinstance(x, da.Array):
        raise TypeError(f"to_numpy takes a dask array, not {type(x).__name__}")
    return x.map_blocks(_download_block, dtype=x.dtype, meta=np.empty((0,) * x.ndim, x.dtype))


def _matmul_blocks(a_blocks, b_blocks):
    """One output block of a blocked matmul: the sum over the contraction of A[i,k] @ B[k,j]."""
    out = None
    for a, b in zip(a_blocks, b_blocks):
        part = cb.matmul(a, b)
        out = part if out is None else out + part
    return out


def matmul(a, b):
    """a @ b for 2-d dask arrays of device chunks, blocked: each output block is one task that sums
    A[i,k] @ B[k,j] over k on its worker's eGPU, without concatenating the panels. (dask's own
    `a @ b` adds the partial products with np.add(..., dtype=), which cudabridge's numpy dispatch
    refuses today.)"""
    if not (_is_device_dask_array(a) and _is_device_dask_array(b)):
        raise TypeError("matmul takes two dask arrays of cudabridge chunks (cudabridge.dask.from_array)")
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"matmul takes 2-d arrays, not {a.ndim}-d and {b.ndim}-d")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul: shapes {a.shape} and {b.shape} do not align ({a.shape[1]} != {b.shape[0]})")
    if a.chunks[1] != b.chunks[0]:
        b = b.rechunk((a.chunks[1], b.chunks[1]))
    dtype = np.result_type(a.dtype, b.dtype)
    return da.blockwise(_matmul_blocks, "ij", a, "ik", b, "kj", concatenate=False, dtype=dtype,
                        meta=meta(dtype, 2))


# ---- workers ------------------------------------------------------------------------------------

# A device whose memory is gone: every chunk this worker holds on it is lost with it.
_DEVICE_FAILURES = (cb.DeviceLostError, cb.DeviceResetError)
LEAVE_DELAY_S = 0.5  # lets the failed task's error reach the scheduler before the worker goes


def _unbound_error():
    """The exception a worker without a usable eGPU raises: the class of what went wrong."""
    return _binding.get("error_type", cb.NoDeviceError)(_binding["error"])


def _hand_back():
    raise distributed.Reschedule()


def _run_on_bound_device(fn, args, kwargs):
    """How a worker's task thread runs a task: on the worker's eGPU, or not at all."""
    if _binding["leaving"]:
        # Its eGPU failed under an earlier task and the worker is leaving: the task goes back to
        # the scheduler (distributed's Reschedule) and runs on another worker.
        from distributed.worker import apply_function_simple
        return apply_function_simple(_hand_back, (), {}, 0)
    if _binding["error"] is not None:
        raise _unbound_error()
    ordinal = _binding["ordinal"]
    try:
        if ordinal is not None and cb.get_device() != ordinal:
            cb.set_device(ordinal)
        result = fn(*args, **kwargs)
    except _DEVICE_FAILURES as e:
        if ordinal is None:
            raise
        named = _naming_the_device(e)
        _device_failed(named)
        raise named from e
    except cb.PolicyError as e:  # an emergency stop: the task says so; the worker stays
        if ordinal is None:
            raise
        raise _naming_the_device(e) from e
    # distributed's apply_function hands a task's exception back in its message, unraised
    failure = result.get("actual-exception") if isinstance(result, dict) else None
    if isinstance(failure, cb.PolicyError) and ordinal is not None:
        _replace_failure(result, _naming_the_device(failure), failure)
        return result
    named = _device_failure(failure)
    if named is None:
        return result
    _replace_failure(result, named, failure)
    _device_failed(named)
    return result


def _replace_failure(result, named, failure):
    """A task's result message carries `named` (raised from `failure`) as its exception."""
    try:
        raise named from failure
    except cb.Error as e:
        from distributed.core import error_message
        result.update(error_message(e))
        result["actual-exception"] = e


def _device_failure(error):
    """The bound eGPU's loss or reset behind `error`, as an error that names the device; None when
    the device is fine (or this process is no bound worker). Another cudabridge error (an
    allocation gone, a launch refused) may come from a device reset or lost under the caller: the
    device's own answer then replaces it."""
    ordinal = _binding["ordinal"]
    if ordinal is None or not isinstance(error, cb.Error):
        return None
    if not isinstance(error, _DEVICE_FAILURES):
        try:
            with _on_device(ordinal):
                cb.synchronize()
            return None
        except _DEVICE_FAILURES as e:
            error = e
        except cb.Error:
            return None
    return _naming_the_device(error)


def _naming_the_device(error):
    """The same kind of error, its message starting with the bound eGPU: index, name, UUID."""
    label = _binding.get("label") or f"eGPU {_binding['ordinal']}"
    return type(error)(f"{label}: {error}", getattr(error, "code", None))


def _device_failed(error):
    """The bound eGPU was lost or reset under a task: the task fails with that error, later tasks
    here fail at once with it, and the worker leaves the cluster (its nanny does not restart it),
    so the scheduler recomputes the lost chunks and reruns work on the workers that remain."""
    worker = _binding.get("worker")
    with _leaving_lock:
        if _binding["error"] is not None:
            return
        _binding["error_type"] = type(error)
        _binding["leaving"] = True
        _binding["error"] = (f"worker {getattr(worker, 'address', os.getpid())} lost its eGPU "
                             f"({type(error).__name__}: {error}); the worker leaves the cluster")
    logger.error("cudabridge: %s", _binding["error"])
    if worker is not None:
        worker.loop.add_callback(_leave, worker)


async def _leave(worker):
    import asyncio
    from distributed.core import Status
    # Paused at once, the scheduler gives this worker no new task while the error travels, so a
    # retried task (retries=) runs on another worker instead of failing here again.
    worker.status = Status.paused
    await asyncio.sleep(LEAVE_DELAY_S)
    await worker.close(nanny=True, reason="cudabridge: its eGPU failed")


if distributed is not None:
    from distributed.threadpoolexecutor import ThreadPoolExecutor as _DaskThreadPoolExecutor

    class DeviceThreadPoolExecutor(_DaskThreadPoolExecutor):
        """distributed's task thread pool whose threads (new ones after secede() included) run
        every task with the worker's eGPU current. (distributed recognizes its thread pools by
        "ThreadPoolExecutor" in the type's name.)"""

        def submit(self, fn, /, *args, **kwargs):
            return super().submit(_run_on_bound_device, fn, args, kwargs)

    __all__.append("DeviceThreadPoolExecutor")


def _log_event(event):
    """A connection or safety event of an eGPU this process attached to, in the worker's log. (The
    runtime attaches every worker to every connected eGPU, so each worker logs every device's
    events; `device` is the enclosure's id.)"""
    level = logging.INFO if event.get("state") == "connected" else logging.WARNING
    logger.log(level, "cudabridge: eGPU enclosure %s is %s: %s %s", event.get("device"), event.get("state"),
               event.get("kind"), event.get("message"))


def bind_process():
    """Initializes the runtime, which attaches to the eGPUs CUDABRIDGE_VISIBLE_DEVICES names (every
    connected one when unset), and binds this process to the first: device 0. Returns the runtime
    ordinal."""
    cb.init()
    ordinals = _visible.ordinals()
    if not ordinals:
        raise cb.NoDeviceError(f"{VISIBLE_DEVICES_ENV}={os.environ.get(VISIBLE_DEVICES_ENV)!r} selects no eGPU")
    ordinal = ordinals[0]
    cb.set_device(ordinal)
    p = cb.Device(ordinal).properties
    _binding["label"] = f"eGPU {ordinal} ({p['name']}, {p['uuid']}) of process {os.getpid()}"
    _binding["ordinal"] = ordinal
    _binding["error"] = None
    return ordinal


def dask_setup(worker):
    """The worker preload (`preload=["cudabridge.dask"]`, `dask-worker --preload cudabridge.dask`):
    binds the worker to its eGPU. On failure every task of the worker fails with the reason."""
    if distributed is None:  # pragma: no cover - a worker imports distributed
        raise ImportError("cudabridge.dask's worker preload needs distributed")
    old = worker.executors.get("default")
    worker.executors["default"] = DeviceThreadPoolExecutor(
        worker.state.nthreads, thread_name_prefix="Dask-cudabridge-Threads")
    if old is not None and old is not worker.executors.get("offload"):
        old.shutdown(wait=False)
    _binding["worker"] = worker
    try:
        ordinal = bind_process()
    except Exception as e:
        _binding["error"] = f"worker {worker.address}: no eGPU bound ({type(e).__name__}: {e})"
        logger.error("cudabridge: %s", _binding["error"])
        return
    _binding["events"] = cb.on_event(_log_event)
    d = bound_device()
    logger.info("cudabridge: worker %s bound to eGPU %d, %s (%s)", worker.address, ordinal, d["name"], d["uuid"])


def dask_teardown(worker):
    if _binding["events"] is not None:
        cb.remove_event_callback(_binding["events"])
        _binding["events"] = None


# ---- a local cluster: one worker process per eGPU ------------------------------------------------

_COUNT_SCRIPT = ("import sys, cudabridge as cb, cudabridge._visible as v\n"
                 "try:\n    cb.init(autoconnect=False)\nexcept cb.NoDeviceError:\n    print(0); sys.exit()\n"
                 "print(len(v.ordinals()))\n")


def _count_devices(env):
    """Connected eGPUs (those CUDABRIDGE_VISIBLE_DEVICES selects), counted in a child process with
    the workers' environment, so this process neither connects nor attaches to any."""
    child_env = dict(os.environ)
    child_env.update(env)
    r = subprocess.run([sys.executable, "-c", _COUNT_SCRIPT], env=child_env, capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"counting the eGPUs failed: {r.stderr.strip()}")
    return int(r.stdout.strip().splitlines()[-1])


def _worker_entries(n_devices, env):
    """The CUDABRIDGE_VISIBLE_DEVICES value of each worker."""
    chosen = _visible.parse(env.get(VISIBLE_DEVICES_ENV, os.environ.get(VISIBLE_DEVICES_ENV)))
    if chosen is not None:
        if n_devices is not None and n_devices > len(chosen):
            raise ValueError(f"n_devices={n_devices}, but {VISIBLE_DEVICES_ENV} names {len(chosen)} device(s)")
        chosen = chosen[:n_devices] if n_devices is not None else chosen
        return [str(c) for c in chosen]
    if n_devices is None:
        n_devices = max(_count_devices(env), 1)  # none connected: the one worker connects one
    return [str(i) for i in range(n_devices)]


if distributed is not None:
    class LocalCluster(distributed.SpecCluster):
        """A distributed cluster on this machine with one worker process (a Nanny) per eGPU, each
        with nthreads=1, CUDABRIDGE_VISIBLE_DEVICES naming its device, and the cudabridge.dask
        preload that binds it. n_devices=None: one worker per connected eGPU (or per device
        CUDABRIDGE_VISIBLE_DEVICES names); with none connected, one worker that connects one.

        env: more environment variables for the workers (CUDABRIDGE_HOME, ...). silence_logs (a
        logging level) quiets the scheduler's and the workers' logs below it. worker_options: more
        keywords for each distributed.Nanny. Other keywords go to distributed.SpecCluster
        (asynchronous, name, ...); scheduler_port and dashboard_address go to the scheduler
        (any free port by default)."""

        def __init__(self, n_devices=None, *, env=None, host="127.0.0.1", scheduler_port=0,
                     dashboard_address=None, memory_limit="auto", death_timeout=60, silence_logs=None,
                     worker_options=None, **kwargs):
            if n_devices is not None and (not isinstance(n_devices, int) or n_devices < 1):
                raise ValueError(f"n_devices must be a positive int or None, not {n_devices!r}")
            env = {str(k): str(v) for k, v in (env or {}).items()}
            entries = _worker_entries(n_devices, env)
            scheduler = {"cls": distributed.Scheduler,
                         "options": {"host": host, "port": scheduler_port,
                                     "dashboard_address": dashboard_address or ":0"}}
            workers = {}
            for i, entry in enumerate(entries):
                worker_env = dict(env)
                worker_env[VISIBLE_DEVICES_ENV] = entry
                options = {"nthreads": 1, "env": worker_env, "preload": ["cudabridge.dask"],
                           "host": host, "memory_limit": memory_limit, "death_timeout": death_timeout,
                           "name": f"egpu-{entry}"}
                if silence_logs:
                    options["silence_logs"] = silence_logs
                options.update(worker_options or {})
                workers[f"egpu-{entry}"] = {"cls": distributed.Nanny, "options": options}
            self.devices = entries
            if silence_logs:
                kwargs["silence_logs"] = silence_logs
            super().__init__(workers=workers, scheduler=scheduler, **kwargs)
