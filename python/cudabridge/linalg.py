"""cb.linalg: numpy.linalg's norm, solve, inv, det and slogdet on the device (np.linalg.norm(x)
and the others, called on a device array, land here), and the array API's linalg names that are
products, transposes and norms. solve, inv, det, slogdet, cholesky, qr, eigh and svd are
computed on the device column by column or rotation by rotation (_solve.py); pinv, matrix_rank,
svdvals, matrix_power and lstsq build on them.

Vector norms (ord None, 2, 1, inf, -inf, 0 and any other number) and the matrix norms that are
sums and maxima ('fro', 1, -1, inf, -inf) are reductions on the device; the matrix 2-norm, -2-norm
and nuclear norm take the singular values from svd (real matrices; complex ones raise TypeError,
as any numpy call without a device implementation does).
"""

import numbers
import warnings

import numpy as np

from . import _array, _complex, _linalg, _reductions
from ._array_api import matrix_transpose, vecdot
from ._linalg import matmul, outer, tensordot
from ._solve import _adjoint, cholesky, det, eigh, eigvalsh, inv, qr, slogdet, solve, svd
from ._solve import EighResult, QRResult, SlogdetResult, SVDResult  # noqa: F401 (the results' types)

__all__ = ["norm", "vector_norm", "matrix_norm", "matmul", "matrix_transpose", "outer", "tensordot", "vecdot",
           "diagonal", "trace", "solve", "inv", "det", "slogdet", "cholesky", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank", "matrix_power", "cross", "lstsq"]


def _abs(x):
    return _array._unary("absolute", x)


def _vector_norm(x, ord, axis, keepdims):
    if ord is None or ord == 2:
        return _array._unary("sqrt", _reductions.sum(_complex.squared_magnitude(x), axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == np.inf:
        return _reductions.max(_abs(x), axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _reductions.min(_abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        real = _complex.part_dtype(x.dtype) if x.dtype.kind == "c" else x.dtype
        nonzero = _array._binary("not_equal", x, 0).astype(real)
        return _reductions.sum(nonzero, axis=axis, keepdims=keepdims)
    if ord == 1:
        return _reductions.sum(_abs(x), axis=axis, keepdims=keepdims)
    magnitude = _abs(x)
    # As numpy's in-place powers: in |x|'s dtype, the root's exponent 1 / ord taken in it too.
    powered = _array._binary("power", magnitude, float(ord)).astype(magnitude.dtype, copy=False)
    total = _reductions.sum(powered, axis=axis, keepdims=keepdims)
    with np.errstate(divide="ignore", over="ignore"):
        exponent = float(np.reciprocal(np.asarray(ord, dtype=magnitude.dtype)))
    return _array._binary("power", total, exponent)


def _matrix_norm(x, ord, axes, keepdims):
    row, col = axes
    if ord in (None, "fro", "f"):
        result = _array._unary("sqrt", _reductions.sum(_complex.squared_magnitude(x), axis=axes))
    elif ord in (1, -1, np.inf, -np.inf):
        summed, then = (row, col) if ord in (1, -1) else (col, row)
        if then > summed:
            then -= 1  # the summed axis is gone
        extreme = _reductions.max if ord > 0 else _reductions.min
        result = extreme(_reductions.sum(_abs(x), axis=summed), axis=then)
    elif ord in (2, -2, "nuc"):
        from ._manipulation import moveaxis
        s = svd(moveaxis(x, (row, col), (-2, -1)), compute_uv=False)
        result = {2: _reductions.max, -2: _reductions.min, "nuc": _reductions.sum}[ord](s, axis=-1)
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[row] = shape[col] = 1
        result = result.reshape(tuple(shape))
    return result


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm on the device: a 0-d or reduced device array of x's real float dtype
    (integers and bool in float64, as numpy)."""
    x = _array.asarray(x)
    if x.dtype.kind not in "fc":
        x = x.astype(np.float64)
    if axis is None:
        if ord is None or (x.ndim == 2 and ord in ("fro", "f")) or (x.ndim == 1 and ord == 2):
            result = _array._unary("sqrt", _reductions.sum(_complex.squared_magnitude(x.reshape(-1))))
            return result.reshape((1,) * x.ndim) if keepdims else result
        axis = tuple(range(x.ndim))
    elif isinstance(axis, (numbers.Integral, np.integer)):
        axis = (int(axis),)
    else:
        axis = tuple(axis)
    axis = tuple(_array._axis(a, x.ndim) for a in axis)
    if len(axis) == 1:
        return _vector_norm(x, ord, axis[0], keepdims)
    if len(axis) == 2:
        if axis[0] == axis[1]:
            raise ValueError("Duplicate axes given.")
        return _matrix_norm(x, ord, axis, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


# ---- the array API's linalg extension (2022.12): its names over the last two axes ----------------

def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The array API's vector_norm: `ord` over `axis` (None: every element, a tuple: those axes
    taken together)."""
    x = _array.asarray(x)
    if x.dtype.kind not in "fc":
        x = x.astype(np.float64)
    if axis is None:
        result = _vector_norm(x.reshape(-1), ord, 0, False)
        return result.reshape((1,) * x.ndim) if keepdims else result
    return _vector_norm(x, ord, axis, keepdims)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The array API's matrix_norm over the last two axes."""
    x = _array.asarray(x)
    if x.ndim < 2:
        raise ValueError("matrix_norm needs at least two dimensions")
    return norm(x, ord, (-2, -1), keepdims)


def diagonal(x, /, *, offset=0):
    """The diagonal of each matrix in the last two axes."""
    return _linalg.diagonal(x, offset, -2, -1)


def trace(x, /, *, offset=0, dtype=None):
    """The trace of each matrix in the last two axes."""
    return _linalg.trace(x, offset, -2, -1, dtype)


def matrix_power(a, n):
    """numpy.linalg.matrix_power: a @ a @ ... (n times) by repeated squaring; n == 0 gives the
    identity (in a's dtype), n < 0 powers of inv(a)."""
    import operator
    a = _array.asarray(a)
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError("exponent must be an integer") from None
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square" if a.ndim >= 2 else
                                    f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
    if n == 0:
        from ._creation import eye
        from ._manipulation import broadcast_to
        return broadcast_to(eye(a.shape[-1], dtype=a.dtype), a.shape).copy()
    if n < 0:
        a, n = inv(a), -n
    result, square = None, a
    while True:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if not n:
            return result.copy() if result is a else result
        square = matmul(square, square)


def cross(x1, x2, /, *, axis=-1):
    """The array API's linalg.cross: the cross product of 3-vectors along `axis`."""
    from ._shaping import cross as numpy_cross
    x1, x2 = _array.asarray(x1), _array.asarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError("linalg.cross needs vectors of 3 elements along the axis")
    return numpy_cross(x1, x2, axis=axis)


def svdvals(x, /):
    """The array API's linalg.svdvals: the singular values, descending."""
    return svd(x, compute_uv=False)


def _per_matrix(value):
    """A tolerance for a stack of singular-value rows: a number as it is, an array (one value per
    matrix) with a trailing axis to broadcast along each row, as numpy's [..., newaxis]."""
    if isinstance(value, numbers.Number):
        return value
    value = _array.asarray(value)
    return value.reshape(value.shape + (1,))


def pinv(a, rcond=1e-15, hermitian=False, *, rtol=None):
    """numpy.linalg.pinv: V diag(1/s) U^H over the singular values above rcond (or the array
    API's rtol) times the largest."""
    from ._indexing import where
    a = _array.asarray(a)
    if a.size == 0:  # no singular values to cut: numpy's empty (n x m) stack
        m, n = a.shape[-2:]
        return _array.zeros(a.shape[:-2] + (n, m), a.dtype)
    u, s, vt = svd(a, full_matrices=False)
    cutoff = _array._binary("multiply", _reductions.max(s, axis=-1, keepdims=True),
                            _per_matrix(rcond if rtol is None else rtol))
    large = _array._binary("greater", s, cutoff)
    inverse = where(large, _array._unary("reciprocal", where(large, s, s.dtype.type(1))), s.dtype.type(0))
    scaled = _array._binary("multiply", inverse.reshape(inverse.shape[:-1] + (inverse.shape[-1], 1)), _adjoint(u))
    return matmul(_adjoint(vt), scaled)


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """numpy.linalg.matrix_rank: how many singular values exceed tol (by default the largest
    times max(M, N) times the dtype's eps; the array API's rtol scales the largest instead), an
    int64 device array; a 0-d or 1-d A has rank 1 unless it is all zeros."""
    A = _array.asarray(A)
    if A.ndim < 2:
        return _array._binary("not_equal", _reductions.max(_array._unary("absolute", A)) if A.size else
                              _array.zeros((), A.dtype), 0).astype(np.int64)
    s = svd(A, compute_uv=False)
    if tol is None:
        factor = _per_matrix(rtol) if rtol is not None else max(A.shape[-2:]) * np.finfo(s.dtype).eps
        tol = _array._binary("multiply", _reductions.max(s, axis=-1, keepdims=True), factor)
    else:
        tol = _per_matrix(tol)
    return _reductions.count_nonzero(_array._binary("greater", s, tol), axis=-1)


def _lstsq_types(a, b):
    """numpy's lstsq types: computed in float64, returned in float32 when both inputs are
    single precision (numpy.linalg's _commonType); float16 is refused as numpy refuses it."""
    for x in (a, b):
        if x.dtype == np.float16:
            raise TypeError("array type float16 is unsupported in linalg")
        if x.dtype.kind == "c":
            raise TypeError("lstsq of complex matrices is not computed on the device")
    single = all(x.dtype in (np.float32,) for x in (a, b))
    return np.dtype(np.float32 if single else np.float64)


def lstsq(a, b, rcond="warn"):
    """numpy.linalg.lstsq of real matrices: the minimum-norm least-squares solution through the
    SVD, as LAPACK's gelsd: singular values up to rcond times the largest count as zero (rcond
    None: float64's eps times max(M, N); -1, numpy's old default: eps). Returns (x, residuals,
    rank, s) as numpy does: the residuals' squared norms per column only when rank == N < M,
    else an empty array; rank an int32 scalar."""
    from ._indexing import where
    zeros = _array.zeros
    a, b = _array.asarray(a), _array.asarray(b)
    one_column = b.ndim == 1
    b2 = b.reshape(b.shape + (1,)) if one_column else b
    for x in (a, b2):
        if x.ndim != 2:
            raise np.linalg.LinAlgError(f"{x.ndim}-dimensional array given. Array must be two-dimensional")
    (m, n), k = a.shape, b2.shape[1]
    if b2.shape[0] != m:
        raise np.linalg.LinAlgError("Incompatible dimensions")
    result = _lstsq_types(a, b)
    if rcond == "warn":
        warnings.warn("lstsq's default rcond will become float64's eps times max(M, N), as rcond=None "
                      "gives; pass rcond=None for that, or rcond=-1 for today's eps", FutureWarning, stacklevel=2)
        rcond = -1
    if rcond is None:
        rcond = np.finfo(np.float64).eps * max(m, n)
    a64, b64 = a.astype(np.float64), b2.astype(np.float64)
    if min(m, n) == 0:
        x, s, rank = zeros((n, k), np.float64), zeros((0,), np.float64), 0
    else:
        u, s, vt = svd(a64, full_matrices=False)
        relative = float(rcond) if rcond >= 0 else np.finfo(np.float64).eps  # gelsd: rcond < 0 means eps
        cutoff = _array._binary("multiply", _reductions.max(s), relative)
        large = _array._binary("greater", s, cutoff)
        rank = int(_reductions.count_nonzero(large))
        inverse = where(large, _array._unary("reciprocal", where(large, s, 1.0)), 0.0)
        projected = _array._binary("multiply", inverse.reshape((-1, 1)), matmul(u.swapaxes(0, 1), b64))
        x = matmul(vt.swapaxes(0, 1), projected)
    if rank == n and m > n:
        r = _array._binary("subtract", b64, matmul(a64, x)) if n else b64
        residuals = _reductions.sum(_array._binary("multiply", r, r), axis=0)
    else:
        residuals = zeros((0,), np.float64)
    if one_column:
        x = x.reshape((n,))
    return x.astype(result), residuals.astype(result), np.int32(rank), s.astype(result)
