"""cudabridge.dask: device chunks through distributed's serialization, CUDABRIDGE_VISIBLE_DEVICES,
and a LocalCluster of two worker processes, each bound to its own simulated eGPU (two enclosures
plugged and connected in a CudaBridge home of the cluster's own)."""
import json
import os
import pathlib
import pickle
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

import cudabridge as cb
from cudabridge import _visible

try:
    import dask
    import dask.array as da
    import distributed
    from distributed.protocol import deserialize, serialize
    import cudabridge.dask as cbd
    _MISSING = None
except ImportError as e:  # the cluster and serializer tests need both packages
    _MISSING = f"dask / distributed are not importable ({e}); Debian: python3-dask python3-distributed"

needs_dask = pytest.mark.skipif(_MISSING is not None, reason=_MISSING or "")

_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16, np.bool_]


def _sample(dtype, shape, seed=0):
    """Values that cover a dtype's corners: NaN, infinities, -0.0, subnormals, the integer limits."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype == np.bool_:
        flat = rng.integers(0, 2, n).astype(bool)
    elif dtype.kind == "f":
        flat = rng.standard_normal(n).astype(dtype)
        specials = np.array([np.nan, np.inf, -np.inf, -0.0, np.finfo(dtype).tiny / 4, np.finfo(dtype).max],
                            dtype=dtype)
        flat[:min(n, len(specials))] = specials[:n]
    else:
        info = np.iinfo(dtype)
        flat = rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
        flat[:min(n, 2)] = np.array([info.min, info.max], dtype=dtype)[:n]
    return flat.reshape(shape)


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


# ---- serialization, in this process -------------------------------------------------------------

@needs_dask
@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: np.dtype(d).name)
def test_serialize_round_trip_of_every_dtype_is_bit_exact(gpu, dtype):
    h = _sample(dtype, (7, 5))
    x = cb.to_device(h)
    header, frames = serialize(x, serializers=("dask",))
    assert header["serializer"] == "dask"
    assert sum(memoryview(f).nbytes for f in frames) == h.nbytes
    y = deserialize(header, frames)
    assert isinstance(y, cb.ndarray) and y.dtype == h.dtype and y.shape == h.shape
    assert y.device == cb.get_device()
    assert _bits(y.get()) == _bits(h)


@needs_dask
@pytest.mark.parametrize("view", ["step", "transpose", "broadcast", "column"])
def test_non_contiguous_views_arrive_as_contiguous_copies(gpu, view):
    h = _sample(np.float64, (6, 8), seed=1)
    x = cb.to_device(h)
    make = {"step": lambda a, m: a[::2, 1::3], "transpose": lambda a, m: a.T,
            "broadcast": lambda a, m: m.broadcast_to(a[2], (4, 8)), "column": lambda a, m: a[:, 3]}[view]
    v, want = make(x, cb), make(h, np)
    assert not v.is_contiguous
    y = deserialize(*serialize(v, serializers=("dask",)))
    assert y.is_contiguous and y.shape == want.shape
    assert _bits(y.get()) == _bits(want)


@needs_dask
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2)], ids=["0-d", "empty", "empty-3d"])
def test_zero_d_and_empty_arrays_round_trip(gpu, shape):
    h = np.full(shape, 2.5, np.float32)
    y = deserialize(*serialize(cb.to_device(h), serializers=("dask",)))
    assert y.shape == shape and y.dtype == np.float32
    np.testing.assert_array_equal(y.get(), h)


@needs_dask
def test_pickle_and_sizeof(gpu):
    from dask.sizeof import sizeof
    h = _sample(np.int16, (9, 4), seed=2)
    x = cb.to_device(h)
    assert sizeof(x) == h.nbytes == x.nbytes
    y = pickle.loads(pickle.dumps(x[1:, ::2]))
    assert isinstance(y, cb.ndarray)
    assert _bits(y.get()) == _bits(h[1:, ::2])


@needs_dask
def test_bad_frames_raise_clear_errors(gpu):
    header, frames = serialize(cb.to_device(np.arange(6, dtype=np.int32)), serializers=("dask",))
    with pytest.raises(ValueError, match="hold 4 bytes"):
        deserialize(header, [b"\0" * 4])
    sub = header["sub-header"]  # ours, inside distributed's header
    assert sub["dtype"] == "<i4" and sub["shape"] == [6] and sub["order"] == "C"
    bad = dict(header, **{"sub-header": dict(sub, order="F")})
    with pytest.raises(ValueError, match="C-ordered"):
        deserialize(bad, frames)
    bad = dict(header, **{"sub-header": {k: v for k, v in sub.items() if k != "shape"}})
    with pytest.raises(ValueError, match="not a cudabridge.ndarray header"):
        deserialize(bad, frames)


@needs_dask
def test_dasks_own_matmul_runs_on_device_chunks(gpu):
    """dask's `@` sums the block products with np.add(..., dtype=): that runs on the device too."""
    x, y = np.arange(48.0).reshape(8, 6) / 7, np.arange(30.0).reshape(6, 5) - 4
    got = (cbd.from_array(x, chunks=(3, 4)) @ cbd.from_array(y, chunks=(4, 2))).compute(scheduler="sync")
    assert isinstance(got, cb.ndarray)
    np.testing.assert_allclose(cb.from_device(got), x @ y, rtol=1e-12)


@needs_dask
def test_dask_arrays_keep_a_device_meta_and_reject_bad_input(gpu):
    h = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = cbd.from_array(h, chunks=2)
    assert isinstance(x._meta, cb.ndarray) and x.dtype == np.float32 and x.chunks == ((2, 1), (2, 2))
    assert cbd.from_array(x) is x
    assert isinstance(cbd.from_array(da.from_array(h, chunks=3))._meta, cb.ndarray)
    n = cbd.to_numpy(x)
    assert isinstance(n._meta, np.ndarray)
    # the local (threaded) scheduler: no cluster needed for a dask array of device chunks
    np.testing.assert_array_equal(cbd.to_numpy(x * 2 + 1).compute(scheduler="threads"), h * 2 + 1)
    with pytest.raises(TypeError, match="from_array takes"):
        cbd.from_array([1, 2, 3])
    with pytest.raises(TypeError, match="datetime64"):  # a dtype the device never computes in
        cbd.from_array(np.zeros(4, "datetime64[s]"))
    with pytest.raises(TypeError, match="to_numpy takes a dask array"):
        cbd.to_numpy(h)
    with pytest.raises(ValueError, match="do not align"):
        cbd.matmul(x, x)
    with pytest.raises(TypeError, match="cudabridge chunks"):
        cbd.matmul(da.from_array(h), x.T)


# ---- CUDABRIDGE_VISIBLE_DEVICES ------------------------------------------------------------------

def test_visible_devices_parse():
    assert _visible.parse(None) is None and _visible.parse("") == []
    assert _visible.parse(" 1, 0 ") == [1, 0]
    assert _visible.parse("GPU-661D9D6E") == ["GPU-661d9d6e"]
    for text, message in [("0,,1", "empty entry"), ("-1", "negative"), ("gpu0", "neither"),
                          ("GPU-66", "too short")]:
        with pytest.raises(ValueError, match=message):
            _visible.parse(text)


def test_visible_devices_in_this_process(gpu):
    assert cb.visible_devices() == list(range(cb.device_count()))


_SEEN_SCRIPT = ("import json, cudabridge as cb\n"
                "try:\n    cb.init(autoconnect=False)\nexcept cb.NoDeviceError as e:\n"
                "    print(json.dumps({'error': str(e)})); raise SystemExit\n"
                "print(json.dumps({'uuids': [cb.Device(i).uuid for i in range(cb.device_count())],"
                " 'visible': cb.visible_devices()}))\n")


def _seen_by_a_program(env, visible):
    """What a program started with CUDABRIDGE_VISIBLE_DEVICES=visible (None: unset) sees."""
    child = dict(os.environ, **env)
    child.pop(_visible.ENV, None)
    if visible is not None:
        child[_visible.ENV] = visible
    r = subprocess.run([sys.executable, "-c", _SEEN_SCRIPT], env=child, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_a_program_sees_only_the_egpus_the_variable_names_in_its_order(two_egpus):
    every = _seen_by_a_program(two_egpus, None)["uuids"]
    assert len(every) == 2 and every[0] != every[1]
    assert _seen_by_a_program(two_egpus, "1") == {"uuids": [every[1]], "visible": [0]}
    assert _seen_by_a_program(two_egpus, "1,0")["uuids"] == [every[1], every[0]]
    assert _seen_by_a_program(two_egpus, every[0][:12])["uuids"] == [every[0]]
    for value, message in [("2", "names device 2"), ("", "selects no eGPU"), ("0,0", "twice"),
                           ("GPU-00000000", "none of the connected")]:
        seen = _seen_by_a_program(two_egpus, value)
        assert message in seen.get("error", ""), (value, seen)
        assert _visible.ENV in seen["error"], seen


def test_device_context_restores_the_previous_device(gpu):
    before = cb.get_device()
    with cb.Device(0) as d:
        assert cb.get_device() == 0 and d.index == 0
        assert cb.zeros(3).device == 0
    assert cb.get_device() == before
    with pytest.raises(cb.NoDeviceError):
        with cb.Device(cb.device_count()):
            pass
    assert cb.get_device() == before


# ---- a cluster of two worker processes on two simulated eGPUs ------------------------------------

from egpu_homes import home_with_two_egpus as _home_with_two_egpus, run_cli as _run_cli  # noqa: E402


@pytest.fixture(scope="module")
def two_egpus():
    with _home_with_two_egpus() as env:
        yield env


@pytest.fixture(scope="module")
def cluster(two_egpus):
    c = cbd.LocalCluster(env=two_egpus, silence_logs=40)  # n_devices=None: one per connected eGPU
    client = distributed.Client(c)
    try:
        yield c, client
    finally:
        client.close()
        c.close()


def _task_device():
    return cb.get_device(), cb.device_count()


def _make_block(block_info=None):
    """A chunk created on the worker: its global index range, times 0.5, as float64."""
    info = block_info[None]
    (r0, r1), (c0, c1) = info["array-location"]
    rows = cb.arange(r0, r1, dtype=np.float64).reshape(r1 - r0, 1)
    cols = cb.arange(c0, c1, dtype=np.float64).reshape(1, c1 - c0)
    block = rows * 1000.0 + cols * 0.5
    bound = cbd.bound_device()
    if block.device != bound["ordinal"]:
        raise AssertionError(f"block on device {block.device}, worker bound to {bound['ordinal']}")
    return block


def _reference(shape):
    r, c = np.indices(shape, dtype=np.float64)
    return r * 1000.0 + c * 0.5


@needs_dask
def test_each_worker_is_bound_to_its_own_egpu(cluster):
    c, client = cluster
    assert c.devices == ["0", "1"]
    bound = client.run(cbd.bound_device)
    assert len(bound) == 2
    assert [b["ordinal"] for b in bound.values()] == [0, 0], "each worker sees its eGPU as device 0"
    assert len({b["uuid"] for b in bound.values()}) == 2
    assert {b["name"] for b in bound.values()} == {"NVIDIA GeForce RTX 5090", "NVIDIA GeForce RTX 4090"}
    assert len({b["pid"] for b in bound.values()}) == 2
    for address, b in bound.items():
        # a task runs on the worker's task thread, with the worker's eGPU current and no other
        assert client.submit(_task_device, workers=[address], pure=False).result() == (0, 1)
    assert sorted(b["visible"] for b in bound.values()) == ["0", "1"]


@needs_dask
def test_map_blocks_creates_the_chunks_on_both_workers(cluster):
    _, client = cluster
    shape = (120, 90)
    x = da.map_blocks(_make_block, chunks=((30,) * 4, (45, 45)), dtype=np.float64, meta=cbd.meta(np.float64, 2))
    assert isinstance(x._meta, cb.ndarray)
    x = x.persist()
    distributed.wait(x)
    holders = client.who_has(x)
    assert len(holders) == 8
    assert {w for ws in holders.values() for w in ws} == set(client.run(cbd.bound_device))
    np.testing.assert_array_equal(cbd.to_numpy(x).compute(), _reference(shape))


@needs_dask
def test_elementwise_reductions_matmul_and_rechunk_match_numpy(cluster):
    rng = np.random.default_rng(3)
    h = rng.standard_normal((96, 80)).astype(np.float32)
    g = rng.standard_normal((80, 64)).astype(np.float32)
    x = cbd.from_array(h, chunks=(32, 40))
    y = cbd.from_array(g, chunks=(40, 32))

    def host(a):
        return cbd.to_numpy(a).compute()

    np.testing.assert_allclose(host(da.exp(x) * 2 - x / 3 + da.sin(x)), np.exp(h) * 2 - h / 3 + np.sin(h),
                               rtol=1e-5, atol=1e-5)
    for axis in (None, 0, 1):
        np.testing.assert_allclose(host(x.sum(axis=axis)), h.sum(axis=axis), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(host(x.mean(axis=axis)), h.mean(axis=axis), rtol=1e-4, atol=1e-5)
        np.testing.assert_array_equal(host(x.max(axis=axis)), h.max(axis=axis))
        np.testing.assert_array_equal(host(x.min(axis=axis)), h.min(axis=axis))
    for axis in (0, 1):
        np.testing.assert_array_equal(host(x.argmax(axis=axis)), h.argmax(axis=axis))
    hi = rng.integers(-1000, 1000, (50, 30), dtype=np.int64)
    xi = cbd.from_array(hi, chunks=(20, 10))
    for axis in (None, 0, 1):
        np.testing.assert_array_equal(host(xi.sum(axis=axis)), hi.sum(axis=axis))
    np.testing.assert_allclose(host(cbd.matmul(x, y)), h @ g, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(host(cbd.matmul(x, x.T)), h @ h.T, rtol=1e-4, atol=1e-4)  # chunks realigned
    r = x.rechunk((50, 30))
    assert r.chunks == ((50, 46), (30, 30, 20))
    np.testing.assert_array_equal(host(r), h)
    np.testing.assert_array_equal(host(r.T + 1), h.T + 1)


def _source_chunk(seed):
    return cb.to_device(_sample(np.float64, (64, 33), seed=seed))


def _arrived(chunk):
    return chunk.device, cbd.bound_device()["ordinal"], chunk.get().tobytes()


@needs_dask
def test_a_chunk_moved_between_workers_arrives_bit_exact(cluster):
    _, client = cluster
    a, b = sorted(client.run(cbd.bound_device))
    bound = client.run(cbd.bound_device)
    src = client.submit(_source_chunk, 11, workers=[a], pure=False)
    # Where the source lives is asked on its own worker, before the move: once b holds a copy,
    # distributed's memory manager may drop either replica at any moment, so who_has would race.
    assert client.submit(_arrived, src, workers=[a], pure=False).result()[0] == bound[a]["ordinal"]
    moved = client.submit(_arrived, src, workers=[b], pure=False).result()
    device, bound_ordinal, data = moved
    assert device == bound_ordinal == bound[b]["ordinal"] and bound[b]["visible"] != bound[a]["visible"]
    assert data == _sample(np.float64, (64, 33), seed=11).tobytes()


@needs_dask
def test_a_worker_whose_device_does_not_exist_fails_its_tasks(two_egpus):
    env = dict(two_egpus, CUDABRIDGE_VISIBLE_DEVICES="5")
    with cbd.LocalCluster(env=env, silence_logs=50) as c, distributed.Client(c) as client:
        assert c.devices == ["5"]
        assert list(client.run(cbd.bound_device).values()) == [None]
        with pytest.raises(cb.NoDeviceError, match="names device 5"):
            client.submit(_task_device, pure=False).result()


@needs_dask
def test_importing_cudabridge_dask_starts_no_runtime():
    """Importing the module (as a worker preload does first) neither connects nor attaches."""
    code = "import cudabridge, cudabridge.dask; print(cudabridge.is_initialized())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, CUDABRIDGE_HOME=tempfile.mkdtemp(prefix="cudabridge-dask-import-")))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


@needs_dask
def test_the_two_egpu_example_runs_and_checks_its_results():
    example = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "dask_two_egpus.py"
    r = subprocess.run([sys.executable, str(example), "--size", "512", "--matmul", "384", "--budget-mib", "0.4"],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "2 workers:" in out and "RTX 5090" in out and "RTX 4090" in out
    assert "equal numpy's" in out and out.rstrip().endswith("all results equal numpy's")
    shares = re.findall(r"^    eGPU (\d) .*: (\d+) tasks \(", out, re.M)
    assert sorted(d for d, _ in shares) == ["0", "1"] and all(int(n) > 0 for _, n in shares)


def _scheduler_knows(key, dask_scheduler=None):
    return key in dask_scheduler.tasks


@needs_dask
@pytest.mark.parametrize("fault", ["unplug", "stuck"])
def test_a_failed_egpu_fails_its_task_naming_the_device_and_the_rerun_completes(gpu, fault):
    """Chunks persisted on both eGPUs; a fault is injected into the RTX 4090's enclosure (the cable
    pulled, or the GPU stops answering); the next graph fails with the device's error, naming it,
    the worker bound to it leaves the cluster, and the same graph run again completes on the
    surviving worker (the lost chunks are recomputed there), equal to numpy."""
    h = np.arange(64 * 48, dtype=np.float32).reshape(64, 48)
    # Deterministic whatever the load: no work stealing, and a graph whose device chunks never
    # travel (each becomes a numpy chunk on its own worker before the sum), so the lost eGPU is
    # first touched by a task on its worker, whose error reaches the client. (A device chunk sent
    # to another worker would instead fail in transit and be recomputed on the survivor.)
    with dask.config.set({"distributed.scheduler.work-stealing": False}), _home_with_two_egpus() as env, \
            cbd.LocalCluster(env=env, silence_logs=60) as c, distributed.Client(c) as client:
        bound = client.run(cbd.bound_device)
        survivor = next(w for w, b in bound.items() if b["name"] == "NVIDIA GeForce RTX 5090")
        lost = next(b for w, b in bound.items() if w != survivor)
        x = cbd.from_array(h, chunks=16).persist()
        distributed.wait(x)
        assert len({w for ws in client.who_has(x).values() for w in ws}) == 2
        enclosures = json.loads(_run_cli(env, "--json", "sim", "list"))["enclosures"]
        assert [e["gpu_model"] for e in enclosures] == ["rtx-5090", "rtx-4090"]
        _run_cli(env, "sim", "fault", fault, "--enclosure", "1")
        with pytest.raises((cb.DeviceLostError, cb.DeviceResetError)) as failed:
            # the fault lands within about a heartbeat; graphs before that may still complete
            deadline = time.monotonic() + 60
            for k in range(1, 1000):  # a new graph each time (the same keys would reuse a result)
                graph = cbd.to_numpy(x * 2 + k).sum(axis=0)
                future = client.compute(graph)
                future.result(timeout=60)  # a hung device fails the test, never hangs it
                if time.monotonic() > deadline:
                    break
                time.sleep(0.2)
        message = str(failed.value)
        assert f"eGPU {lost['ordinal']} (NVIDIA GeForce RTX 4090, {lost['uuid']})" in message, message
        deadline = time.monotonic() + 60
        while set(client.scheduler_info()["workers"]) != {survivor} and time.monotonic() < deadline:
            time.sleep(0.1)
        assert set(client.scheduler_info()["workers"]) == {survivor}
        # the same graph again, once the scheduler has forgotten the failed run: the lost chunks of x
        # are recomputed, and everything runs, on the survivor
        key = future.key
        future.release()
        del future
        deadline = time.monotonic() + 30
        while client.run_on_scheduler(_scheduler_knows, key) and time.monotonic() < deadline:
            time.sleep(0.05)
        np.testing.assert_allclose(client.compute(graph).result(timeout=60), (h * 2 + k).sum(axis=0), rtol=1e-6)
        assert client.run(cbd.bound_device) == {survivor: bound[survivor]}


@needs_dask
def test_with_retries_the_tasks_of_an_unplugged_egpu_rerun_on_the_other_worker(gpu):
    """client.compute(..., retries=3) while the RTX 4090's cable is pulled: the tasks that fail on
    its worker run again on the worker that remains (its lost chunks recomputed there), so no
    graph fails and every result equals numpy; the lost eGPU's worker leaves."""
    h = np.arange(64 * 48, dtype=np.float32).reshape(64, 48)
    with dask.config.set({"distributed.scheduler.work-stealing": False}), _home_with_two_egpus() as env, \
            cbd.LocalCluster(env=env, silence_logs=60) as c, distributed.Client(c) as client:
        bound = client.run(cbd.bound_device)
        survivor = next(w for w, b in bound.items() if b["name"] == "NVIDIA GeForce RTX 5090")
        x = client.persist(cbd.from_array(h, chunks=16), retries=3)  # its chunks may be recomputed
        distributed.wait(x)
        _run_cli(env, "sim", "fault", "unplug", "--enclosure", "1")
        deadline = time.monotonic() + 60
        for k in range(1, 1000):  # until the worker left; a new graph each time
            graph = cbd.to_numpy(x * 2 + k).sum(axis=0)
            got = client.compute(graph, retries=3).result(timeout=60)
            np.testing.assert_allclose(got, (h * 2 + k).sum(axis=0), rtol=1e-6)
            if set(client.scheduler_info()["workers"]) == {survivor}:
                break
            assert time.monotonic() < deadline, "the unplugged eGPU's worker did not leave"
            time.sleep(0.2)
        got = client.compute(cbd.to_numpy(x + 1).sum(axis=0), retries=3).result(timeout=60)
        np.testing.assert_allclose(got, (h + 1).sum(axis=0), rtol=1e-6)


def _sum_on_the_worker():
    return float(cb.to_device(np.arange(4, dtype=np.float32)).sum())


@needs_dask
def test_an_emergency_stop_fails_tasks_naming_the_egpu_and_the_worker_stays():
    """A thermal limit below the boards' idle temperature (a fault drill): each worker's safety
    policy stops its eGPU, a task there fails with PolicyError naming the device and the stop,
    and the worker stays in the cluster, since a stop lifts once the GPU cools."""
    with _home_with_two_egpus() as env:
        _run_cli(env, "config", "set", "standard.thermal_limit", "20")
        with cbd.LocalCluster(env=env, silence_logs=60) as c, distributed.Client(c) as client:
            workers = client.run(cbd.bound_device)
            for address, b in workers.items():
                deadline = time.monotonic() + 30
                with pytest.raises(cb.PolicyError) as stopped:
                    while time.monotonic() < deadline:  # the stop comes at the policy's first sample
                        client.submit(_sum_on_the_worker, workers=[address], pure=False).result(timeout=60)
                        time.sleep(0.2)
                message = str(stopped.value)
                assert message.startswith(f"eGPU 0 ({b['name']}, {b['uuid']})"), message
                assert "emergency stop" in message, message
            time.sleep(2 * cbd.LEAVE_DELAY_S)
            assert client.run(cbd.bound_device) == workers


def _recovered_and_connected(env, gpu_name):
    """Whether `cudabridge-cli status` shows the eGPU of that GPU connected after a recovery."""
    for d in json.loads(_run_cli(env, "--json", "status"))["devices"]:
        if d["connection"].get("gpu") == gpu_name:
            return d["connection"]["state"] == "connected" and d["health"]["recoveries"] > 0
    return False


@needs_dask
def test_a_new_worker_joins_with_the_recovered_egpu(gpu):
    """The GPU of the RTX 4090 stops answering: its worker's task fails and the worker leaves,
    while its safety policy resets the device. Once `cudabridge-cli status` shows it recovered
    (a recovery counted) and connected, a worker started with the documented recipe (dask-worker
    --preload cudabridge.dask and CUDABRIDGE_VISIBLE_DEVICES=1) binds it and runs tasks on it, and
    graphs complete again. ("connected" alone is not enough: the owner's supervisor notices the
    stall and resets at its next heartbeat, and a worker that joined before that reset loses its
    context to it.)"""
    h = np.arange(64 * 48, dtype=np.float32).reshape(64, 48)
    with _home_with_two_egpus() as env, cbd.LocalCluster(env=env, silence_logs=60) as c, \
            distributed.Client(c) as client:
        survivor = next(w for w, b in client.run(cbd.bound_device).items() if b["name"] == "NVIDIA GeForce RTX 5090")
        x = cbd.from_array(h, chunks=16).persist()
        distributed.wait(x)
        _run_cli(env, "sim", "fault", "stuck", "--enclosure", "1")
        deadline = time.monotonic() + 60
        while set(client.scheduler_info()["workers"]) != {survivor}:
            assert time.monotonic() < deadline, "the stuck eGPU's worker did not leave"
            try:
                client.compute(cbd.to_numpy(x * 2).sum(axis=0), pure=False).result(timeout=60)
            except cb.Error:
                pass
            time.sleep(0.2)
        _run_cli(env, "sim", "fault", "clear")
        deadline = time.monotonic() + 60
        while not _recovered_and_connected(env, "NVIDIA GeForce RTX 4090"):
            assert time.monotonic() < deadline, "the eGPU did not come back"
            time.sleep(0.2)
        joined = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", c.scheduler_address, "--nthreads", "1", "--no-nanny",
             "--preload", "cudabridge.dask"],  # the dask-worker command
            env=dict(os.environ, **env, CUDABRIDGE_VISIBLE_DEVICES="1",
                     PYTHONPATH=os.pathsep.join(sys.path)),  # the tasks' functions live in this module
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        try:
            client.wait_for_workers(2, timeout=60)
            bound = client.run(cbd.bound_device)
            assert sorted(b["name"] for b in bound.values()) == ["NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 5090"]
            joined_address = next(w for w, b in bound.items() if b["name"] == "NVIDIA GeForce RTX 4090")
            assert client.submit(_sum_on_the_worker, workers=[joined_address], pure=False).result(timeout=60) == 6.0
            y = cbd.from_array(h, chunks=16).persist()
            np.testing.assert_allclose(client.compute(cbd.to_numpy(y * 3).sum(axis=0)).result(timeout=60),
                                       (h * 3).sum(axis=0), rtol=1e-6)
        finally:
            joined.terminate()
            joined.wait(timeout=30)


@needs_dask
def test_retire_workers_moves_device_chunks_to_the_other_egpu(gpu, two_egpus):
    """Client.retire_workers on a healthy eGPU's worker: its chunks travel through host memory to
    the remaining worker's eGPU before it closes, and graphs over them still equal numpy."""
    h = _sample(np.int32, (48, 40), seed=5)
    with cbd.LocalCluster(env=two_egpus, silence_logs=60) as c, distributed.Client(c) as client:
        x = cbd.from_array(h, chunks=(16, 20)).persist()
        distributed.wait(x)
        held = {w: len(keys) for w, keys in client.has_what().items()}
        assert len(held) == 2 and all(held.values())
        leaving, staying = sorted(held, key=held.get)
        client.retire_workers(workers=[leaving])
        assert {w: len(keys) for w, keys in client.has_what().items()} == {staying: 6}
        assert client.run(cbd.bound_device).keys() == {staying}
        np.testing.assert_array_equal(client.compute(cbd.to_numpy(x * 3)).result(timeout=60), h * 3)
