"""Products as numpy 1.24 computes them: matmul with batching and broadcasting over leading
dimensions, dot, vdot, inner, outer, tensordot; trace and diagonal. Every product is the device's
matmul kernel (OpenBLAS on the simulated GPU, cuBLAS-class kernels on a real one), one launch for a
whole stack of matrices, writing straight into the result; transposes and reshapes are views."""

import math
import numbers
import operator

import numpy as np

from . import _dtypes
from ._array import _axis, _launch, _launch_elementwise, _reduce, asarray, ndarray


def _core_mismatch(k_a, k_b):
    return ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                      f"(n?,k),(k,m?)->(n?,m?) (size {k_b} is different from {k_a})")


def _batched(a, b, out_dtype):
    """matmul of stacks of matrices (a: (..., n, k), b: (..., k, m)), broadcast over the stacks:
    one kernel launch for the whole stack."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])  # numpy's ValueError first
    out = ndarray._new(batch + (a.shape[-2], b.shape[-1]), out_dtype)
    if out.size:
        _launch("matmul", out, [a, b, out])
    return out


def matmul(a, b, out=None):
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: Input operand {0 if a.ndim == 0 else 1} does not have enough dimensions "
                         f"(has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)")
    k_a = a.shape[-1]
    k_b = b.shape[-2] if b.ndim > 1 else b.shape[0]
    if k_a != k_b:
        raise _core_mismatch(k_a, k_b)
    dtype = _dtypes.result("matmul", a.dtype, b.dtype)
    if a.ndim <= 2 and b.ndim <= 2:
        result = ndarray._new(a.shape[:-1] + b.shape[1:], dtype)
        _launch("matmul", result, [a, b, result])
    else:
        # numpy's rule for 1-D operands: a vector on the left is a row, on the right a column,
        # and that dimension is dropped from the result.
        a2 = a.reshape(1, k_a) if a.ndim == 1 else a
        b2 = b.reshape(k_b, 1) if b.ndim == 1 else b
        result = _batched(a2, b2, dtype)
        if a.ndim == 1:
            result = result.reshape(result.shape[:-2] + result.shape[-1:])
        if b.ndim == 1:
            result = result.reshape(result.shape[:-1])
    if out is None:
        return result
    if out.shape != result.shape:
        raise ValueError(f"matmul: Output operand 0 has a mismatch in its core dimension: {out.shape} is not "
                         f"{result.shape}")
    _launch_elementwise("cast", out, [result, out])
    return out


def dot(a, b, out=None):
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        result = a * b
    elif b.ndim <= 2:
        result = matmul(a, b)
    else:  # numpy's dot: sum over a's last axis and b's second-to-last
        result = tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))
    if out is None:
        return result
    _launch_elementwise("cast", out, [result, out])
    return out


def vdot(a, b):
    """numpy.vdot: the flattened dot product, the first argument conjugated when complex."""
    a, b = asarray(a), asarray(b)
    if a.size != b.size:
        raise ValueError("cannot reshape array: vdot needs the same number of elements")
    if a.dtype.kind == "c":
        a = a.conj()
    return matmul(a.reshape(-1), b.reshape(-1))


def inner(a, b):
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"shapes {a.shape} and {b.shape} not aligned: {a.shape[-1]} (dim {a.ndim - 1}) != "
                         f"{b.shape[-1]} (dim {b.ndim - 1})")
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


def outer(a, b):
    a, b = asarray(a).reshape(-1), asarray(b).reshape(-1)
    return a.reshape(-1, 1) * b.reshape(1, -1)


def _axes_pair(axes, a_ndim, b_ndim):
    if isinstance(axes, (numbers.Integral, np.integer)):
        n = operator.index(axes)
        if n < 0 or n > min(a_ndim, b_ndim):
            raise ValueError("tensordot: axes must be between 0 and the operands' dimensions")
        return list(range(a_ndim - n, a_ndim)), list(range(n))
    a_axes, b_axes = axes
    a_axes = [a_axes] if isinstance(a_axes, (numbers.Integral, np.integer)) else list(a_axes)
    b_axes = [b_axes] if isinstance(b_axes, (numbers.Integral, np.integer)) else list(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError("shape-mismatch for sum")
    return [_axis(x, a_ndim) for x in a_axes], [_axis(x, b_ndim) for x in b_axes]


def tensordot(a, b, axes=2):
    """Sum over the given axes: both operands transposed and reshaped to matrices, one matmul."""
    a, b = asarray(a), asarray(b)
    a_sum, b_sum = _axes_pair(axes, a.ndim, b.ndim)
    for x, y in zip(a_sum, b_sum):
        if a.shape[x] != b.shape[y]:
            raise ValueError("shape-mismatch for sum")
    a_keep = [x for x in range(a.ndim) if x not in a_sum]
    b_keep = [y for y in range(b.ndim) if y not in b_sum]
    k, m, n = (math.prod(a.shape[x] for x in a_sum), math.prod(a.shape[x] for x in a_keep),
               math.prod(b.shape[y] for y in b_keep))  # sizes, not -1: any of them may be 0
    a2 = a.transpose(a_keep + a_sum).reshape(m, k)
    b2 = b.transpose(b_sum + b_keep).reshape(k, n)
    shape = tuple(a.shape[x] for x in a_keep) + tuple(b.shape[y] for y in b_keep)
    return matmul(a2, b2).reshape(shape)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The view of the diagonal (sharing memory; numpy's is a read-only view)."""
    a = asarray(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    axis1, axis2 = _axis(axis1, a.ndim), _axis(axis2, a.ndim)
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    rest = [x for x in range(a.ndim) if x not in (axis1, axis2)]
    n, m = a.shape[axis1], a.shape[axis2]
    s1, s2 = a._strides[axis1], a._strides[axis2]
    count = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    start = offset * s2 if offset >= 0 else -offset * s1
    return ndarray._view(a._block, a._offset + (start * a.itemsize if count else 0),
                         tuple(a.shape[x] for x in rest) + (count,), tuple(a._strides[x] for x in rest) + (s1 + s2,),
                         a.dtype)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    d = diagonal(a, offset, axis1, axis2)
    if dtype is None:
        return _reduce("sum", d, d.ndim - 1, False)
    total = _reduce("sum", d.astype(dtype), d.ndim - 1, False)
    return total if total.dtype == dtype else total.astype(dtype)  # e.g. int16: the sum's int64, wrapped


# ---- einsum: the contractions that reduce to (batched) matmul -------------------------------------

def _parse_subscripts(subscripts, count):
    subscripts = subscripts.replace(" ", "")
    if "." in subscripts:
        raise ValueError("einsum: '...' (ellipsis) is not supported on the device")
    inputs, arrow, output = subscripts.partition("->")
    terms = inputs.split(",")
    if len(terms) != count:
        raise ValueError(f"einsum: {len(terms)} operand subscripts for {count} operands")
    for term in terms + [output]:
        if not all(c.isalpha() for c in term):
            raise ValueError(f"einsum: invalid subscript in {term!r}")
    if not arrow:  # implicit output: the indices seen once, in alphabetical order
        letters = "".join(terms)
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    if len(set(output)) != len(output) or any(c not in "".join(terms) for c in output):
        raise ValueError(f"einsum: invalid output subscripts {output!r}")
    return terms, output


def _distinct(term, a):
    """An operand whose repeated indices (as in 'ii') are taken along their diagonal: distinct indices."""
    while len(set(term)) != len(term):
        c = next(c for c in term if term.count(c) > 1)
        i = term.index(c)
        j = term.index(c, i + 1)
        if a.shape[i] != a.shape[j]:
            raise ValueError(f"einsum: dimensions in operand for collapsing index '{c}' don't match "
                             f"({a.shape[i]} != {a.shape[j]})")
        a = diagonal(a, 0, i, j)  # the diagonal becomes the last axis
        term = "".join(t for k, t in enumerate(term) if k not in (i, j)) + c
    return term, a


def _sum_out(term, a, keep):
    """Sums the axes whose index is not in `keep`."""
    drop = tuple(i for i, c in enumerate(term) if c not in keep)
    if not drop:
        return term, a
    a = _reduce("sum", a, drop, False) if len(drop) < a.ndim else _reduce("sum", a, None, False)
    return "".join(c for c in term if c in keep), a


def _arrange(term, a, order):
    """`a` transposed so its indices come in `order`."""
    return a.transpose([term.index(c) for c in order]) if a.ndim else a


def einsum(subscripts, *operands):
    """Einstein summation for one or two operands, as matmul, sums and views (no ellipsis)."""
    operands = [asarray(x) for x in operands]
    if not 1 <= len(operands) <= 2:
        raise ValueError("einsum: one or two operands are supported on the device")
    terms, output = _parse_subscripts(subscripts, len(operands))
    for term, a in zip(terms, operands):
        if len(term) != a.ndim:
            raise ValueError(f"einsum: operand has {a.ndim} dimensions but subscripts {term!r} name {len(term)}")
    pairs = [_distinct(t, a) for t, a in zip(terms, operands)]
    if len(pairs) == 1:
        term, a = _sum_out(*pairs[0], output)
        return _arrange(term, a, output).copy()
    (ta, a), (tb, b) = pairs
    ta, a = _sum_out(ta, a, output + tb)  # an index only in a and not in the output: summed first
    tb, b = _sum_out(tb, b, output + ta)
    size = {c: n for t, x in ((ta, a), (tb, b)) for c, n in zip(t, x.shape)}
    for t, x in ((ta, a), (tb, b)):
        for c, n in zip(t, x.shape):
            if size[c] != n:
                raise ValueError(f"einsum: operands could not be broadcast together: index '{c}' is {size[c]} "
                                 f"and {n}")
    batch = [c for c in output if c in ta and c in tb]
    contracted = [c for c in ta if c in tb and c not in output]
    a_only = [c for c in ta if c not in tb]
    b_only = [c for c in tb if c not in ta]

    def count(letters):
        n = 1
        for c in letters:
            n *= size[c]
        return n

    if not contracted:  # an outer or elementwise product: one broadcast multiply
        a_shape = tuple(size[c] for c in batch + a_only) + (1,) * len(b_only)
        b_shape = tuple(size[c] for c in batch) + (1,) * len(a_only) + tuple(size[c] for c in b_only)
        product = _arrange(ta, a, batch + a_only).reshape(a_shape) * _arrange(tb, b, batch + b_only).reshape(b_shape)
        return _arrange("".join(batch + a_only + b_only), product, output).copy()
    a3 = _arrange(ta, a, batch + a_only + contracted).reshape(count(batch), count(a_only), count(contracted))
    b3 = _arrange(tb, b, batch + contracted + b_only).reshape(count(batch), count(contracted), count(b_only))
    product = matmul(a3, b3).reshape(tuple(size[c] for c in batch + a_only + b_only))
    return _arrange("".join(batch + a_only + b_only), product, output).copy()
