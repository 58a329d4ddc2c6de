"""numpy's statistics and comparison functions on the device, composed from the device's kernels
(sort, reductions, searchsorted, elementwise ops): median, percentile, quantile, average, ptp,
cov, corrcoef, histogram, bincount, digitize, isin, isclose, allclose and the nan-variants.

Order statistics sort each slice (NaN last) and read the wanted positions with a take; the
positions are computed on the device (from q and the slice's length, or its count of non-NaN
values). Counting (histogram, bincount) is a sort and a searchsorted of the bin edges: a bin's
count is the difference of two positions. Values come back to the host only where numpy's result
shape or its exception depends on them (bincount's length, histogram's automatic range, a bad
quantile or weight sum, an all-NaN slice), and then as single scalars or flags."""

import builtins
import operator
import warnings

import numpy as np

from . import _dtypes, _reductions
from ._array import _binary, _reduce, _size, _unary, asarray, full, ndarray, to_device
from ._creation import arange, linspace
from ._indexing import _arange, _take_flat
from ._indexing import where as _where  # nanvar's where= keyword shadows the name
from ._linalg import diagonal, dot
from ._manipulation import concatenate, flip, moveaxis
from ._reductions import (_NO_VALUE, _axes_of, _keep, _nan_to_zero, _reduced_shape, _store, argmax, argmin, cumprod,
                          cumsum, mean, nanmean, prod, std, var)
from ._sorting import argsort, searchsorted, sort

# numpy function -> device implementation (np.median(x) of a device array lands here).
FUNCTIONS = {}
# The names cudabridge exports (cb.median, ...).
__all__ = []


def _export(np_function):
    """Registers a function for numpy's dispatch and the cb namespace."""
    def register(f):
        FUNCTIONS[np_function] = f
        __all__.append(f.__name__)
        return f
    return register


def _flag(x):
    """One device bool (a reduction's 0-d result) read back: the only way data reaches the host here."""
    return bool(x.item())


def _any(x):
    return x.size > 0 and _flag(_reduce("max", x.astype(np.bool_, copy=False), None, False))


def _all(x):
    return x.size == 0 or _flag(_reduce("min", x.astype(np.bool_, copy=False), None, False))


def _isnan(x):
    return _unary("isnan", x)


def _not(x):
    return _unary("logical_not", x)


def _out(result, out, name):
    return result if out is None else _store(result, out, name)


def _lanes(a, axis):
    """numpy's _ureduce: `a` with the reduced axes moved last and merged into one. Returns (rows,
    axes, kept): rows has shape kept + (n,), n the product of the reduced axes' lengths."""
    axes = _axes_of(tuple(axis) if isinstance(axis, list) else axis, a.ndim)
    kept = tuple(n for i, n in enumerate(a.shape) if i not in axes)
    moved = moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim))) if axes else a
    return moved.reshape(kept + (_size([a.shape[i] for i in axes]),)), axes, kept


def _pick(s, idx):
    """s[..., idx] row by row: s is contiguous with shape kept + (n,), idx (int64, in [0, n)) has
    shape kept + (m,) or (1,) * len(kept) + (m,); the result kept + (m,). No bounds check: the
    indices are made in range here."""
    kept, n = s.shape[:-1], s.shape[-1]
    base = _binary("multiply", _arange(_size(kept)), n).reshape(kept + (1,))
    return _take_flat(s, _binary("add", idx, base))


def _count_valid(rows):
    """The number of non-NaN values of each row, int64 of shape kept + (1,)."""
    return _reduce("sum", _not(_isnan(rows)), rows.ndim - 1, True)


def _in_range(idx, count):
    """Indices counted from the end (negative) made positive, clipped to [0, count) (an empty,
    all-NaN slice's results are replaced afterwards)."""
    idx = _where(_binary("less", idx, 0), _binary("add", idx, count), idx)
    return _binary("maximum", idx, 0)


def _all_nan_warning(bad):
    """numpy's warning for nan-functions over a slice of NaN only; True when there was one (one flag
    comes back, as for nanmax)."""
    if _any(bad):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=4)
        return True
    return False


# ---- median, quantile, percentile -------------------------------------------------------------

def _mean_of(lo, hi, dtype, work):
    """(lo + hi) / 2 as numpy's mean of the two: summed in `work` (float32 for float16, float64 for
    integers and bool), the result in `dtype`."""
    total = _binary("add", lo.astype(work, copy=False), hi.astype(work, copy=False))
    return _binary("divide", total, 2).astype(dtype, copy=False)


def _mean_work(dtype):
    return np.dtype(np.float32) if dtype == np.float16 else dtype


@_export(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """numpy.median: the middle value of each sorted slice along axis (int, tuple or None: all),
    the mean of the two middle ones for an even length; NaN for a slice holding NaN and for an
    empty one (with numpy's warning). float64 for integers and bool, else the input's dtype."""
    a = asarray(a)
    rows, axes, kept = _lanes(a, axis)
    n = rows.shape[-1]
    dtype = _dtypes.reduction("mean", a.dtype)
    if n == 0:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2)
        result = full(kept, np.nan, dtype)
    else:
        s = sort(rows, axis=-1)
        lo = s[..., (n - 1) // 2]
        # numpy's mean of one element is the element; of two, their sum halved
        result = lo.astype(dtype) if n % 2 else _mean_of(lo, s[..., n // 2], dtype, _mean_work(dtype))
        if a.dtype.kind == "f":  # NaN sorts last: a slice holding one has a NaN median
            result = _where(_isnan(s[..., n - 1]), np.nan, result)
    if keepdims:
        result = result.reshape(_reduced_shape(a.shape, axes, True))
    return _out(result, out, "median")


@_export(np.nanmedian)
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=_NO_VALUE):
    """numpy.nanmedian: the median of each slice's non-NaN values; NaN (with numpy's warning) for a
    slice of NaN only; numpy's nanmean for an empty array."""
    a = asarray(a)
    if a.size == 0:
        return nanmean(a, axis, out=out, keepdims=keepdims)
    if a.dtype.kind != "f":
        return median(a, axis, out, keepdims=_keep(keepdims))
    rows, axes, kept = _lanes(a, axis)
    s = sort(rows, axis=-1)
    count = _count_valid(rows)
    lo = _pick(s, _binary("maximum", _binary("floor_divide", _binary("subtract", count, 1), 2), 0))
    hi = _pick(s, _binary("floor_divide", count, 2))
    # numpy: one slice (np.median: float16 summed in float32, an odd count's middle as it is), or
    # numpy.ma's median of many (the two middles' sum halved in the dtype, also for an odd count)
    if kept:
        result = _mean_of(lo, hi, a.dtype, a.dtype)
    else:
        odd = _binary("equal", _binary("remainder", count, 2), 1)
        result = _where(odd, lo, _mean_of(lo, hi, a.dtype, _mean_work(a.dtype)))
    empty = _binary("equal", count, 0)
    _all_nan_warning(empty)
    result = _where(empty, np.nan, result).reshape(kept)
    if _keep(keepdims):
        result = result.reshape(_reduced_shape(a.shape, axes, True))
    return _out(result, out, "nanmedian")


_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
            "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint", "nearest")


def _check_method(method, interpolation, name):
    """numpy's method= (and the deprecated interpolation=); only 'linear', numpy's default, runs on
    the device."""
    if interpolation is not None:
        if method != "linear":
            raise TypeError("You shall not pass both `method` and `interpolation`!\n(`interpolation` is "
                            "Deprecated in favor of `method`)")
        warnings.warn(f"the `interpolation=` argument to {name} was deprecated in NumPy 1.22. Use `method=` "
                      f"instead.", DeprecationWarning, stacklevel=4)
        method = interpolation
    if method not in _METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {_METHODS}")
    if method != "linear":
        raise TypeError(f"{name}: method={method!r} is not supported on the device (only 'linear')")


def _q_of(q, percent):
    """q as numpy takes it: divided by 100 for the percentiles, each value in [0, 1] (ValueError),
    at most 2-d. A device q is checked on the device (one flag comes back)."""
    if isinstance(q, ndarray):
        if percent:
            q = _binary("divide", q, 100)
        ok = _all(_binary("logical_and", _binary("greater_equal", q, 0), _binary("less_equal", q, 1)))
    else:
        q = np.asanyarray(np.true_divide(q, 100) if percent else q)
        with np.errstate(invalid="ignore"):
            ok = bool(np.all((q >= 0) & (q <= 1)))
    if not ok:
        raise ValueError("Percentiles must be in the range [0, 100]" if percent else
                         "Quantiles must be in the range [0, 1]")
    if q.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    return q if isinstance(q, ndarray) else to_device(q)


def _quantile(a, q, axis, out, keepdims, nan, name):
    """numpy's linear quantile (Hyndman and Fan's method 7) of each sorted slice: the virtual index
    (n - 1) * q, its floor and the next position, and numpy's _lerp between the two values with
    the fraction (in float64, as numpy's arrays). An integer q takes the value at (n - 1) * q in
    the input's dtype. The nan-variants use each slice's count of non-NaN values as n."""
    a = asarray(a)
    if nan and a.size == 0:
        return nanmean(a, axis, out=out, keepdims=keepdims)  # numpy's answer for an empty array, whatever q
    keepdims = _keep(keepdims)
    rows, axes, kept = _lanes(a, axis)
    n = rows.shape[-1]
    integral = q.dtype.kind in "biu"
    dtype = a.dtype if integral else _dtypes.check(np.result_type(a.dtype, np.float64))
    shape = q.shape + kept
    floating = a.dtype.kind == "f"
    if rows.size == 0:
        if _size(shape):
            raise IndexError("cannot do a non-empty take from an empty axes.")
        if not integral:
            _dtypes.result("subtract", a.dtype, a.dtype)  # numpy's _lerp still runs: bool's TypeError
        result = full(shape, 0, dtype)
    else:
        s = sort(rows, axis=-1)
        count = _count_valid(rows) if nan and floating else n
        last = _binary("subtract", count, 1) if isinstance(count, ndarray) else n - 1
        qrow = q.reshape((1,) * len(kept) + (q.size,))
        if integral:  # numpy's integer virtual index (q is 0 or 1): no interpolation
            result = _pick(s, _in_range(_binary("multiply", qrow.astype(np.int64), last), count))
        else:
            virtual = _binary("multiply", qrow, last)
            if isinstance(count, ndarray):  # numpy: (n - 1) * q with a Python int, per slice
                virtual = virtual.astype(_dtypes.scalar_dtype(q.dtype, 1), copy=False)
            above = _binary("greater_equal", virtual, last)
            # numpy's _get_indexes: past the last value both positions are -1 (the last)
            prev = _where(above, -1, _unary("floor", virtual)).astype(np.int64)
            nxt = _where(above, -1, _binary("add", prev, 1))
            gamma = _binary("subtract", virtual, prev)
            result = _lerp(_pick(s, _in_range(prev, count)), _pick(s, _in_range(nxt, count)), gamma)
        if floating:  # a slice holding NaN gives NaN; with nan=True one of NaN only
            bad = _binary("equal", count, 0) if nan else _isnan(s[..., n - 1:])
            result = _where(bad, np.nan, result)
            if nan and _all_nan_warning(bad) and not integral and (not kept or _flag(bad.reshape(-1)[0])):
                # numpy fills an all-NaN slice in the input's dtype; one slice (or apply_along_axis
                # over slices, the first of them all-NaN) gives the whole result that dtype
                result = result.astype(a.dtype)
            elif not nan and not kept and not q.ndim and result.dtype != a.dtype and _any(bad):
                # numpy returns a NaN of the input's dtype for a single quantile of data holding NaN
                result = result.astype(a.dtype)
        result = result.reshape(kept + q.shape)
        result = result.transpose(tuple(range(len(kept), result.ndim)) + tuple(range(len(kept))))
    if keepdims:
        result = result.reshape(q.shape + _reduced_shape(a.shape, axes, True))
    return _out(result, out, name)


def _lerp(lo, hi, gamma):
    """numpy's _lerp: lo + (hi - lo) * gamma, or hi - (hi - lo) * (1 - gamma) where gamma >= 0.5 (the
    difference in the values' dtype, as numpy's: bool raises numpy's TypeError)."""
    diff = _binary("subtract", hi, lo)
    low = _binary("add", lo, _binary("multiply", diff, gamma))
    high = _binary("subtract", hi, _binary("multiply", diff, _binary("subtract", 1, gamma)))
    return _where(_binary("greater_equal", gamma, 0.5), high, low)


@_export(np.quantile)
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             interpolation=None):
    """numpy.quantile with the default method, 'linear': shape q.shape + the reduced shape, float64
    (the input's dtype for an integer q); NaN for a slice holding NaN."""
    _check_method(method, interpolation, "quantile")
    return _quantile(a, _q_of(q, False), axis, out, keepdims, False, "quantile")


@_export(np.percentile)
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               interpolation=None):
    """numpy.percentile: quantile of q / 100."""
    _check_method(method, interpolation, "percentile")
    return _quantile(a, _q_of(q, True), axis, out, keepdims, False, "percentile")


@_export(np.nanquantile)
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=_NO_VALUE, *,
                interpolation=None):
    """numpy.nanquantile: the quantiles of each slice's non-NaN values; NaN (with numpy's warning)
    for a slice of NaN only."""
    _check_method(method, interpolation, "nanquantile")
    return _quantile(a, _q_of(q, False), axis, out, keepdims, True, "nanquantile")


@_export(np.nanpercentile)
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=_NO_VALUE, *,
                  interpolation=None):
    """numpy.nanpercentile: nanquantile of q / 100."""
    _check_method(method, interpolation, "nanpercentile")
    return _quantile(a, _q_of(q, True), axis, out, keepdims, True, "nanpercentile")


# ---- average, ptp, cov, corrcoef --------------------------------------------------------------

@_export(np.average)
def average(a, axis=None, weights=None, returned=False, *, keepdims=_NO_VALUE):
    """numpy.average: the mean, or sum(a * w) / sum(w) in numpy's result dtype (at least float64
    for integers and bool). A 1-d weights of a's length along axis is broadcast there. Weights
    summing to zero raise ZeroDivisionError (one flag comes back). returned=True adds the sum of
    the weights (the count without weights), broadcast to the average's shape."""
    a = asarray(a)
    keep = _keep(keepdims)
    if weights is None:
        avg = mean(a, axis, keepdims=keep)
        scl = full(avg.shape, a.size / builtins.max(avg.size, 1), avg.dtype)
        return (avg, scl) if returned else avg
    w = asarray(weights)
    if a.dtype.kind in "biu":
        dtype = np.result_type(a.dtype, w.dtype, "f8")
    else:
        dtype = np.result_type(a.dtype, w.dtype)
    if a.shape != w.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if w.ndim != 1:
            raise TypeError("1D weights expected when shapes of a and weights differ.")
        if w.shape[0] != a.shape[axis]:
            raise ValueError("Length of weights not compatible with specified axis.")
        w = moveaxis(w.reshape((1,) * (a.ndim - 1) + w.shape), -1, axis)
    w = w.astype(dtype, copy=False)
    scl = _reduce("sum", w, axis, keep).astype(dtype, copy=False)
    if _any(_binary("equal", scl, 0)):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    total = _reduce("sum", _binary("multiply", a.astype(dtype, copy=False), w), axis, keep)
    avg = _binary("divide", total.astype(dtype, copy=False), scl)
    if returned:
        if scl.shape != avg.shape:
            scl = _binary("add", scl, full(avg.shape, 0, scl.dtype))  # broadcast copy
        return avg, scl
    return avg


@_export(np.ptp)
def ptp(a, axis=None, out=None, keepdims=_NO_VALUE):
    """numpy.ptp: max - min along axis (in the input's dtype; integers wrap as numpy's; bool raises
    numpy's TypeError)."""
    a = asarray(a)
    keep = _keep(keepdims)
    from ._reductions import max as maximum, min as minimum  # numpy's complex order too
    return _out(_binary("subtract", maximum(a, axis, keepdims=keep), minimum(a, axis, keepdims=keep)), out, "ptp")


def _observations(m, rowvar, dtype, what):
    """cov's variables as rows: at least 2-d, in dtype, transposed for rowvar=False."""
    x = asarray(m)
    if x.ndim > 2:
        raise ValueError(f"{what} has more than 2 dimensions")
    x = x.reshape((1,) * (2 - x.ndim) + x.shape).astype(dtype, copy=False)
    return x.T if not rowvar and x.shape[0] != 1 else x


@_export(np.cov)
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """numpy.cov: each row a variable (each column with rowvar=False), y's appended; the deviations
    from the row means times their transpose (a device matmul), times 1 / (N - ddof) (ddof 1, or 0
    with bias). At least float64 unless dtype= says otherwise; the result squeezed, as numpy's."""
    if fweights is not None or aweights is not None:
        raise TypeError("cov: fweights= and aweights= are not supported on the device")
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = asarray(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    y = None if y is None else asarray(y)
    if y is not None and y.ndim > 2:
        raise ValueError("y has more than 2 dimensions")
    if dtype is None:
        dtype = np.result_type(m.dtype, np.float64) if y is None else np.result_type(m.dtype, y.dtype, np.float64)
    dtype = _dtypes.check(dtype)
    x = _observations(m, rowvar, dtype, "m")
    if x.shape[0] == 0:
        return full((0, 0), 0, np.float64)
    if y is not None:
        x = concatenate([x, _observations(y, rowvar, dtype, "y")], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    fact = x.shape[1] - ddof
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    dev = _binary("subtract", x, mean(x, axis=1, keepdims=True))
    other = dev.T.conj() if dev.dtype.kind == "c" else dev.T
    with np.errstate(divide="ignore"):
        scale = np.true_divide(1, fact)
    return _binary("multiply", dot(dev, other), scale).squeeze()


@_export(np.corrcoef)
def corrcoef(x, y=None, rowvar=True, bias=_NO_VALUE, ddof=_NO_VALUE, *, dtype=None):
    """numpy.corrcoef: cov divided by the outer product of the standard deviations (its diagonal's
    roots), clipped to [-1, 1]; c / c (1, or NaN) for a single variable."""
    if bias is not _NO_VALUE or ddof is not _NO_VALUE:
        warnings.warn("bias and ddof have no effect and are deprecated", DeprecationWarning, stacklevel=2)
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim != 2:
        return _binary("divide", c, c)
    stddev = _unary("sqrt", diagonal(c))
    c = _binary("divide", _binary("divide", c, stddev.reshape(-1, 1)), stddev.reshape(1, -1))
    return _binary("minimum", _binary("maximum", c, -1), 1)


# ---- histogram, bincount, digitize ------------------------------------------------------------

def _scalar_of(x):
    """A reduction's 0-d result read back as numpy's scalar of its dtype."""
    return x.get()[()]


def _outer_edges(a, value_range):
    """numpy's _get_outer_edges: the range given, or the data's min and max (two scalars come back:
    the edges, and so the result, depend on them); an empty range widened by 0.5 each side."""
    if value_range is not None:
        first, last = value_range
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    elif a.size == 0:
        first, last = 0, 1
    else:
        first, last = _scalar_of(_reduce("min", a, None, False)), _scalar_of(_reduce("max", a, None, False))
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _bin_edges(a, bins, value_range):
    """numpy's _get_bin_edges: `bins` + 1 evenly spaced edges over the range, in numpy's bin dtype,
    or the given edges (increasing: checked, on the device for device edges)."""
    if isinstance(bins, str):
        raise TypeError("histogram: bin estimators (bins as a string) are not supported on the device")
    if np.ndim(bins) == 0:
        try:
            count = operator.index(bins)
        except TypeError as e:
            raise TypeError("`bins` must be an integer, a string, or an array") from e
        if count < 1:
            raise ValueError("`bins` must be positive, when an integer")
        first, last = _outer_edges(a, value_range)
        dtype = np.result_type(first, last, np.empty(0, a.dtype))  # numpy's, with a's values standing in
        if dtype.kind in "biu":
            dtype = np.result_type(dtype, float)
        return linspace(first, last, count + 1, dtype=dtype)
    if np.ndim(bins) != 1:
        raise ValueError("`bins` must be 1d, when an array")
    if isinstance(bins, ndarray):  # checked on the device: one flag comes back
        rising = bins.size < 2 or not _any(_binary("greater", bins[:-1], bins[1:]))
    else:  # host edges are checked before they go to the device
        bins = np.asarray(bins)
        rising = not np.any(bins[:-1] > bins[1:])
    if not rising:
        raise ValueError("`bins` must increase monotonically, when an array")
    return asarray(bins)


def _positions_of(sorted_a, edges):
    """numpy's _search_sorted_inclusive: how many sorted values lie before each edge (the last
    edge's values included)."""
    return concatenate([searchsorted(sorted_a, edges[:-1], "left"), searchsorted(sorted_a, edges[-1:], "right")])


@_export(np.histogram)
def histogram(a, bins=10, range=None, density=None, weights=None):
    """numpy.histogram of the flattened array: (counts int64, or sums of weights in their dtype,
    and the bin edges). Bin i holds edges[i] <= x < edges[i + 1], the last bin also its right edge;
    values outside (and NaN) are dropped. Each count is the difference of two positions of the
    edges in the sorted data (sums: of a cumulative sum of the weights in that order).
    density=True divides by the total and the bin widths."""
    a = asarray(a)
    if a.dtype == np.bool_:
        warnings.warn("Converting input from bool to <class 'numpy.uint8'> for compatibility.", RuntimeWarning,
                      stacklevel=2)
        a = a.astype(np.uint8)
    if weights is not None:
        weights = asarray(weights)
        if weights.shape != a.shape:
            raise ValueError("weights should have the same shape as a.")
        weights = weights.reshape(-1)
    a = a.reshape(-1)
    edges = _bin_edges(a, bins, range)
    if weights is None:
        cum = _positions_of(sort(a), edges)
    else:
        order = argsort(a)
        sums = cumsum(_take_flat(weights, order))
        cum = _take_flat(concatenate([full((1,), 0, sums.dtype), sums]), _positions_of(_take_flat(a, order), edges))
    counts = _binary("subtract", cum[1:], cum[:-1])
    if weights is not None:
        counts = counts.astype(weights.dtype, copy=False)
    if density:
        widths = _binary("subtract", edges[1:], edges[:-1]).astype(np.float64)
        return _binary("divide", _binary("divide", counts, widths), _reduce("sum", counts, None, False)), edges
    return counts, edges


@_export(np.bincount)
def bincount(x, weights=None, minlength=0):
    """numpy.bincount: how often each value 0..max(x) occurs in the 1-d non-negative integer array
    (int64; float64 sums of the weights), at least minlength long. The length depends on the data:
    its min (for numpy's ValueError) and max come back. The counts are differences of the sorted
    values' positions of 0..length; the sums, of a cumulative sum of the weights in that order."""
    x = asarray(x)
    if x.ndim != 1:
        raise ValueError("object of too small depth for desired array" if x.ndim == 0 else
                         "object too deep for desired array")
    if not np.can_cast(x.dtype, np.int64, "safe"):
        raise TypeError(f"Cannot cast array data from dtype('{x.dtype}') to dtype('int64') according to the rule "
                        f"'safe'")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if weights is not None:
        weights = asarray(weights)
        if weights.shape != x.shape:
            raise ValueError("The weights and list don't have the same length.")
        weights = weights.astype(np.float64, copy=False)
    x = x.astype(np.int64, copy=False)
    length = minlength
    if x.size:
        if int(_reduce("min", x, None, False)) < 0:
            raise ValueError("'list' argument must have no negative elements")
        length = builtins.max(int(_reduce("max", x, None, False)) + 1, minlength)
    dtype = np.int64 if weights is None else np.float64
    if x.size == 0:
        return full((length,), 0, dtype)
    order = argsort(x)
    starts = searchsorted(_take_flat(x, order), arange(length + 1, dtype=np.int64), "left")
    if weights is None:
        return _binary("subtract", starts[1:], starts[:-1])
    sums = concatenate([full((1,), 0.0, np.float64), cumsum(_take_flat(weights, order))])
    return _binary("subtract", _take_flat(sums, starts[1:]), _take_flat(sums, starts[:-1]))


@_export(np.digitize)
def digitize(x, bins, right=False):
    """numpy.digitize: the index of the bin each value falls in, for increasing or decreasing 1-d
    bins (searchsorted, the bins reversed for decreasing ones); int64 of x's shape. Which way the
    bins go decides the computation: two flags come back for device bins."""
    x = asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if np.ndim(bins) != 1:
        raise ValueError("object of too small depth for desired array" if np.ndim(bins) == 0 else
                         "object too deep for desired array")
    if isinstance(bins, ndarray):
        rising = bins.size < 2 or _all(_binary("greater_equal", bins[1:], bins[:-1]))
        falling = not rising and _all(_binary("less_equal", bins[1:], bins[:-1]))
    else:
        host = np.asarray(bins)
        rising = bool(np.all(host[1:] >= host[:-1]))
        falling = not rising and bool(np.all(host[1:] <= host[:-1]))
        bins = to_device(host)
    if not (rising or falling):
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"  # searchsorted's side is the opposite of digitize's
    if rising:
        return searchsorted(bins, x, side)
    return _binary("subtract", bins.shape[0], searchsorted(flip(bins, 0), x, side))


# ---- membership and closeness -----------------------------------------------------------------

_KINDS = (None, "sort", "table")


@_export(np.in1d)
def in1d(ar1, ar2, assume_unique=False, invert=False, *, kind=None):
    """numpy.in1d: for each element of the flattened ar1, whether it equals one of ar2's (NaN
    equals nothing); found by a searchsorted in the sorted ar2 and a compare at that place."""
    if kind not in _KINDS:
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    values = asarray(ar1).reshape(-1)
    tests = asarray(ar2).reshape(-1)
    if tests.size == 0 or values.size == 0:
        found = full(values.shape, False, np.bool_)
    else:
        s = sort(tests)
        at = _binary("minimum", searchsorted(s, values, "left"), s.size - 1)
        found = _binary("equal", _take_flat(s, at), values)
    return _not(found) if invert else found


@_export(np.isin)
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """numpy.isin: in1d shaped as `element`."""
    element = asarray(element)
    return in1d(element, test_elements, assume_unique, invert, kind=kind).reshape(element.shape)


def _operand(v, floating):
    """An isclose operand: a device array as it is, host data uploaded, a scalar kept a numpy scalar
    (numpy's 0-d operands promote by value); floating: b as at least a float, as numpy casts it."""
    if isinstance(v, ndarray):
        return v.astype(_dtypes.check(np.result_type(v.dtype, 1.0)), copy=False) if floating else v
    h = np.asanyarray(v)
    if floating:
        h = h.astype(np.result_type(h, 1.0))
    return h[()] if h.ndim == 0 else to_device(h)


def _call(name, x):
    """A unary ufunc of a device array on the device, of a scalar argument by numpy."""
    return _unary(name, x) if isinstance(x, ndarray) else getattr(np, name)(x)


@_export(np.isclose)
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy.isclose: |a - b| <= atol + rtol * |b| where both are finite, a == b elsewhere (equal
    infinities), NaN close to NaN with equal_nan; b taken as a float (at least float64 for
    integers), as numpy does. A bool array of the broadcast shape."""
    x, y = _operand(a, False), _operand(b, True)
    if not isinstance(x, ndarray) and not isinstance(y, ndarray):
        x = to_device(np.asarray(x))
    with np.errstate(invalid="ignore"):
        bound = _binary("add", atol, _binary("multiply", rtol, _call("absolute", y))) if isinstance(y, ndarray) \
            else atol + rtol * np.absolute(y)
        tol = _binary("less_equal", _unary("absolute", _binary("subtract", x, y)), bound)
    finite = _binary("logical_and", _call("isfinite", x), _call("isfinite", y))
    result = _where(finite, tol, _binary("equal", x, y))
    if equal_nan:
        result = _binary("logical_or", result, _binary("logical_and", _call("isnan", x), _call("isnan", y)))
    return result


@_export(np.allclose)
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy.allclose: whether isclose holds everywhere, a Python bool (one flag comes back)."""
    return _all(isclose(a, b, rtol, atol, equal_nan))


# ---- the nan-variants of the reductions -------------------------------------------------------

def _nan_to(a, value):
    """a with NaN replaced by `value` (a copy for floats, a itself otherwise)."""
    if a.dtype.kind != "f":
        return a
    return _nan_to_zero(a) if value == 0 else _where(_isnan(a), value, a)


@_export(np.nanvar)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NO_VALUE, *, where=_NO_VALUE, _name="nanvar"):
    """numpy.nanvar: the variance of each slice's non-NaN values, as numpy's _nanvar: their sum /
    their count (in the input's or dtype's type), the squared deviations (NaN as 0) summed, / (count
    - ddof); NaN, with numpy's warning, where count - ddof <= 0. Integer arrays: numpy.var."""
    if where is not _NO_VALUE:
        raise TypeError(f"{_name}: where= is not supported on the device")
    a = asarray(a)
    if a.dtype.kind != "f":
        return (std if _name == "nanstd" else var)(a, axis, dtype, out, ddof, _keep(keepdims))
    if dtype is not None:
        dtype = _dtypes.check(dtype)
        if dtype.kind not in "fc":
            raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and not np.issubdtype(out.dtype, np.inexact):
        raise TypeError("If a is inexact, then out must be inexact")
    keepdims = _keep(keepdims)
    nans = _isnan(a)
    filled = _nan_to_zero(a)
    cnt = _reduce("sum", _not(nans), axis, True)
    total = _reduce("sum", filled if dtype is None else filled.astype(dtype), axis, True)
    avg = _binary("divide", total, cnt).astype(total.dtype, copy=False)
    dev = _binary("subtract", filled, avg).astype(a.dtype, copy=False)  # numpy: into arr, unsafely
    dev = _where(nans, a.dtype.type(0), dev)
    squares = _binary("multiply", dev, dev)
    total = _reduce("sum", squares if dtype is None else squares.astype(dtype), axis, keepdims)
    dof = _binary("subtract", _reduce("sum", _not(nans), axis, keepdims), ddof)
    result = _binary("divide", total, dof).astype(total.dtype, copy=False)
    bad = _binary("less_equal", dof, 0)
    if _any(bad):
        warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=2)
        result = _where(bad, np.nan, result)
    if _name == "nanstd":
        result = _unary("sqrt", result)
    return _out(result, out, _name)


@_export(np.nanstd)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NO_VALUE, *, where=_NO_VALUE):
    """numpy.nanstd: the square root of nanvar."""
    return nanvar(a, axis, dtype, out, ddof, keepdims, where=where, _name="nanstd")


@_export(np.nanprod)
def nanprod(a, axis=None, dtype=None, out=None, keepdims=_NO_VALUE, initial=_NO_VALUE, where=_NO_VALUE):
    """numpy.nanprod: prod with NaN counted as 1."""
    return prod(_nan_to(asarray(a), 1), axis, dtype, out, keepdims, initial, where)


@_export(np.nancumsum)
def nancumsum(a, axis=None, dtype=None, out=None):
    """numpy.nancumsum: cumsum with NaN counted as 0."""
    return cumsum(_nan_to(asarray(a), 0), axis, dtype, out)


@_export(np.nancumprod)
def nancumprod(a, axis=None, dtype=None, out=None):
    """numpy.nancumprod: cumprod with NaN counted as 1."""
    return cumprod(_nan_to(asarray(a), 1), axis, dtype, out)


def _nanarg(op, a, axis, out, keepdims):
    """nanargmax / nanargmin as numpy's: NaN replaced by -inf (+inf), then argmax (argmin); a slice of
    NaN only (or an empty one) raises ValueError (one flag comes back)."""
    a = asarray(a)
    if a.dtype.kind == "f":
        if _any(_reductions.all(_isnan(a), axis)):
            raise ValueError("All-NaN slice encountered")
        a = _binary("fmax" if op == "max" else "fmin", a, a.dtype.type(-np.inf if op == "max" else np.inf))
    return (argmax if op == "max" else argmin)(a, axis, out, keepdims=_keep(keepdims))


@_export(np.nanargmax)
def nanargmax(a, axis=None, out=None, *, keepdims=_NO_VALUE):
    """numpy.nanargmax: the first index of the largest non-NaN value; ValueError for a slice of NaN
    only."""
    return _nanarg("max", a, axis, out, keepdims)


@_export(np.nanargmin)
def nanargmin(a, axis=None, out=None, *, keepdims=_NO_VALUE):
    """numpy.nanargmin: the first index of the smallest non-NaN value; ValueError for a slice of NaN
    only."""
    return _nanarg("min", a, axis, out, keepdims)
