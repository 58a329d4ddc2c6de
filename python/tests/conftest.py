"""Every test session gets its own CudaBridge home (store, simulated fabric, connections)."""
import os
import tempfile

import pytest

_HOME = tempfile.mkdtemp(prefix="cudabridge-pytest-")
os.environ["CUDABRIDGE_HOME"] = _HOME
os.environ.setdefault("CUDABRIDGE_LOG_SINKS", "file,sqlite")  # no log lines between test results

import cudabridge as cb  # noqa: E402  (after the environment is set)


@pytest.fixture(scope="session")
def home():
    return _HOME


@pytest.fixture()
def gpu():
    """An initialized runtime on the simulated eGPU."""
    cb.init()
    yield cb
    if cb.is_initialized():
        cb.synchronize()


def pytest_sessionfinish(session, exitstatus):
    cb.shutdown()
