"""The array API standard's linalg extension (2022.12), as cudabridge.array_api.linalg: cb.linalg's
functions (with the standard's names, keywords and named-tuple results), except `trace`, which
answers float32 and complex64 matrices in float64 and complex128, 2022.12's rule for sum, prod and
trace (numpy 1.24 keeps the input's dtype)."""

from . import _dtypes, linalg as _linalg
from ._array import asarray
from .linalg import *  # noqa: F401,F403


def trace(x, /, *, offset=0, dtype=None):
    """The sums along each matrix's diagonal `offset` of the stack x."""
    x = asarray(x)
    return _linalg.trace(x, offset=offset, dtype=_dtypes.standard_accumulation(x.dtype, dtype))
