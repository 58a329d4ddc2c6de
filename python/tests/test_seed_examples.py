"""The seed README's Python examples, verbatim, each in its own interpreter: they run and print
what the seed says they print."""
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

# The seed README's examples live with the other examples (the main job runs them too).
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


def run_example(name, home):
    env = dict(os.environ, CUDABRIDGE_HOME=home)
    r = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def numbers(line):
    return [float(x) for x in re.findall(r"-?\d+\.?\d*", line)]


def test_quick_start_prints_the_sum(home):
    out = run_example("quick_start.py", home).splitlines()
    assert out[0].startswith("[") and numbers(out[0]) == [6.0, 8.0, 10.0, 12.0]
    assert out[0] == str(np.array([6, 8, 10, 12], dtype=np.float32))  # numpy's own formatting


def test_python_api_walkthrough(home):
    out = run_example("python_api.py", home).splitlines()
    assert numbers(out[0]) == [6.0, 8.0, 10.0, 12.0]
    m = re.fullmatch(r"GPU Memory: (\d+\.\d) GB free / (\d+\.\d) GB total", out[1])
    assert m, out[1]
    assert 0 < float(m.group(1)) <= float(m.group(2))
    assert float(m.group(2)) == pytest.approx(34.4, abs=0.1)  # the simulated RTX 5090's 32 GiB


def test_learning_guide_matches_numpy(home):
    assert run_example("learning_guide.py", home) == ""
