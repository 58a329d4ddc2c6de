"""numpy.linalg's solve, inv, det, slogdet, cholesky and matrix_power on the device against numpy
1.24 (LAPACK): every
dtype numpy.linalg takes, single matrices and broadcast stacks, vector and matrix right-hand
sides, pivoting (a zero leading entry), singular and empty matrices, and numpy's errors. The
calls go through numpy's dispatch (np.linalg.solve(device_array, ...)) and return device arrays."""
import numpy as np
import pytest

import cudabridge as cb

DTYPES = [np.float64, np.float32, np.complex128, np.complex64, np.int64, np.int32, np.bool_]
RTOL = {np.dtype(np.float32): 2e-4, np.dtype(np.complex64): 2e-4}


def well_conditioned(shape, dtype, seed):
    """Random matrices plus n on the diagonal, so results are well within float32's precision."""
    rng = np.random.default_rng(seed)
    n = shape[-1]
    if np.dtype(dtype) == np.bool_:
        return (np.triu(rng.integers(0, 2, shape), 1) | np.eye(n, dtype=np.int64)).astype(np.bool_)  # unit upper
    if np.dtype(dtype).kind in "iu":
        return (rng.integers(-4, 5, shape) + 10 * np.eye(n, dtype=np.int64)).astype(dtype)
    a = rng.standard_normal(shape) + n * np.eye(n)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def matches(got, want):
    assert isinstance(got, cb.ndarray), type(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    tol = RTOL.get(want.dtype, 1e-10)
    np.testing.assert_allclose(got.get(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("a_shape, b_shape", [((4, 4), (4,)), ((4, 4), (4, 3)), ((2, 3, 3), (2, 3)),
                                              ((2, 3, 3), (2, 3, 2)), ((2, 1, 3, 3), (1, 4, 3, 2)),
                                              ((1, 1), (1,))])
def test_solve(gpu, dtype, a_shape, b_shape):
    a = well_conditioned(a_shape, dtype, 1)
    b = np.random.default_rng(2).standard_normal(b_shape).astype(dtype if np.dtype(dtype).kind in "fc" else np.float64)
    matches(np.linalg.solve(cb.asarray(a), cb.asarray(b)), np.linalg.solve(a, b))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 5), (3, 4, 4), (2, 2, 2, 2), (1, 1)])
def test_inv_det_slogdet(gpu, dtype, shape):
    a = well_conditioned(shape, dtype, 3)
    d = cb.asarray(a)
    matches(np.linalg.inv(d), np.linalg.inv(a))
    matches(np.linalg.det(d), np.linalg.det(a))
    sign, logdet = np.linalg.slogdet(d)
    want_sign, want_logdet = np.linalg.slogdet(a)
    matches(sign, want_sign)
    matches(logdet, want_logdet)


def test_pivoting_swaps_rows_and_the_sign_follows(gpu):
    a = np.array([[0.0, 2, 1], [1, 1, 0], [3, 0, 1]])  # a zero leading entry: the first step must swap
    d = cb.asarray(a)
    matches(cb.linalg.solve(d, cb.asarray(np.array([1.0, 2, 3]))), np.linalg.solve(a, [1.0, 2, 3]))
    matches(cb.linalg.det(d), np.linalg.det(a))
    matches(cb.linalg.det(cb.asarray(a[[1, 0, 2]])), np.linalg.det(a[[1, 0, 2]]))


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_singular_matrices(gpu, dtype):
    s = np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], dtype)
    d = cb.asarray(s)
    for call in (lambda: np.linalg.inv(d), lambda: np.linalg.solve(d, cb.ones(3, dtype))):
        with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
            call()
    assert complex(np.linalg.det(d)) == 0
    sign, logdet = np.linalg.slogdet(d)
    assert complex(sign) == 0 and float(logdet) == -np.inf
    stack = cb.asarray(np.stack([np.eye(3, dtype=dtype), s]))  # one singular matrix in a stack
    with pytest.raises(np.linalg.LinAlgError):
        cb.linalg.inv(stack)


def test_empty_matrices_and_numpys_errors(gpu):
    for shape in ((0, 0), (2, 0, 0)):
        matches(cb.linalg.det(cb.zeros(shape, np.float64)), np.linalg.det(np.zeros(shape)))
        matches(cb.linalg.inv(cb.zeros(shape, np.float64)), np.linalg.inv(np.zeros(shape)))
    matches(cb.linalg.solve(cb.zeros((0, 0), np.float64), cb.zeros(0, np.float64)),
            np.linalg.solve(np.zeros((0, 0)), np.zeros(0)))
    with pytest.raises(np.linalg.LinAlgError, match="at least two-dimensional"):
        cb.linalg.inv(cb.zeros(3))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        cb.linalg.det(cb.zeros((2, 3)))
    with pytest.raises(TypeError, match="float16"):
        cb.linalg.inv(cb.ones((2, 2), np.float16))
    with pytest.raises(ValueError):
        cb.linalg.solve(cb.asarray(np.eye(3)), cb.zeros(4))


def hermitian_positive_definite(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64])
@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (3, 4, 4), (2, 1, 3, 3)])
def test_cholesky(gpu, dtype, shape):
    a = hermitian_positive_definite(shape, dtype, 5)
    matches(np.linalg.cholesky(cb.asarray(a)), np.linalg.cholesky(a))
    lower = np.linalg.cholesky(a)  # upper=True (the array API's): U = L^H, a = U^H U
    matches(cb.linalg.cholesky(cb.asarray(a), upper=True), np.swapaxes(lower.conj(), -1, -2))


def test_cholesky_reads_the_lower_triangle_and_refuses_what_lapack_refuses(gpu):
    a = np.array([[4, 100], [2, 5]])  # the upper triangle is never read; integers factor in float64
    matches(cb.linalg.cholesky(cb.asarray(a)), np.linalg.cholesky(a))
    for bad in ([[1.0, 2], [2, 1]], [[-1.0, 0], [0, 1]], [[np.nan, 0], [0, 1]]):
        with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
            cb.linalg.cholesky(cb.asarray(np.array(bad)))
    matches(cb.linalg.cholesky(cb.zeros((2, 0, 0), np.float64)), np.linalg.cholesky(np.zeros((2, 0, 0))))
    for empty in ((0, 2, 2), (2, 0, 3), (0, 3, 1)):  # no matrices, or matrices without elements
        for dtype in (np.float64, np.float32, np.complex64):
            want = np.linalg.svd(np.zeros(empty, dtype))
            got = cb.linalg.svd(cb.zeros(empty, dtype))
            assert [(g.shape, g.dtype) for g in got] == [(w.shape, w.dtype) for w in want]
            matches(cb.linalg.pinv(cb.zeros(empty, dtype)), np.linalg.pinv(np.zeros(empty, dtype)))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6, -1, -3])
def test_matrix_power(gpu, n):
    m = well_conditioned((2, 3, 3), np.float64, 6) / 3
    matches(np.linalg.matrix_power(cb.asarray(m), n), np.linalg.matrix_power(m, n))
    i = np.array([[1, 1], [0, 1]])
    matches(cb.linalg.matrix_power(cb.asarray(i), abs(n)), np.linalg.matrix_power(i, abs(n)))  # integers stay
    with pytest.raises(TypeError):
        cb.linalg.matrix_power(cb.asarray(m), 1.5)


def test_array_api_cross(gpu):
    x, y = np.random.default_rng(7).standard_normal((2, 4, 3))
    matches(cb.linalg.cross(cb.asarray(x), cb.asarray(y)), np.cross(x, y))
    matches(cb.linalg.cross(cb.asarray(x.T), cb.asarray(y.T), axis=0), np.cross(x.T, y.T, axis=0))
    with pytest.raises(ValueError, match="3 elements"):
        cb.linalg.cross(cb.ones((2, 2)), cb.ones((2, 2)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64, np.int64])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (1, 1), (2, 6, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_as_lapack(gpu, dtype, shape, mode):
    """geqrf's signs, so Q and R equal numpy's and not only their product."""
    a = well_conditioned(shape[:-1] + (shape[-1],), dtype, 8) if shape[-1] == shape[-2] else sample_any(shape, dtype)
    got, want = np.linalg.qr(cb.asarray(a), mode=mode), np.linalg.qr(a, mode=mode)
    for g, w in ((got, want),) if mode == "r" else zip(got, want):
        matches(g, w)


def sample_any(shape, dtype):
    rng = np.random.default_rng(9)
    x = rng.standard_normal(shape) * 3
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype) if np.dtype(dtype).kind in "fc" else np.round(x).astype(dtype)


def test_qr_of_columns_that_need_no_reflection(gpu):
    for a in (np.array([[2.0, 1], [0, 3], [0, 0]]), np.array([[0.0, 1], [0, 2]]), np.zeros((3, 2))):
        for g, w in zip(cb.linalg.qr(cb.asarray(a)), np.linalg.qr(a)):
            matches(g, w)
    with pytest.raises(np.linalg.LinAlgError, match="two-dimensional"):
        cb.linalg.qr(cb.zeros(3))
    with pytest.raises(ValueError, match="mode"):
        cb.linalg.qr(cb.zeros((2, 2)), mode="full-ish")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (6, 6), (3, 4, 4)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_of_symmetric_matrices(gpu, dtype, shape, uplo):
    """Eigenvalues equal numpy's, ascending; eigenvectors orthonormal with A v = v w (their signs
    are free, in LAPACK too). Only the UPLO triangle is read: the other holds garbage."""
    x = np.random.default_rng(10).standard_normal(shape) * 4
    sym = x + np.swapaxes(x, -1, -2)
    sym = np.round(sym) if np.dtype(dtype).kind == "i" else sym
    a = sym.astype(dtype)
    garbage = a + (np.triu(np.ones(shape[-2:]), 1) if uplo == "L" else np.tril(np.ones(shape[-2:]), -1)).astype(dtype) * 7
    w, v = np.linalg.eigh(cb.asarray(garbage), UPLO=uplo)
    want_w, _ = np.linalg.eigh(a)
    matches(w, want_w)
    assert v.dtype == want_w.dtype and v.shape == a.shape
    vh, wh, ah = v.get(), w.get(), a.astype(want_w.dtype)
    tol = 1e-4 if want_w.dtype == np.float32 else 1e-10
    np.testing.assert_allclose(ah @ vh, vh * wh[..., None, :], atol=tol * max(1, np.abs(wh).max()))
    np.testing.assert_allclose(np.swapaxes(vh, -1, -2) @ vh, np.broadcast_to(np.eye(shape[-1]), a.shape), atol=tol)
    matches(np.linalg.eigvalsh(cb.asarray(garbage), UPLO=uplo), want_w)


def test_eigh_refuses_what_it_does_not_compute(gpu):
    with pytest.raises(TypeError, match="complex"):
        cb.linalg.eigh(cb.asarray(np.eye(2, dtype=np.complex128)))
    with pytest.raises(ValueError, match="UPLO"):
        cb.linalg.eigh(cb.asarray(np.eye(2)), UPLO="X")


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (1, 1), (2, 6, 3), (2, 3, 6)])
@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64])
def test_svd(gpu, shape, full, dtype):
    """numpy's singular values and shapes; U and V^H unitary with U S V^H = a (the vectors'
    signs, or unit phases, are free, in LAPACK too)."""
    a = sample_any(shape, dtype)
    u, s, vt = np.linalg.svd(cb.asarray(a), full_matrices=full)
    want_u, want_s, want_vt = np.linalg.svd(a, full_matrices=full)
    matches(s, want_s)
    assert u.shape == want_u.shape and vt.shape == want_vt.shape and u.dtype == want_u.dtype
    uh, sh, vth = u.get(), s.get(), vt.get()
    k = sh.shape[-1]
    tol = 1e-4 if dtype in (np.float32, np.complex64) else 1e-10
    scale = max(1.0, float(np.abs(sh).max()))
    np.testing.assert_allclose((uh[..., :, :k] * sh[..., None, :]) @ vth[..., :k, :], a, atol=tol * scale)
    np.testing.assert_allclose(np.swapaxes(uh.conj(), -1, -2) @ uh,
                               np.broadcast_to(np.eye(uh.shape[-1]), uh.shape[:-2] + (uh.shape[-1],) * 2), atol=tol)
    np.testing.assert_allclose(vth @ np.swapaxes(vth.conj(), -1, -2),
                               np.broadcast_to(np.eye(vth.shape[-2]), vth.shape[:-2] + (vth.shape[-2],) * 2), atol=tol)
    matches(np.linalg.svd(cb.asarray(a), compute_uv=False), want_s)
    matches(cb.linalg.svdvals(cb.asarray(a)), want_s)


def test_pinv_and_matrix_rank(gpu):
    rng = np.random.default_rng(11)
    deficient = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])
    wide = rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))
    for a in (rng.standard_normal((5, 3)), rng.standard_normal((3, 5)), deficient, rng.standard_normal((2, 4, 4)),
              wide, wide.T, deficient * (1 - 2j)):
        matches(np.linalg.pinv(cb.asarray(a)), np.linalg.pinv(a))
        np.testing.assert_array_equal(np.linalg.matrix_rank(cb.asarray(a)).get(), np.linalg.matrix_rank(a))
    assert int(cb.linalg.matrix_rank(cb.zeros(3, np.float64))) == 0
    assert int(cb.linalg.matrix_rank(cb.ones(3, np.float64))) == 1


# ---- lstsq ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("a_shape, b_shape", [((6, 3), (6,)), ((6, 3), (6, 2)), ((3, 5), (3,)), ((3, 5), (3, 4)),
                                              ((4, 4), (4,)), ((1, 1), (1,)), ((3, 0), (3,)), ((0, 3), (0,)),
                                              ((3, 0), (3, 2)), ((4, 2), (4, 0))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_lstsq(gpu, a_shape, b_shape, dtype):
    """x, residuals (only when rank == N < M), rank and singular values as numpy's, in numpy's
    dtypes (float32 in, float32 out; integers in float64)."""
    rng = np.random.default_rng(21)
    a = (rng.standard_normal(a_shape) * 4).astype(dtype)
    b = (rng.standard_normal(b_shape) * 4).astype(dtype)
    got = np.linalg.lstsq(cb.asarray(a), cb.asarray(b), rcond=None)
    want = np.linalg.lstsq(a, b, rcond=None)
    for g, w in zip(got[:2] + got[3:], want[:2] + want[3:]):
        matches(g, w)
    assert type(got[2]) is type(want[2]) and got[2] == want[2]


@pytest.mark.parametrize("rcond", [None, 1e-10, 0.3])
def test_lstsq_of_rank_deficient_matrices_gives_the_minimum_norm_solution(gpu, rcond):
    """Singular values below rcond times the largest count as zero: numpy's rank and its
    minimum-norm x (columns repeated exactly, so the rank does not hang on roundoff)."""
    rng = np.random.default_rng(22)
    a = rng.standard_normal((7, 4))
    a[:, 2] = a[:, 0]
    a[:, 3] = 2 * a[:, 1]
    a[:, 1] *= 0.01  # with 0.3 the cutoff also drops a real direction
    b = rng.standard_normal((7, 3))
    got = np.linalg.lstsq(cb.asarray(a), cb.asarray(b), rcond=rcond)
    want = np.linalg.lstsq(a, b, rcond=rcond)
    assert got[2] == want[2] < 4
    matches(got[0], want[0])
    matches(got[1], want[1])
    matches(got[3], want[3])


@pytest.mark.parametrize("rcond", [-1, 0])
def test_lstsq_with_a_negative_or_zero_rcond_cuts_at_machine_precision_or_not_at_all(gpu, rcond):
    rng = np.random.default_rng(23)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal(5)
    got, want = np.linalg.lstsq(cb.asarray(a), cb.asarray(b), rcond=rcond), np.linalg.lstsq(a, b, rcond=rcond)
    assert got[2] == want[2] == 3
    matches(got[0], want[0])
    matches(got[1], want[1])


def test_lstsq_warns_of_its_default_rcond_and_refuses_what_numpy_refuses(gpu):
    d = cb.asarray(np.eye(3))
    with pytest.warns(FutureWarning, match="rcond"):
        np.linalg.lstsq(d, cb.ones(3, np.float64))
    with pytest.raises(np.linalg.LinAlgError, match="Incompatible dimensions"):
        np.linalg.lstsq(d, cb.ones(4, np.float64), rcond=None)
    with pytest.raises(np.linalg.LinAlgError, match="3-dimensional array given"):
        np.linalg.lstsq(cb.ones((2, 3, 3), np.float64), d, rcond=None)
    with pytest.raises(np.linalg.LinAlgError, match="3-dimensional array given"):
        np.linalg.lstsq(d, cb.ones((3, 3, 1), np.float64), rcond=None)
    with pytest.raises(TypeError, match="float16"):
        np.linalg.lstsq(cb.ones((3, 3), np.float16), cb.ones(3, np.float16), rcond=None)
    with pytest.raises(TypeError, match="complex"):
        np.linalg.lstsq(d.astype(np.complex128), cb.ones(3, np.float64), rcond=None)


def test_factorizations_return_named_tuples(gpu):
    """The array API's (and numpy 2's) field names; still tuples to unpack as numpy 1.24's."""
    a = sample_any((3, 3), np.float64)
    sym = a + a.T
    d = cb.asarray(a)
    r = cb.linalg.eigh(cb.asarray(sym))
    assert r._fields == ("eigenvalues", "eigenvectors") and r.eigenvalues is r[0]
    assert cb.linalg.qr(d)._fields == ("Q", "R")
    assert cb.linalg.slogdet(d)._fields == ("sign", "logabsdet")
    u, s, vh = cb.linalg.svd(d)
    assert cb.linalg.svd(d)._fields == ("U", "S", "Vh")
    matches(s, np.linalg.svd(a)[1])


def test_householder_norms_do_not_overflow(gpu):
    """|x|^2 of float32 parts near 1e19 overflows; LAPACK scales by the largest magnitude, and so
    does the device: numpy's R, no inf or NaN."""
    x = np.array([[0, 0], [1.1252531e19 + 1.4617213e19j, 0]], np.complex64)
    q, r = cb.linalg.qr(cb.asarray(x))
    want_q, want_r = np.linalg.qr(x)
    np.testing.assert_allclose(r.get(), want_r, rtol=1e-6)
    # Q is unitary: its entries are at most 1, and one that is 0 here is +-1e-17 in some LAPACK
    # builds (OpenBLAS's kernels differ by CPU), so it is compared with float32's absolute error.
    np.testing.assert_allclose(q.get(), want_q, rtol=1e-6, atol=1e-6)
    big = np.array([[3e19, 4e19], [0, 1]], np.float32)
    np.testing.assert_allclose(cb.linalg.qr(cb.asarray(big))[1].get(), np.linalg.qr(big)[1], rtol=1e-6)


def test_singular_values_do_not_overflow(gpu):
    """The columns' squared norms of float32 entries near 1e19 overflow; the matrix is scaled by a
    power of two first, as LAPACK's gesvd does: numpy's singular values, sorted, finite."""
    x = np.zeros((6, 5), np.complex64)
    x[5] = [1j, 6.4224024e18j, 6.6199209e18j, 1.8446742e19j, 5.7517856e18j]
    for a in (x, x.real.astype(np.float32) + np.abs(x).astype(np.float32), x.T):
        want = np.linalg.svd(a, compute_uv=False)
        np.testing.assert_allclose(cb.linalg.svdvals(cb.asarray(a)).get(), np.abs(want), rtol=1e-6, atol=1e-6 * want[0])
        u, s, vh = cb.linalg.svd(cb.asarray(a), full_matrices=False)
        np.testing.assert_allclose((u.get() * s.get()) @ vh.get(), a, rtol=1e-5, atol=1e-5 * want[0])


def test_tolerances_one_per_matrix(gpu):
    """pinv's rcond / rtol and matrix_rank's tol / rtol may hold one value per matrix of the stack."""
    a = np.random.default_rng(12).standard_normal((3, 4, 4))
    cut = np.array([1e-15, 0.5, 0.9])
    matches(np.linalg.pinv(cb.asarray(a), rcond=cut), np.linalg.pinv(a, rcond=cut))
    matches(cb.linalg.pinv(cb.asarray(a), rtol=cb.asarray(cut)), np.linalg.pinv(a, rcond=cut))
    tol = np.array([0.1, 1.0, 3.0])
    np.testing.assert_array_equal(np.linalg.matrix_rank(cb.asarray(a), tol=tol).get(), np.linalg.matrix_rank(a, tol=tol))
    s = np.linalg.svd(a, compute_uv=False)
    want = (s > s.max(axis=-1, keepdims=True) * cut[:, None]).sum(axis=-1)
    np.testing.assert_array_equal(cb.linalg.matrix_rank(cb.asarray(a), rtol=cut).get(), want)
    assert cb.linalg.pinv(cb.zeros((0, 2, 1, 1)), rtol=cb.zeros((0, 2))).shape == (0, 2, 1, 1)
