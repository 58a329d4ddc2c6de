"""CudaBridge homes of their own with simulated eGPUs, made through cudabridge-cli as a user would:
what tests that need several eGPUs (in one process, or one per worker) share."""
import contextlib
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest

import cudabridge as cb


def cli():
    built = pathlib.Path(cb.__file__).resolve().parents[2] / "bin" / "cudabridge-cli"
    found = str(built) if built.exists() else shutil.which("cudabridge-cli")
    if not found:
        pytest.fail("cudabridge-cli is neither next to the built package nor on PATH")
    return found


def run_cli(env, *args):
    r = subprocess.run([cli(), *args], env=dict(os.environ, **env), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"cudabridge-cli {' '.join(args)}: {r.stdout}{r.stderr}"
    return r.stdout


@contextlib.contextmanager
def home_with_two_egpus():
    """A CudaBridge home of its own with two simulated enclosures (RTX 5090, RTX 4090), both
    connected; the workers' environment."""
    env = {"CUDABRIDGE_HOME": tempfile.mkdtemp(prefix="cudabridge-dask-"), "CUDABRIDGE_LOG_SINKS": "file,sqlite"}
    try:
        for args in (["sim", "plug", "rtx-4090"], ["connect", "0"], ["connect", "1"]):
            run_cli(env, *args)
        yield env
    finally:
        subprocess.run([cli(), "disconnect"], env=dict(os.environ, **env), capture_output=True, timeout=120)
        shutil.rmtree(env["CUDABRIDGE_HOME"], ignore_errors=True)
