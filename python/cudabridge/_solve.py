"""numpy.linalg's solve, inv, det, slogdet, cholesky, qr, eigh and svd on the device: one column
(or one rotation) per step, every matrix of a batch at once, each step a handful of kernels.

- solve, inv, det and slogdet: Gauss-Jordan elimination with partial pivoting. A step finds the
  pivot (the row at or below the diagonal with the largest magnitude in the column, as LAPACK's
  getrf picks it), swaps it up (a gather), divides the pivot row by the pivot and subtracts
  multiples of it from the other rows. The pivots are the diagonal of getrf's U, so det and
  slogdet are their product with the swaps' sign.
- cholesky: potrf's right-looking columns, reading the lower triangle only, as numpy's.
- qr: Householder reflections with LAPACK geqrf's signs, Q built from them as orgqr does.
- eigh: cyclic Jacobi rotations (real symmetric matrices), with one convergence read per sweep.
- svd: Hestenes' one-sided Jacobi (real matrices), the same way.

Only numpy's exceptions come back to the host: LinAlgError("Singular matrix") where a pivot is
exactly 0, as getrf reports it, and LinAlgError("Matrix is not positive definite") where a
cholesky pivot is not positive, as potrf does (one flag read after the last step). Integer and
bool matrices are computed in float64, float32 and the complex dtypes in their own; float16
raises TypeError, as numpy.linalg does.
"""

from collections import namedtuple

import numpy as np

from . import _array
from ._array import _binary, _unary, asarray

# The results as named tuples, by the array API's (and numpy 2's) names; still tuples to unpack.
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])

_LinAlgError = np.linalg.LinAlgError


def _matrix_stack(a, name):
    """a as a float or complex stack of matrices, with numpy.linalg's checks and dtype."""
    a = asarray(a)
    if a.ndim < 2:
        raise _LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
    if a.dtype == np.float16:
        raise TypeError(f"array type float16 is unsupported in linalg ({name})")
    return a if a.dtype.kind in "fc" else a.astype(np.float64)


def _square_stack(a, name):
    a = _matrix_stack(a, name)
    if a.shape[-1] != a.shape[-2]:
        raise _LinAlgError("Last 2 dimensions of the array must be square")
    return a


def _eliminate(m, n, lu_only):
    """Gauss-Jordan on the contiguous stack m (..., n, n + k): the reduced stack, the pivots
    (..., n) and which steps swapped rows (..., n). With lu_only only the rows below each pivot
    are eliminated and the pivot rows stay unscaled (getrf's LU, enough for the pivots)."""
    from ._creation import arange
    from ._indexing import where
    from ._manipulation import stack
    from ._reductions import argmax
    from ._shaping import _gather
    rows = arange(n, dtype=np.int64)
    pivots, swapped = [], []
    for j in range(n):
        p = _binary("add", argmax(_unary("absolute", m[..., j:, j]), axis=-1), j)  # (...,)
        pick = p.reshape(p.shape + (1,))
        order = where(_binary("equal", rows, j), pick, where(_binary("equal", rows, pick), j, rows))
        m = _gather(m, order.reshape(order.shape + (1,)), m.ndim - 2)
        swapped.append(_binary("not_equal", p, j))
        pivot = m[..., j:j + 1, j:j + 1].copy()
        pivots.append(pivot.reshape(pivot.shape[:-2]))
        # A zero pivot (its whole column at and below it is 0) scales nothing, as getrf skips it.
        row = _binary("divide", m[..., j:j + 1, :], where(_binary("equal", pivot, 0), m.dtype.type(1), pivot))
        others = _binary("greater" if lu_only else "not_equal", rows, j).reshape((n, 1)).astype(m.dtype)
        m = _binary("subtract", m, _binary("multiply", _binary("multiply", m[..., :, j:j + 1], others), row))
        if not lu_only:
            m[..., j:j + 1, :] = row
    return m, stack(pivots, axis=-1), stack(swapped, axis=-1)


def _check_nonsingular(pivots):
    if pivots.size and bool(_array._reduce("max", _binary("equal", pivots, 0), None, False)):
        raise _LinAlgError("Singular matrix")


def solve(a, b):
    """numpy.linalg.solve: x with a @ x == b, for a (..., n, n) and b (..., n) (when b.ndim is 1
    or a.ndim - 1) or (..., n, k), the batch dimensions broadcast."""
    a = _square_stack(a, "solve")
    b = asarray(b)
    n = a.shape[-1]
    vector = b.ndim == 1 or b.ndim == a.ndim - 1
    dtype = np.result_type(a.dtype, b.dtype if b.dtype.kind in "fc" and b.dtype != np.float16 else np.float64)
    rhs = b.reshape(b.shape + (1,)) if vector else b
    if rhs.ndim < 2 or rhs.shape[-2] != n:
        raise ValueError(f"solve: the right-hand side has shape {b.shape}, which does not fit a ({n}, {n}) system")
    batch = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
    k = rhs.shape[-1]
    if n == 0 or k == 0 or 0 in batch:
        out = _array.zeros(batch + (n,) + (() if vector else (k,)), dtype)
        return out
    from ._manipulation import broadcast_to, concatenate
    system = concatenate([broadcast_to(a.astype(dtype), batch + (n, n)),
                         broadcast_to(rhs.astype(dtype), batch + (n, k))], axis=-1)
    m, pivots, _ = _eliminate(system, n, False)
    _check_nonsingular(pivots)
    x = m[..., n:]
    return (x.reshape(x.shape[:-1]) if vector else x).copy()


def inv(a):
    """numpy.linalg.inv: solve(a, I) for each matrix of the stack."""
    a = _square_stack(a, "inv")
    from ._creation import eye
    from ._manipulation import broadcast_to
    n = a.shape[-1]
    return solve(a, broadcast_to(eye(n, dtype=a.dtype), a.shape))


def _pivots_and_sign(a, name):
    a = _square_stack(a, name)
    n = a.shape[-1]
    if n == 0 or a.size == 0:
        return a, None, None
    _, pivots, swapped = _eliminate(a.copy(), n, True)
    from ._reductions import sum as total
    odd = _binary("remainder", total(swapped.astype(np.int64), axis=-1), 2)
    return a, pivots, _binary("subtract", 1, _binary("multiply", odd, 2)).astype(a.dtype)


def det(a):
    """numpy.linalg.det: the product of the pivots, negated for an odd number of row swaps (0 for
    a singular matrix)."""
    a, pivots, sign = _pivots_and_sign(a, "det")
    if pivots is None:
        return _array.full(a.shape[:-2], 1, a.dtype)
    from ._reductions import prod
    return _binary("multiply", sign, prod(pivots, axis=-1))


def slogdet(a):
    """numpy.linalg.slogdet: (sign, log|det|), sign 0 and logdet -inf for a singular matrix; sign
    is complex of modulus 1 for complex matrices."""
    a, pivots, sign = _pivots_and_sign(a, "slogdet")
    real = np.dtype(a.dtype.char.lower()) if a.dtype.kind == "c" else a.dtype
    if pivots is None:
        return SlogdetResult(_array.full(a.shape[:-2], 1, a.dtype), _array.full(a.shape[:-2], 0, real))
    from ._reductions import prod, sum as total
    magnitude = _unary("absolute", pivots)
    units = _binary("divide", pivots, magnitude)  # NaN where a pivot is 0: replaced below
    zero = _array._reduce("max", _binary("equal", magnitude, 0), -1, False)
    from ._indexing import where
    sign = where(zero, a.dtype.type(0), _binary("multiply", sign, prod(units, axis=-1)))
    logdet = total(_unary("log", magnitude), axis=-1)  # -inf for a zero pivot
    return SlogdetResult(sign, logdet)


def cholesky(a, *, upper=False):
    """numpy.linalg.cholesky: lower-triangular L with a = L @ L.conj().T (right-looking: column j
    is the trailing block's first column over the square root of its pivot, and the block below
    and right of it loses that column's outer product). upper=True (the array API's, and numpy
    2's) gives U = L^H instead, with a = U^H @ U."""
    if upper:
        return _adjoint(cholesky(a))
    a = _square_stack(a, "cholesky")
    n = a.shape[-1]
    m = a.copy()
    out = _array.zeros(a.shape, a.dtype)
    if n == 0 or a.size == 0:
        return out
    from ._complex import conjugate_into, real
    pivots = []
    for j in range(n):
        pivot = real(m[..., j, j]).copy()  # the imaginary part of a Hermitian diagonal is ignored
        pivots.append(pivot)
        column = _binary("divide", m[..., j:, j], _unary("sqrt", pivot).reshape(pivot.shape + (1,)))
        out[..., j:, j] = column
        below = column[..., 1:]
        if below.shape[-1]:
            conj = conjugate_into(below, None) if a.dtype.kind == "c" else below
            outer = _binary("multiply", below.reshape(below.shape + (1,)),
                            conj.reshape(conj.shape[:-1] + (1,) + conj.shape[-1:]))
            m[..., j + 1:, j + 1:] = _binary("subtract", m[..., j + 1:, j + 1:], outer)
    from ._manipulation import stack
    bad = _unary("logical_not", _binary("greater", stack(pivots, axis=-1), 0))  # NaN is not positive either
    if bool(_array._reduce("max", bad, None, False)):
        raise _LinAlgError("Matrix is not positive definite")
    return out


def _householder(x):
    """LAPACK's larfg for each vector x (..., p) of a stack: (v, tau, beta) with v[..., 0] = 1 and
    (I - tau v v^H)^H x = (beta, 0, ..., 0); beta = -sign(Re x0) |x|. Where x is already
    (x0, 0, ..., 0) with x0 real, tau = 0 and beta = x0: no reflection."""
    from ._complex import imag, real
    from ._indexing import where
    from ._reductions import max as largest, sum as total
    from ._complex import squared_magnitude
    alpha = x[..., 0].copy()
    # |x| as LAPACK's nrm2 takes it: over x scaled by its largest magnitude, so squares cannot overflow
    big = largest(_unary("absolute", x), axis=-1)
    unit = where(_binary("equal", big, 0), big.dtype.type(1), big)
    y = _binary("divide", x, unit.reshape(unit.shape + (1,)))
    rest = squared_magnitude(y[..., 1:]) if x.shape[-1] > 1 else None
    tail = total(rest, axis=-1) if rest is not None else _array.zeros(alpha.shape, real(alpha).dtype)
    still = _binary("logical_and", _binary("equal", tail, 0), _binary("equal", imag(alpha), 0))
    norm = _binary("multiply", _unary("sqrt", _binary("add", squared_magnitude(y[..., 0]), tail)), unit)
    beta = where(still, real(alpha), _binary("multiply", _unary("negative", norm),
                                             _binary("copysign", 1.0, real(alpha))))
    beta = beta.astype(x.dtype)
    tau = where(still, x.dtype.type(0), _binary("divide", _binary("subtract", beta, alpha), beta))
    scale = where(still, x.dtype.type(1), _binary("subtract", alpha, beta))
    v = _binary("divide", x, scale.reshape(scale.shape + (1,)))
    v[..., 0] = 1
    return v, tau, beta


def qr(a, mode="reduced"):
    """numpy.linalg.qr: Householder reflections one column at a time, as LAPACK's geqrf (the same
    signs), Q accumulated from them as orgqr does. mode "reduced" (Q m x k, R k x n), "complete"
    (Q m x m, R m x n) or "r" (R alone); k = min(m, n)."""
    from ._creation import eye
    from ._linalg import matmul
    from ._manipulation import broadcast_to
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unrecognized mode '{mode}'" if mode != "raw" else
                         "qr: mode='raw' (LAPACK's packed reflectors) is not computed on the device")
    a = _matrix_stack(a, "qr")
    r = a.copy()
    m, n = r.shape[-2:]
    k = min(m, n)

    reflectors = []
    for j in range(k):
        v, tau, beta = _householder(r[..., j:, j])
        block = r[..., j:, j:]
        w = matmul(_conj(v).reshape(v.shape[:-1] + (1, v.shape[-1])), block)  # v^H R
        step = _binary("multiply", _conj(tau).reshape(tau.shape + (1, 1)), v.reshape(v.shape + (1,)))
        r[..., j:, j:] = _binary("subtract", block, _binary("multiply", step, w))
        r[..., j, j] = beta
        r[..., j + 1:, j] = 0
        reflectors.append((v, tau))
    rows = m if mode == "complete" else k
    r = r[..., :rows, :].copy()
    if mode == "r":
        return r
    q = broadcast_to(eye(m, rows, dtype=r.dtype), a.shape[:-2] + (m, rows)).copy()
    for j in reversed(range(k)):
        v, tau = reflectors[j]
        block = q[..., j:, :]
        w = matmul(_conj(v).reshape(v.shape[:-1] + (1, v.shape[-1])), block)
        step = _binary("multiply", tau.reshape(tau.shape + (1, 1)), v.reshape(v.shape + (1,)))
        q[..., j:, :] = _binary("subtract", block, _binary("multiply", step, w))
    return QRResult(q, r)


def _rotate(m, p, q, c, s, axis, s_q=None):
    """Rows (axis -2) or columns (axis -1) p and q of the stack m replaced by c*p - s*q and
    s_q*p + c*q (s_q = s for a real rotation), in place; c, s and s_q are (...,) per matrix."""
    index = (Ellipsis, slice(p, p + 1), slice(None)) if axis == -2 else (Ellipsis, slice(None), slice(p, p + 1))
    other = (Ellipsis, slice(q, q + 1), slice(None)) if axis == -2 else (Ellipsis, slice(None), slice(q, q + 1))
    shape = c.shape + (1, 1)
    c, s = c.reshape(shape), s.reshape(shape)
    s_q = s if s_q is None else s_q.reshape(shape)
    a, b = m[index].copy(), m[other].copy()
    m[index] = _binary("subtract", _binary("multiply", c, a), _binary("multiply", s, b))
    m[other] = _binary("add", _binary("multiply", s_q, a), _binary("multiply", c, b))


def _jacobi_rotation(app, aqq, apq):
    """(c, s) of the rotation that zeroes apq in the symmetric 2x2 [[app, apq], [apq, aqq]] (each
    (...,) per matrix), the smaller angle of the two (Rutishauser's formula); c = 1, s = 0 where
    apq is already 0."""
    from ._indexing import where
    zero = _binary("equal", apq, 0)
    one = app.dtype.type(1)
    theta = _binary("divide", _binary("subtract", aqq, app), _binary("multiply", where(zero, one, apq), 2))
    t = _binary("divide", _binary("copysign", 1.0, theta),
                _binary("add", _unary("absolute", theta),
                        _unary("sqrt", _binary("add", _binary("multiply", theta, theta), 1))))
    t = where(zero, app.dtype.type(0), t)
    c = _unary("reciprocal", _unary("sqrt", _binary("add", _binary("multiply", t, t), 1)))
    return c, _binary("multiply", t, c)


def eigh(a, UPLO="L"):
    """numpy.linalg.eigh of real symmetric matrices: the cyclic Jacobi method, a rotation per
    off-diagonal pair zeroing it, sweeps until the off-diagonal part is below the precision
    (its size read back once per sweep). Eigenvalues ascending; each eigenvector column has
    numpy's content up to its sign, which no LAPACK contract fixes either. Only the UPLO
    triangle is read, as numpy's."""
    from ._reductions import sum as total
    from ._shaping import _gather
    a = _square_stack(a, "eigh")
    if a.dtype.kind == "c":
        raise TypeError("eigh of complex (Hermitian) matrices is not computed on the device")
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    n = a.shape[-1]
    from ._creation import eye
    from ._manipulation import broadcast_to
    from ._array_api import tril, triu
    half = tril(a, k=-1) if UPLO == "L" else triu(a, k=1)
    m = _binary("add", _binary("add", half, half.swapaxes(-1, -2)), _binary("multiply", a, eye(n, dtype=a.dtype)))
    vectors = broadcast_to(eye(n, dtype=a.dtype), a.shape).copy()
    eps = float(np.finfo(a.dtype).eps)
    scale = float(total(_binary("multiply", m, m)))
    for _ in range(60):  # Jacobi converges quadratically: a few sweeps in practice
        off = _binary("subtract", m, _binary("multiply", m, eye(n, dtype=a.dtype)))
        if n < 2 or float(total(_binary("multiply", off, off))) <= (eps * eps) * scale:
            break
        for p in range(n - 1):
            for q in range(p + 1, n):
                c, s = _jacobi_rotation(m[..., p, p], m[..., q, q], m[..., p, q])
                _rotate(m, p, q, c, s, -2)
                _rotate(m, p, q, c, s, -1)
                _rotate(vectors, p, q, c, s, -1)
    from ._linalg import diagonal
    values = diagonal(m, 0, -2, -1).copy()
    from ._sorting import argsort
    order = argsort(values, axis=-1)
    values = _gather(values, order, values.ndim - 1)
    vectors = _gather(vectors, broadcast_to(order.reshape(order.shape[:-1] + (1, n)), vectors.shape), vectors.ndim - 1)
    return EighResult(values, vectors)


def eigvalsh(a, UPLO="L"):
    """numpy.linalg.eigvalsh: eigh's eigenvalues, ascending."""
    return eigh(a, UPLO)[0]


def _conj(z):
    from ._complex import conjugate_into
    return conjugate_into(z, None) if z.dtype.kind == "c" else z


def _adjoint(x):
    """The conjugate transpose of each matrix of the stack x (the transpose of a real one), a copy."""
    return _conj(x.swapaxes(-1, -2).copy())


def _power_of_two_scale(a):
    """Per matrix of the stack a, the power of two at or below its largest magnitude (1 for a zero,
    empty or non-finite matrix): dividing by it is exact, and leaves every magnitude below 2."""
    from ._indexing import where
    from ._reductions import max as largest
    magnitude = _unary("absolute", a)
    big = largest(magnitude, axis=(-2, -1)) if a.size else _array.zeros(a.shape[:-2], magnitude.dtype)
    fine = _binary("logical_and", _unary("isfinite", big), _binary("greater", big, 0))
    exponent = _unary("floor", _unary("log2", where(fine, big, big.dtype.type(1))))
    return _unary("exp2", exponent).astype(big.dtype)


def _one_sided_jacobi(a):
    """Hestenes' one-sided Jacobi on the columns of the stack a (..., m, n), m >= n: rotations
    of column pairs until every pair is orthogonal to the dtype's precision (one read per
    sweep). Returns the rotated columns and the accumulated rotation V (unitary: for complex
    columns with cp^H cq = |gamma| phase, the real rotation of |gamma| with the phase on s)."""
    from ._complex import squared_magnitude
    from ._creation import eye
    from ._indexing import where
    from ._manipulation import broadcast_to, stack
    from ._reductions import sum as total
    m_cols, n = a.shape[-2], a.shape[-1]
    work = a.copy()
    v = broadcast_to(eye(n, dtype=a.dtype), a.shape[:-2] + (n, n)).copy()
    complex_ = a.dtype.kind == "c"
    eps = float(np.finfo(a.dtype).eps)
    for _ in range(60):
        if n < 2 or a.size == 0:  # nothing to rotate
            break
        departures = []  # per pair, how far from orthogonal it was: |gamma| / sqrt(alpha beta)
        for p in range(n - 1):
            for q in range(p + 1, n):
                cp, cq = work[..., :, p], work[..., :, q]
                alpha = total(squared_magnitude(cp), axis=-1)
                beta = total(squared_magnitude(cq), axis=-1)
                gamma = total(_binary("multiply", _conj(cp), cq), axis=-1)
                size = _unary("absolute", gamma)
                if complex_:
                    c, s = _jacobi_rotation(alpha, beta, size)
                    phase = _binary("divide", gamma, where(_binary("equal", size, 0), size.dtype.type(1), size))
                    s_p, s_q = _binary("multiply", s, _conj(phase)), _binary("multiply", s, phase)
                    _rotate(work, p, q, c, s_p, -1, s_q)
                    _rotate(v, p, q, c, s_p, -1, s_q)
                else:
                    c, s = _jacobi_rotation(alpha, beta, gamma)
                    _rotate(work, p, q, c, s, -1)
                    _rotate(v, p, q, c, s, -1)
                departure = _binary("divide", size, _unary("sqrt", _binary("multiply", alpha, beta)))
                departures.append(where(_binary("equal", size, 0), size.dtype.type(0), departure))
        if not float(_array._reduce("max", stack(departures), None, False)) > eps * m_cols:
            break
    return work, v


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """numpy.linalg.svd: one-sided Jacobi (of a, or of its conjugate transpose when it is wide),
    the singular values the columns' norms, descending; U's columns the normalized columns,
    completed to an orthonormal basis by a QR when full_matrices. U and V hold numpy's singular
    vectors up to sign (a unit phase for complex matrices), which LAPACK leaves free too."""
    from ._reductions import sum as total
    from ._sorting import argsort
    from ._shaping import _gather
    from ._manipulation import broadcast_to, concatenate, flip
    from ._complex import squared_magnitude
    a = _matrix_stack(a, "svd")
    m, n = a.shape[-2:]
    wide = m < n
    unit = _power_of_two_scale(a)  # as LAPACK's gesvd scales: the columns' squared norms cannot overflow
    scaled = _binary("divide", a, unit.reshape(unit.shape + (1, 1)))
    work_in = _adjoint(scaled) if wide else scaled
    work, v = _one_sided_jacobi(work_in)
    sigma = _unary("sqrt", total(squared_magnitude(work), axis=-2))
    order = flip(argsort(sigma, axis=-1), -1)  # descending
    sigma = _gather(sigma, order, sigma.ndim - 1)
    if not compute_uv:
        return _binary("multiply", sigma, unit.reshape(unit.shape + (1,)))
    k = sigma.shape[-1]
    columns = broadcast_to(order.reshape(order.shape[:-1] + (1, k)), work.shape[:-1] + (k,))
    work = _gather(work, columns.copy(), work.ndim - 1)
    v = _gather(v, broadcast_to(order.reshape(order.shape[:-1] + (1, k)), v.shape).copy(), v.ndim - 1)
    from ._indexing import where
    safe = where(_binary("equal", sigma, 0), sigma.dtype.type(1), sigma)
    u = _binary("divide", work, safe.reshape(safe.shape[:-1] + (1, k)))
    rows = u.shape[-2]
    if full_matrices and rows > k:
        q, _ = qr(u, mode="complete")
        u = concatenate([u, q[..., :, k:]], axis=-1)
    vt = _adjoint(v)
    if wide:  # a^H = U S V^H (U completed above when full_matrices), so a = V S U^H
        u, vt = v, _adjoint(u)
    return SVDResult(u, _binary("multiply", sigma, unit.reshape(unit.shape + (1,))), vt)
