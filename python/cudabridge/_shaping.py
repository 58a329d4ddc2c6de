"""numpy's remaining array-building, reshaping and selection functions on the device, composed
from the device's kernels (copies, views, where, take, sort, elementwise ops)."""

import numpy as np

from . import _array

# numpy function -> device implementation (np.diff(x) of a device array lands here).
FUNCTIONS = {}
# The names cudabridge exports (cb.diff, ...).
__all__ = []
