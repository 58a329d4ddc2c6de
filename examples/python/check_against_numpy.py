"""Runs the original CudaBridge quick-start example (quick_start.py, unchanged) in its own interpreter and
checks what it prints against the same sum computed by numpy on this machine."""
import pathlib
import subprocess
import sys

import numpy as np

example = pathlib.Path(__file__).with_name("quick_start.py")
out = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, check=True).stdout.strip()
want = np.array([1, 2, 3, 4], dtype=np.float32) + np.array([5, 6, 7, 8], dtype=np.float32)
if out != str(want):
    sys.exit(f"the eGPU printed {out!r}, numpy gives {str(want)!r}")
print(f"quick_start.py printed {out}: the same as numpy's {want}")
