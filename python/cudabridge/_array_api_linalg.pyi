from typing import Any

from cudabridge.linalg import *  # noqa: F401,F403

from . import ndarray

def trace(x: ndarray, /, *, offset: int = ..., dtype: Any = ...) -> ndarray: ...
def solve(x1: ndarray, x2: ndarray, /) -> ndarray: ...
