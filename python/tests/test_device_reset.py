"""cb.device_reset(), CUDA's cudaDeviceReset: the way back after a reset took the device's memory
(DeviceResetError), whether this program asked for it or the safety supervisor or another program
reset the GPU. Arrays made before raise DeviceResetError, never a plain Error about their memory."""
import os
import subprocess

import numpy as np
import pytest

import cudabridge as cb
from egpu_homes import cli


def test_device_reset_starts_the_context_over(gpu):
    a = cb.to_device(np.arange(4, dtype=np.float32))
    cb.device_reset()
    with pytest.raises(cb.DeviceResetError, match="reset of device 0"):
        a.get()
    with pytest.raises(cb.DeviceResetError):
        a * 2
    b = cb.to_device(np.arange(4, dtype=np.float32))
    assert (b * 2).get().tolist() == [0, 2, 4, 6]


def test_a_hard_reset_by_another_program_is_a_device_reset_error(gpu, home):
    a = cb.to_device(np.ones(1024, np.float32))
    r = subprocess.run([cli(), "reset", "--hard"], env=dict(os.environ, CUDABRIDGE_HOME=home), capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    # The memory went with the reset: said as a reset, not as an operand "never allocated".
    with pytest.raises(cb.DeviceResetError, match="reset"):
        (a * 2).get()
    with pytest.raises(cb.DeviceResetError):
        cb.to_device(np.ones(4, np.float32))  # sticky until cb.device_reset()
    cb.device_reset()
    assert (cb.to_device(np.ones(4, np.float32)) * 3).get().tolist() == [3, 3, 3, 3]
