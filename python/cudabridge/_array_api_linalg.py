"""The array API standard's linalg extension (2022.12), as cudabridge.array_api.linalg: cb.linalg's
functions (with the standard's names, keywords and named-tuple results), except where numpy 1.24
differs: `trace` answers float32 and complex64 matrices in float64 and complex128 (2022.12's rule
for sum, prod and trace; numpy 1.24 keeps the input's dtype), and `solve` takes x2 as a vector
only when it is 1-d (numpy 1.24 also when x2 has one dimension fewer than x1)."""

from . import _dtypes, linalg as _linalg
from ._array import asarray
from .linalg import *  # noqa: F401,F403


def trace(x, /, *, offset=0, dtype=None):
    """The sums along each matrix's diagonal `offset` of the stack x."""
    x = asarray(x)
    return _linalg.trace(x, offset=offset, dtype=_dtypes.standard_accumulation(x.dtype, dtype))


def solve(x1, x2, /):
    """x with x1 @ x = x2 for each matrix of the stack x1; x2 a vector (1-d) or a stack of matrices."""
    x1, x2 = asarray(x1), asarray(x2)
    if x2.ndim >= 2 and x2.ndim == x1.ndim - 1:  # numpy 1.24 would take a stack of vectors
        x2 = x2.reshape((1,) + x2.shape)
    return _linalg.solve(x1, x2)
