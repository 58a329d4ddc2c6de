"""The array API standard's (2022.12) names and keywords on device arrays, against numpy 1.24 (or
the standard, where numpy lacks the name) on the same inputs: values and dtypes exact, and the
error cases raise."""
import math

import numpy as np
import pytest

import cudabridge as cb

from device_checks import same

pytestmark = pytest.mark.usefixtures("gpu")

A = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
M = np.array([[1.5, -2.0, 3.0], [4.0, 5.0, -6.5], [7.0, 8.0, 9.0], [0.0, 1.0, 2.0]], dtype=np.float32)
U = np.array([[3, 1, 2], [1, 3, 3]], dtype=np.int16)
Z = np.array([[1j, 2j, 3j], [1 - 1j, 2, -3j]], dtype=np.complex128)


def ident(x):
    return x


# (name, cudabridge call, numpy's answer), each on device copies of the same inputs.
CASES = [
    ("reshape", lambda d: cb.reshape(d(A), (4, 6)), A.reshape(4, 6)),
    ("reshape -1", lambda d: cb.reshape(d(A), (-1,)), A.reshape(-1)),
    ("reshape copy", lambda d: cb.reshape(d(A), (6, 4), copy=True), A.reshape(6, 4)),
    ("astype", lambda d: cb.astype(d(M), np.int16), M.astype(np.int16)),
    ("astype same", lambda d: cb.astype(d(M), np.float32, copy=False), M),
    ("concat", lambda d: cb.concat([d(M), d(M)], axis=1), np.concatenate([M, M], axis=1)),
    ("concat None", lambda d: cb.concat([d(A), d(U)], axis=None),
     np.concatenate([A.reshape(-1), U.reshape(-1)])),
    ("permute_dims", lambda d: cb.permute_dims(d(A), (2, 0, 1)), np.transpose(A, (2, 0, 1))),
    ("matrix_transpose", lambda d: cb.matrix_transpose(d(A)), np.swapaxes(A, -1, -2)),
    ("mT", lambda d: d(M).mT, M.T),
    ("vecdot", lambda d: cb.vecdot(d(A), d(A)), np.sum(A * A, axis=-1, dtype=np.int32)),
    ("vecdot axis", lambda d: cb.vecdot(d(M), d(M), axis=0), np.sum(M * M, axis=0)),
    ("vecdot broadcast", lambda d: cb.vecdot(d(A), d(A[0, 0])), np.sum(A * A[0, 0], axis=-1, dtype=np.int32)),
    ("vecdot complex", lambda d: cb.vecdot(d(Z), d(Z[::-1])), np.sum(Z.conj() * Z[::-1], axis=-1)),
    ("tril", lambda d: cb.tril(d(M)), np.tril(M)),
    ("tril k", lambda d: cb.tril(d(A), k=1), np.tril(A, k=1)),
    ("triu", lambda d: cb.triu(d(M)), np.triu(M)),
    ("triu k", lambda d: cb.triu(d(A), k=-1), np.triu(A, k=-1)),
    ("triu bool", lambda d: cb.triu(d(A > 5), k=2), np.triu(A > 5, k=2)),
    ("unique_values", lambda d: cb.unique_values(d(U)), np.unique(U)),
    ("std correction", lambda d: cb.std(d(M), correction=1), np.std(M, ddof=1)),
    ("var correction axis", lambda d: cb.var(d(M), axis=0, correction=1.5), np.var(M, axis=0, ddof=1.5)),
    ("var ddof", lambda d: cb.var(d(M), ddof=1), np.var(M, ddof=1)),
    ("full fill_value", lambda d: cb.full((2, 3), fill_value=np.int8(7)), np.full((2, 3), np.int8(7))),
    ("full positional", lambda d: cb.full((2,), 2.5, np.float32), np.full((2,), 2.5, np.float32)),
    ("zeros default dtype", lambda d: cb.zeros((2, 2)), np.zeros((2, 2), np.float32)),
    ("ones device", lambda d: cb.ones(3, device=cb.get_device()), np.ones(3, np.float32)),
    ("empty_like device", lambda d: cb.zeros_like(d(U), device=d(U).device), np.zeros_like(U)),
    ("arange device", lambda d: cb.arange(5, device=cb.Device(cb.get_device())), np.arange(5)),
    ("asarray device", lambda d: cb.asarray([1, 2], device=None), np.asarray([1, 2])),
    ("eye device", lambda d: cb.eye(3, 4, k=1, dtype=np.int8, device=None), np.eye(3, 4, k=1, dtype=np.int8)),
    ("linspace device", lambda d: cb.linspace(0, 1, 5, device=None), np.linspace(0, 1, 5)),
    ("full_like device", lambda d: cb.full_like(d(U), 9, device=None), np.full_like(U, 9)),
    ("ones_like device", lambda d: cb.ones_like(d(M), device=None), np.ones_like(M)),
]


@pytest.mark.parametrize("name,call,want", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy(name, call, want):
    same(call(cb.to_device), want)


def test_meshgrid():
    x, y, z = np.arange(3, dtype=np.int64), np.array([1.5, 2.5], dtype=np.float32), np.arange(4, dtype=np.uint8)
    for indexing in ("xy", "ij"):
        got = cb.meshgrid(cb.to_device(x), cb.to_device(y), cb.to_device(z), indexing=indexing)
        for g, w in zip(got, np.meshgrid(x, y, z, indexing=indexing)):
            same(g, w)
    with pytest.raises(ValueError):
        cb.meshgrid(cb.to_device(x), indexing="yx")


def test_unique_namedtuples():
    d = cb.to_device(U)
    values, index, inverse, counts = np.unique(U, return_index=True, return_inverse=True, return_counts=True)
    r = cb.unique_all(d)
    assert type(r).__name__ == "UniqueAllResult"
    same(r.values, values)
    same(r.indices, index)
    same(r.inverse_indices, inverse.reshape(U.shape))
    same(r.counts, counts)
    c = cb.unique_counts(d)
    same(c.values, values)
    same(c.counts, counts)
    i = cb.unique_inverse(d)
    same(i.values, values)
    same(i.inverse_indices, inverse.reshape(U.shape))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_finfo(dtype):
    info, ref = cb.finfo(dtype), np.finfo(dtype)
    for field in ("eps", "max", "min", "smallest_normal"):
        assert type(getattr(info, field)) is float and getattr(info, field) == float(getattr(ref, field))
    assert info.bits == ref.bits and info.dtype == np.dtype(dtype)
    assert info.resolution == ref.resolution  # numpy's other fields stay
    assert cb.finfo(cb.zeros(1, dtype)).eps == float(ref.eps)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_iinfo(dtype):
    info, ref = cb.iinfo(dtype), np.iinfo(dtype)
    assert (info.min, info.max, info.bits, info.dtype) == (ref.min, ref.max, ref.bits, np.dtype(dtype))
    assert type(info.max) is int and type(info.min) is int


def test_dtype_functions():
    pairs = [(a, b) for a in (np.int8, np.uint8, np.int32, np.uint64, np.float16, np.float32, np.bool_)
             for b in (np.int16, np.uint32, np.int64, np.float64, np.bool_)]
    for a, b in pairs:
        assert cb.result_type(a, b) == np.result_type(a, b)
        assert cb.result_type(cb.zeros(1, a), b) == np.result_type(a, b)
        assert cb.can_cast(a, b) == np.can_cast(a, b)
    assert cb.can_cast(cb.zeros(1, np.int8), np.int16)
    assert cb.result_type(np.int8, np.uint8, np.float16) == np.float16
    assert cb.isdtype(np.int8, "signed integer") and not cb.isdtype(np.uint8, "signed integer")
    assert cb.isdtype(np.uint8, ("bool", "integral")) and cb.isdtype(np.bool_, "bool")
    assert cb.isdtype(np.float16, "real floating") and cb.isdtype(np.float32, "numeric")
    assert not cb.isdtype(np.bool_, "numeric") and cb.isdtype(np.float64, np.float64)
    assert not cb.isdtype(np.float32, "complex floating") and cb.isdtype(cb.complex64, "complex floating")


def test_namespace_info_describes_devices_dtypes_and_defaults():
    info = cb.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": True, "data-dependent shapes": True}
    assert info.default_device() in info.devices() and info.devices() == [d.index for d in cb.devices()]
    defaults = info.default_dtypes()
    assert defaults["real floating"] == cb.asarray(1.0).dtype == cb.linspace(0, 1, 3).dtype
    assert defaults["integral"] == defaults["indexing"] == cb.arange(3).dtype
    assert defaults["complex floating"] == cb.asarray(1j).dtype
    every = info.dtypes()
    assert len(every) == 13 and every["uint16"] == np.uint16 and "float16" not in every
    for name, dtype in every.items():  # each one a device array can hold
        assert cb.zeros(2, dtype=dtype).dtype == dtype, name
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}
    assert set(info.dtypes(kind=("bool", "unsigned integer"))) == {"bool", "uint8", "uint16", "uint32", "uint64"}
    assert info.dtypes(device=info.default_device()) == every
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="text")
    with pytest.raises(ValueError, match="device"):
        info.default_dtypes(device=99)


def test_constants():
    assert (cb.e, cb.pi, cb.inf) == (math.e, math.pi, math.inf) and math.isnan(cb.nan) and cb.newaxis is None
    assert cb.to_device(M)[:, cb.newaxis].shape == (4, 1, 3)


ERRORS = [
    ("reshape copy=False strided", ValueError, lambda: cb.reshape(cb.to_device(A).T, (24,), copy=False)),
    ("reshape bad size", ValueError, lambda: cb.reshape(cb.to_device(A), (5, 5))),
    ("matrix_transpose 1-D", ValueError, lambda: cb.matrix_transpose(cb.arange(3))),
    ("mT 1-D", ValueError, lambda: cb.arange(3).mT),
    ("vecdot size", ValueError, lambda: cb.vecdot(cb.to_device(M), cb.to_device(M[:, :2]))),
    ("vecdot axis", ValueError, lambda: cb.vecdot(cb.to_device(M), cb.to_device(M), axis=2)),
    ("std both", TypeError, lambda: cb.std(cb.to_device(M), ddof=1, correction=1)),
    ("var both", TypeError, lambda: cb.var(cb.to_device(M), None, None, None, 1, correction=1)),
    ("std ddof=0 and correction", TypeError, lambda: cb.std(cb.to_device(M), ddof=0, correction=0)),
    ("full neither", TypeError, lambda: cb.full((2,))),
    ("full both", TypeError, lambda: cb.full((2,), 1, value=2)),
    ("zeros cpu", ValueError, lambda: cb.zeros(2, device="cpu")),
    ("ones other", ValueError, lambda: cb.ones(2, device=cb.device_count() + 5)),
    ("asarray bool device", ValueError, lambda: cb.asarray([1], device=True)),
    ("empty_like cpu", ValueError, lambda: cb.empty_like(cb.arange(2), device="cpu")),
    ("isdtype kind", ValueError, lambda: cb.isdtype(np.int8, "integer")),
    ("result_type none", ValueError, lambda: cb.result_type()),
    ("result_type longdouble", TypeError, lambda: cb.result_type(np.longdouble)),
    ("tril 0-d", ValueError, lambda: cb.tril(cb.asarray(1.0))),
]


@pytest.mark.parametrize("name,error,call", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, error, call):
    with pytest.raises(error):
        call()


def test_numpy_names_stay_numpy():
    """The additions leave numpy's behaviour of numpy-named functions as it was."""
    same(cb.ceil(cb.to_device(U)), np.ceil(U))  # numpy 1.24: float for integers (the standard says int)
    same(cb.empty(3).astype(np.float32) * 0, np.zeros(3, np.float32))
    with pytest.warns(DeprecationWarning):
        cb.nonzero(cb.asarray(1))  # numpy 1.24 warns on 0-d (the standard says raise)


def test_signatures_name_the_keywords():
    """The wrappers keep numpy's parameters (so inspect.signature, as the array API tests read it,
    sees them) and add the standard's keywords."""
    import inspect
    for f in (cb.arange, cb.asarray, cb.empty, cb.zeros, cb.ones, cb.full, cb.eye, cb.linspace, cb.empty_like,
              cb.full_like, cb.zeros_like, cb.ones_like):
        params = inspect.signature(f).parameters
        assert "device" in params and "dtype" in params and params["device"].kind is inspect.Parameter.KEYWORD_ONLY
    for f in (cb.std, cb.var):
        assert {"axis", "keepdims", "ddof", "correction"} <= set(inspect.signature(f).parameters)
    assert "fill_value" in inspect.signature(cb.full).parameters


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_descending_sorts_keep_ties_in_their_order(dtype, axis):
    """The array API's descending=: largest first; argsort keeps equal values in their order, as a
    stable sort of the negated values does."""
    x = np.random.default_rng(7).integers(-4, 5, size=(9, 12)).astype(dtype)  # many ties
    d = cb.to_device(x)
    flat = x.reshape(-1) if axis is None else x
    ax = 0 if axis is None else axis
    same(cb.argsort(d, axis=axis, descending=True), np.argsort(-flat, axis=ax, kind="stable"))
    same(cb.argsort(d, axis=axis, descending=True, stable=True), np.argsort(-flat, axis=ax, kind="stable"))
    same(cb.sort(d, axis=axis, descending=True), np.flip(np.sort(flat, axis=ax), axis=ax))
    same(cb.argsort(d, axis=axis), np.argsort(flat, axis=ax, kind="stable"))  # ascending unchanged


def test_descending_sort_puts_nan_first_and_0d_is_refused():
    x = np.array([2.0, np.nan, -1.0, 2.0], np.float32)
    same(cb.sort(cb.to_device(x), descending=True), np.array([np.nan, 2.0, 2.0, -1.0], np.float32))
    same(cb.argsort(cb.to_device(x), descending=True), np.array([1, 0, 3, 2]))
    with pytest.raises(np.AxisError):
        cb.argsort(cb.to_device(np.float32(1.0)), descending=True)
