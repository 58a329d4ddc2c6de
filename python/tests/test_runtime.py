"""Devices, streams and events, telemetry, errors from the runtime, use after shutdown, device
loss, and safety events delivered to Python callbacks."""
import threading
import time

import numpy as np
import pytest

import cudabridge as cb


def test_devices_and_telemetry(gpu):
    assert cb.device_count() == 1
    (dev,) = cb.devices()
    assert dev.name == "NVIDIA GeForce RTX 5090" and dev.simulated and dev.compute_capability == (12, 0)
    cb.set_device(0)
    assert cb.get_device() == 0
    t = cb.telemetry()
    assert t["modeled"] is True and t["state"] == "connected" and t["power_limit_w"] > 0
    assert dev.telemetry()["memory_total"] == dev.total_memory
    with pytest.raises(cb.NoDeviceError):
        cb.set_device(3)


def test_streams_and_events(gpu):
    x = np.arange(1 << 16, dtype=np.float32)
    s = cb.Stream(non_blocking=True)
    start, end = cb.Event(), cb.Event()
    with s:
        start.record()
        d = cb.to_device(x) * 2
        end.record()
    s.synchronize()
    assert s.done() and end.done()
    assert end.elapsed_time(end) == 0.0
    assert start.elapsed_time(end) >= 0.0
    np.testing.assert_array_equal(cb.from_device(d), x * 2)
    cb.synchronize()


def test_the_gil_is_released_while_waiting(gpu):
    big = cb.ones((1 << 24,))
    cb.synchronize()
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.0005)

    t = threading.Thread(target=count)
    t.start()
    time.sleep(0.01)
    for _ in range(20):
        big = big * 1.0  # queued: returns before the device has run it
    before = len(ticks)
    t0 = time.perf_counter()
    cb.synchronize()  # a long wait; a held GIL would stop the counter for all of it
    waited = time.perf_counter() - t0
    during = len(ticks) - before
    stop.set()
    t.join()
    assert waited > 0.02, f"the queued work took only {waited * 1e3:.1f} ms: nothing to measure"
    assert during >= 5, f"the other thread ran {during} times in {waited * 1e3:.0f} ms of synchronize"


def test_temporaries_reuse_pooled_memory(gpu):
    from cudabridge import _core
    a = cb.to_device(np.ones(1 << 16, np.float32))
    cb.free_pool()
    (a + a).get()  # one result block, now in the pool
    free_before, _ = cb.mem_info()
    for _ in range(300):
        a + a  # each result dies at once and its block serves the next one
    cb.synchronize()
    free_after, _ = cb.mem_info()
    assert free_before - free_after <= a.nbytes, "temporaries took new memory instead of the pooled block"
    assert _core.pooled_bytes() >= a.nbytes
    cb.free_pool()
    assert _core.pooled_bytes() == 0
    assert cb.mem_info()[0] >= free_after + a.nbytes


def test_a_malformed_operand_is_refused(gpu):
    from cudabridge import _core
    with pytest.raises(TypeError, match="tensor operand"):
        _core.launch_new("add", 0, 4, (b"not a descriptor", b"x"), (), (3,), 0)
    with pytest.raises(TypeError, match="Buffer"):
        _core.tensor(object(), 0, 0, (3,), (1,))
    with pytest.raises(TypeError):
        _core.launch_new("add", 0, 4)


def test_use_after_shutdown_is_an_error():
    cb.init()
    d = cb.ones((4,))
    cb.shutdown()
    with pytest.raises(cb.Error, match="shut down|not initialized"):
        d + 1
    with pytest.raises(cb.NotInitializedError):
        cb.mem_info()
    assert cb.device_count() == 0  # no error before init, as torch.cuda.device_count()
    cb.init()
    assert cb.device_count() >= 1
    np.testing.assert_array_equal(cb.from_device(cb.ones((2,))), [1, 1])


def test_a_safety_event_reaches_a_python_callback(gpu):
    seen = []
    got = threading.Event()

    def on_event(e):
        seen.append(e)
        if e["kind"].startswith("safety."):
            got.set()

    cid = cb.on_event(on_event)
    try:
        # Bit errors above the policy's error-rate threshold (about 2 % of 256-byte packets): the
        # link replays them, and the supervisor acts on the rate.
        x = cb.to_device(np.ones(1 << 20, np.float32))
        cb._core.transport_control('{"op":"fault","bit_error_rate":0.00001}')
        deadline = time.time() + 20
        while not got.is_set() and time.time() < deadline:
            try:
                cb.from_device(x)
            except cb.Error:
                pass  # a copy the faults broke: the event is what this test waits for
            time.sleep(0.02)
        assert got.is_set(), seen
        e = next(e for e in seen if e["kind"].startswith("safety."))
        assert e["device"] and e["message"]
    finally:
        cb._core.transport_control('{"op":"fault","bit_error_rate":0}')
        cb.remove_event_callback(cid)
        cb.shutdown()


LOST_SCRIPT = """
import numpy as np, time, cudabridge as cb
cb.init()
x = cb.to_device(np.ones(1 << 16, np.float32))
cb._core.transport_control('{"op":"fault","unplug_now":true}')
try:
    for _ in range(300):
        x = x + 1
        cb.from_device(x[:2])
        time.sleep(0.01)
    print("not lost")
except cb.DeviceLostError as e:
    print("lost:", type(e).__name__, e.code, "|", e)
"""


def test_device_lost_mid_operation_raises(tmp_path):
    # Its own home: the unplugged enclosure does not leave the other tests without a device.
    import os
    import subprocess
    import sys

    env = dict(os.environ, CUDABRIDGE_HOME=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", LOST_SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("lost: DeviceLostError 1000"), r.stdout + r.stderr


RECONNECT_SCRIPT = """
import numpy as np, cudabridge as cb
cb.init()
x = cb.ones((4,))
cb.disconnect()
try:
    x + 1
    print("still usable")
except cb.Error as e:
    print("after disconnect:", type(e).__name__)
i = cb.connect()
cb.set_device(i)
print("reconnected:", cb.device_count(), cb.from_device(cb.ones((2,)) * 3).tolist())
cb.shutdown()
"""


def test_disconnect_then_connect(tmp_path):
    import os
    import subprocess
    import sys

    env = dict(os.environ, CUDABRIDGE_HOME=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", RECONNECT_SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] in ("after disconnect: DeviceLostError", "after disconnect: NoDeviceError"), r.stdout
    assert lines[1] == "reconnected: 1 [3.0, 3.0]", r.stdout


QUERY_LOST_SCRIPT = """
import numpy as np, time, cudabridge as cb
cb.init()
s = cb.Stream()
e = cb.Event().record(s)
x = cb.to_device(np.ones(1 << 16, np.float32))
cb._core.transport_control('{"op":"fault","unplug_now":true}')
try:  # until the runtime has noticed the loss
    for _ in range(300):
        x = x + 1
        cb.from_device(x[:2])
        time.sleep(0.01)
    print("not lost")
except cb.DeviceLostError:
    pass
for what, query in (("stream", s.done), ("event", e.done)):
    try:
        print(what, "answered", query())
    except cb.DeviceLostError:
        print(what, "raised DeviceLostError")
"""


def test_a_query_on_a_lost_device_raises_instead_of_answering_not_done(tmp_path):
    # "Not done yet" would have the caller poll forever; device loss must surface as an error.
    import os
    import subprocess
    import sys

    env = dict(os.environ, CUDABRIDGE_HOME=str(tmp_path))
    r = subprocess.run([sys.executable, "-c", QUERY_LOST_SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["stream raised DeviceLostError", "event raised DeviceLostError"], r.stdout + r.stderr
