"""Several eGPUs in one process: arrays remember their device, never meet an array of another
device in one operation, and move with x.to_device(i). Runs in a process of its own, in a
CudaBridge home with two simulated enclosures (RTX 5090, RTX 4090) connected."""
import os
import subprocess
import sys
import textwrap

from egpu_homes import home_with_two_egpus

SCRIPT = textwrap.dedent("""
    import numpy as np
    import pytest
    import cudabridge as cb

    cb.init()
    assert cb.device_count() == 2, cb.device_count()
    x = np.arange(6.0)
    a = cb.to_device(x)
    with cb.Device(1):
        b = cb.to_device(x * 10)
        doubled = b * 2  # runs on device 1, where b is
    assert (a.device, b.device, doubled.device) == (0, 1, 1)

    # Mixing devices is refused, naming both and the way out.
    for mixed in (lambda: a + b, lambda: b + a, lambda: cb.maximum(a, b), lambda: a @ b):
        with pytest.raises(ValueError, match=r"device 1 .* device 0 .*to_device\\(0\\)"):
            mixed()
    with pytest.raises(ValueError, match="device 1"):
        b.sum()  # a reduction of a device-1 array while device 0 is current

    # An explicit copy makes them meet; the copy is a new array on the target, the source stays.
    moved = b.to_device(0)
    assert moved.device == 0 and b.device == 1
    np.testing.assert_array_equal(cb.from_device(a + moved), x * 11)
    with cb.Device(1):
        np.testing.assert_array_equal(cb.from_device(doubled), x * 20)
        np.testing.assert_array_equal(cb.from_device(a.to_device(cb.Device(1)) + b), x * 11)
    assert b.to_device(1) is b
    with pytest.raises(TypeError):
        b.to_device("1")
    print("devices: PASS")
""")


def test_arrays_of_two_egpus_meet_only_through_an_explicit_copy():
    with home_with_two_egpus() as env:
        r = subprocess.run([sys.executable, "-c", SCRIPT], env=dict(os.environ, **env), capture_output=True,
                           text=True, timeout=300)
    assert r.returncode == 0 and "devices: PASS" in r.stdout, r.stdout + r.stderr
