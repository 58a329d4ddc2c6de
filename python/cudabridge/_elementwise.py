"""cb.ElementwiseKernel and cb.ReductionKernel, as CuPy defines them: CUDA source generated from
the parameter lists and the expressions, compiled by NVRTC through the runtime (cb.RawModule's
path) and cached per signature (the dtypes, which arguments are scalars, the number of
dimensions).

Parameters are "TYPE name" with TYPE a numpy dtype name (float32, int64, bool, ...) or a type
placeholder (T, or any other identifier) that the arguments bind: array arguments first, in order,
then scalars (a Python int is int64, a float float64, a numpy scalar its own type). An array whose
dtype differs from a typed parameter is cast (numpy's same_kind rule); two arrays binding one
placeholder to different dtypes raise TypeError. Inputs broadcast against each other; `i` is the
element's index in C order over the broadcast shape and `_ind.size()` the element count. In an
ElementwiseKernel, `raw TYPE name` passes a whole C-contiguous array, indexed by the kernel
(`name[j]`, `name.size()`), outside the broadcast; `size=` gives the index space when every array
argument is raw. ReductionKernel takes no raw parameters (ValueError).

complex64 and complex128 are complex<float> and complex<double> in the kernel, as in CuPy, with
numpy's arithmetic and real(), imag(), conj(), abs(), arg(), norm(), exp(), log(), sqrt(), pow().
"""

import operator

import numpy as np

from . import _dtypes
from ._array import _broadcast, ndarray
from ._kernels import CUDA_SOURCE, _load, launch
from ._manipulation import _axes

_NUMPY_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                "float32", "float64", "complex64", "complex128")
_CTYPES = {np.dtype(k): v for k, v in (
    ("bool", "bool"), ("int8", "signed char"), ("int16", "short"), ("int32", "int"), ("int64", "long long"),
    ("uint8", "unsigned char"), ("uint16", "unsigned short"), ("uint32", "unsigned int"),
    ("uint64", "unsigned long long"), ("float32", "float"), ("float64", "double"), ("complex64", "complex<float>"),
    ("complex128", "complex<double>"))}
_RESERVED = {"i", "_ind", "a", "b"}
_DTYPE_OF_CTYPE = {v: k for k, v in _CTYPES.items()}
_BLOCK = 256
_MAX_BLOCKS = 4096
_ROW_SPAN = 128  # reduced elements per thread, at least, before a row's block grows
_CHUNK = 16384  # reduced elements per block, at least, before a reduction is split over blocks

_IND = ("struct _cb_index { long long n; __device__ long long size() const { return n; } };\n"
        "template <typename T> struct _cb_raw {\n"
        "    T* p; long long n;\n"
        "    __device__ T& operator[](long long i) const { return p[i]; }\n"
        "    __device__ long long size() const { return n; }\n"
        "};\n")


# complex<float> and complex<double>, as CuPy's kernels name them, with numpy's arithmetic: the
# plain product formula, numpy's scaled quotient (1 / 0j is inf + nanj), and the usual functions.
# Emitted only into kernels that bind a complex type. The default constructor is empty so the type
# may live in __shared__ memory (a reduction's partial values).
_COMPLEX = """template <typename T> struct alignas(2 * sizeof(T)) complex {
    T re, im;
    complex() = default;
    __device__ complex(T r, T i = T()) : re(r), im(i) {}
    template <typename U> __device__ explicit complex(const complex<U>& z) : re(T(z.re)), im(T(z.im)) {}
    __device__ T real() const { return re; }
    __device__ T imag() const { return im; }
    friend __device__ complex operator+(const complex& a) { return a; }
    friend __device__ complex operator-(const complex& a) { return complex(-a.re, -a.im); }
    friend __device__ complex operator+(const complex& a, const complex& b) { return complex(a.re + b.re, a.im + b.im); }
    friend __device__ complex operator-(const complex& a, const complex& b) { return complex(a.re - b.re, a.im - b.im); }
    friend __device__ complex operator*(const complex& a, const complex& b) {
        return complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
    }
    friend __device__ complex operator/(const complex& a, const complex& b) {
        const T br = b.re < T(0) ? -b.re : b.re, bi = b.im < T(0) ? -b.im : b.im;
        if (br >= bi) {
            if (br == T(0) && bi == T(0)) return complex(a.re / br, a.im / bi);
            const T rat = b.im / b.re, scl = T(1) / (b.re + b.im * rat);
            return complex((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
        }
        const T rat = b.re / b.im, scl = T(1) / (b.im + b.re * rat);
        return complex((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
    }
    friend __device__ bool operator==(const complex& a, const complex& b) { return a.re == b.re && a.im == b.im; }
    friend __device__ bool operator!=(const complex& a, const complex& b) { return !(a == b); }
    __device__ complex& operator+=(const complex& b) { return *this = *this + b; }
    __device__ complex& operator-=(const complex& b) { return *this = *this - b; }
    __device__ complex& operator*=(const complex& b) { return *this = *this * b; }
    __device__ complex& operator/=(const complex& b) { return *this = *this / b; }
};
template <typename T> __device__ T real(const complex<T>& z) { return z.re; }
template <typename T> __device__ T imag(const complex<T>& z) { return z.im; }
template <typename T> __device__ complex<T> conj(const complex<T>& z) { return complex<T>(z.re, -z.im); }
template <typename T> __device__ T norm(const complex<T>& z) { return z.re * z.re + z.im * z.im; }
template <typename T> __device__ T abs(const complex<T>& z) { return hypot(z.re, z.im); }
template <typename T> __device__ T arg(const complex<T>& z) { return atan2(z.im, z.re); }
template <typename T> __device__ complex<T> polar(T r, T theta) { return complex<T>(r * cos(theta), r * sin(theta)); }
template <typename T> __device__ complex<T> exp(const complex<T>& z) { return polar(exp(z.re), z.im); }
template <typename T> __device__ complex<T> log(const complex<T>& z) { return complex<T>(log(abs(z)), arg(z)); }
template <typename T> __device__ complex<T> sqrt(const complex<T>& z) {
    if (z.re == T(0) && z.im == T(0)) return complex<T>(T(0), z.im);
    const T t = sqrt((fabs(z.re) + abs(z)) / T(2));
    return z.re >= T(0) ? complex<T>(t, z.im / (T(2) * t)) : complex<T>(fabs(z.im) / (T(2) * t), copysign(t, z.im));
}
template <typename T> __device__ complex<T> pow(const complex<T>& z, const complex<T>& w) { return exp(w * log(z)); }
"""


def _prelude(types):
    """What generated source needs before the user's code for these dtypes."""
    return _COMPLEX if any(np.dtype(d).kind == "c" for d in types) else ""


def _ctype(dtype):
    try:
        return _CTYPES[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"dtype {np.dtype(dtype)} is not supported in generated kernels") from None


class _Param:
    __slots__ = ("name", "dtype", "placeholder", "raw")

    def __init__(self, text):
        words = text.split()
        self.raw = bool(words) and words[0] == "raw"
        if self.raw:
            words = words[1:]
        if len(words) != 2 or not words[1].isidentifier():
            raise ValueError(f"parameter {text!r} is not 'TYPE name'")
        type_name, self.name = words
        if type_name in _NUMPY_NAMES:
            self.dtype, self.placeholder = np.dtype(type_name), None
        elif type_name in ("float", "double", "int", "long", "short", "char", "unsigned", "signed", "half"):
            raise ValueError(f"parameter {text!r}: name the type as numpy does (float32, float64, int32, ...), "
                             f"not as C does")
        elif type_name.isidentifier():
            self.dtype, self.placeholder = None, type_name
        else:
            raise ValueError(f"parameter {text!r}: {type_name!r} is neither a dtype name nor a type placeholder")


def _params(text, what):
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str")
    params = [_Param(p.strip()) for p in text.split(",") if p.strip()]
    return params


def _check_names(ins, outs):
    seen = set()
    for p in ins + outs:
        if p.name in seen:
            raise ValueError(f"parameter {p.name!r} appears twice")
        if p.name in _RESERVED or p.name.startswith("_"):
            raise ValueError(f"parameter name {p.name!r} is reserved")
        seen.add(p.name)


def _bind(params, args):
    """The dtype of each parameter for these arguments (arrays bind placeholders first)."""
    types = {}
    for p, a in zip(params, args):
        if p.placeholder and isinstance(a, ndarray):
            bound = types.setdefault(p.placeholder, a.dtype)
            if bound != a.dtype:
                raise TypeError(f"type placeholder {p.placeholder} is {bound} for one array and {a.dtype} for "
                                f"{p.name!r}")
    for p, a in zip(params, args):
        if p.placeholder and a is not None and not isinstance(a, ndarray) and p.placeholder not in types:
            types[p.placeholder] = np.asarray(a).dtype
    out = []
    for p in params:
        d = p.dtype if p.dtype is not None else types.get(p.placeholder)
        if d is None:
            raise TypeError(f"cannot tell the type of {p.name!r}: no argument binds {p.placeholder}")
        _ctype(d)
        out.append(d)
    return out, types


def _split_and_bind(kernel, args):
    """A call's inputs and given outputs, and the types bound to them, cached per kernel by the
    argument types (arrays by dtype, scalars by Python type: see _bind)."""
    ins, outs = kernel.in_params, kernel.out_params
    in_args, given = _split_args(ins, outs, args, kernel.name)
    sig = tuple(a.dtype if isinstance(a, ndarray) else type(a) for a in in_args + given)
    bound = kernel._bound.get(sig)
    if bound is None:
        bound = kernel._bound[sig] = _bind(ins + outs, in_args + given)
    types, placeholders = bound
    return in_args, given, types[:len(ins)], types[len(ins):], placeholders


def _split_args(ins, outs, args, what):
    if len(args) == len(ins):
        given = [None] * len(outs)
    elif len(args) == len(ins) + len(outs):
        given = list(args[len(ins):])
    else:
        raise TypeError(f"{what} takes {len(ins)} inputs (or {len(ins) + len(outs)} with the outputs), "
                        f"not {len(args)} arguments")
    ins_args = list(args[:len(ins)])
    for p, a in zip(ins, ins_args):
        if isinstance(a, np.ndarray):
            raise TypeError(f"argument {p.name!r} is a numpy array in host memory: pass a device array")
        if not isinstance(a, (ndarray, bool, int, float, complex, np.generic)):
            raise TypeError(f"argument {p.name!r}: a {type(a).__name__} is neither a device array nor a scalar")
    for p, a in zip(outs, given):
        if a is not None and not isinstance(a, ndarray):
            raise TypeError(f"output {p.name!r} must be a device array, not {type(a).__name__}")
    for p, a in zip(ins + outs, ins_args + given):
        if p.raw and not isinstance(a, ndarray):
            raise TypeError(f"raw parameter {p.name!r} needs a device array" +
                            (", passed after the inputs" if a is None else ""))
        if p.raw and not a.is_contiguous:
            raise ValueError(f"raw parameter {p.name!r} needs a C-contiguous array (x[j] is its j-th element)")
    return ins_args, given


def _cast_inputs(ins, ins_args, types):
    out = []
    for p, a, d in zip(ins, ins_args, types):
        if isinstance(a, ndarray):
            if a.dtype != d:
                if not np.can_cast(a.dtype, d, "same_kind"):
                    raise TypeError(f"cannot cast {p.name!r} from {a.dtype} to {d} (same_kind)")
                a = a.astype(d)
        else:
            a = d.type(a)
        out.append(a)
    return out


def _offsets(index, sizes, strides, names, indent, idx):
    """Code adding to _o_<name> the offset (in elements) of C-order element `index` over the
    dimensions sizes[k] with strides strides[k] % name; the outermost needs no division."""
    lines = [f"{indent}{idx} _r = {index}, _k;"]
    for k in reversed(range(len(sizes))):
        lines.append(f"{indent}_k = _r;" if k == 0 else f"{indent}_k = _r % {sizes[k]}; _r /= {sizes[k]};")
        lines += [f"{indent}_o_{n} += (long long)_k * {strides[k] % n};" for n in names]
    return "\n".join(lines)


def _typedefs(placeholders, ins, in_types, outs, out_types):
    lines = [f"    typedef {_ctype(d)} {name};" for name, d in placeholders.items()]
    lines += [f"    typedef {_ctype(d)} in{k}_type;" for k, d in enumerate(in_types)]
    lines += [f"    typedef {_ctype(d)} out{k}_type;" for k, d in enumerate(out_types)]
    return "\n".join(lines)


def _strides_in(a, shape):
    """a's strides (in elements) broadcast to `shape` (0 where a is broadcast)."""
    pad = len(shape) - a.ndim
    return [0 if k < pad or a.shape[k - pad] == 1 else a._strides[k - pad] for k in range(len(shape))]


def _compile(source):
    return _load(source.encode(), CUDA_SOURCE)


def _check_dtype(d):
    return _dtypes.check(d)


class ElementwiseKernel:
    """ElementwiseKernel(in_params, out_params, operation, name='kernel', preamble=''): calling it
    with the inputs (and optionally the outputs) runs `operation` once per element of the
    broadcast shape; new outputs are allocated with that shape."""

    def __init__(self, in_params, out_params, operation, name="kernel", preamble=""):
        self.in_params, self.out_params = _params(in_params, "in_params"), _params(out_params, "out_params")
        if not self.out_params:
            raise ValueError("an ElementwiseKernel needs at least one output parameter")
        _check_names(self.in_params, self.out_params)
        if not isinstance(operation, str) or not isinstance(name, str) or not name.isidentifier():
            raise TypeError("operation must be a str and name an identifier")
        self.operation, self.name, self.preamble = operation, name, preamble
        self._sources = {}
        self._bound = {}

    def _source(self, key, in_kinds, in_types, out_types, placeholders, ndim, idx):
        src = self._sources.get(key)
        if src is not None:
            return src
        params, body = [], []
        arrays = [(p, d, "const ") for p, d, k in zip(self.in_params, in_types, in_kinds) if k and not p.raw]
        arrays += [(p, d, "") for p, d in zip(self.out_params, out_types) if not p.raw]
        raws = [(p, d, "const ") for p, d in zip(self.in_params, in_types) if p.raw]
        raws += [(p, d, "") for p, d in zip(self.out_params, out_types) if p.raw]
        for p, d, const in arrays:
            params.append(f"{const}{_ctype(d)}* __restrict__ _p_{p.name}")
        for p, d, const in raws:
            params += [f"{const}{_ctype(d)}* _p_{p.name}", f"long long _n_{p.name}"]
        for p, d, k in zip(self.in_params, in_types, in_kinds):
            if not k:
                params.append(f"const {_ctype(d)} {p.name}")
        params.append(f"{idx} _size")
        params += [f"{idx} _n{k}" for k in range(ndim)]
        params += [f"long long _s_{p.name}_{k}" for p, _, _ in arrays for k in range(ndim)]
        for p, _, _ in arrays:
            body.append(f"        long long _o_{p.name} = 0;")
        if ndim:
            body.append(_offsets("i", [f"_n{k}" for k in range(ndim)], [f"_s_%s_{k}" for k in range(ndim)],
                                 [p.name for p, _, _ in arrays], "        ", idx))
        else:
            body += [f"        _o_{p.name} = i;" for p, _, _ in arrays]
        for p, d, const in arrays:
            ref = f"const {_ctype(d)}" if const else f"{_ctype(d)}&"
            body.append(f"        {ref} {p.name} = _p_{p.name}[_o_{p.name}];")
        src = (f"{_prelude(in_types + out_types)}{self.preamble}\n{_IND}"
               f"extern \"C\" __global__ void {self.name}({', '.join(params)}) {{\n"
               f"{_typedefs(placeholders, self.in_params, in_types, self.out_params, out_types)}\n"
               "    const _cb_index _ind = {_size};\n"
               + "".join(f"    const _cb_raw<{const}{_ctype(d)}> {p.name} = {{_p_{p.name}, _n_{p.name}}};\n"
                         for p, d, const in raws)
               + f"    for ({idx} i = blockIdx.x * ({idx})blockDim.x + threadIdx.x; i < _size;\n"
               f"         i += ({idx})blockDim.x * gridDim.x) {{\n"
               + "\n".join(body) + f"\n        {self.operation};\n    }}\n}}\n")
        self._sources[key] = src
        return src

    def __call__(self, *args, size=None, stream=None):
        ins, outs = self.in_params, self.out_params
        in_args, given, in_types, out_types, placeholders = _split_and_bind(self, args)
        in_args = _cast_inputs(ins, in_args, in_types)
        arrays = [a for p, a in zip(ins + outs, in_args + given) if isinstance(a, ndarray) and not p.raw]
        if size is not None:  # the index space of kernels whose arrays are all raw
            if arrays:
                raise ValueError("size= is only for kernels whose array arguments are all raw")
            shape = (operator.index(size),)
            if shape[0] < 0:
                raise ValueError("size must not be negative")
        elif arrays:
            shape = tuple(_broadcast(*(a.shape for a in arrays)))
        elif any(isinstance(a, ndarray) for a in in_args + given):
            raise ValueError("every array argument is raw: give the index space with size=")
        else:
            shape = ()
        size = 1
        for n in shape:
            size *= n
        out_arrays = []
        for p, d, g in zip(outs, out_types, given):
            if g is None:
                g = ndarray._new(shape, _check_dtype(d))
            elif g.shape != shape and not p.raw:
                raise ValueError(f"output {p.name!r} has shape {g.shape}, not the broadcast shape {shape}")
            elif g.dtype != d:
                raise TypeError(f"output {p.name!r} is {g.dtype}, not {d}")
            out_arrays.append(g)
        in_kinds = tuple(isinstance(a, ndarray) for a in in_args)
        arrays = [a for p, a in zip(ins, in_args) if isinstance(a, ndarray) and not p.raw]
        arrays += [a for p, a in zip(outs, out_arrays) if not p.raw]
        raws = [a for p, a in zip(ins + outs, in_args + out_arrays) if p.raw]
        flat = all(a.shape == shape and a.is_contiguous for a in arrays)
        ndim = 0 if flat else len(shape)
        # 32-bit indexing when the index and the grid-stride step cannot overflow it (as CuPy).
        idx = "int" if size < 2**31 - _MAX_BLOCKS * _BLOCK else "long long"
        key = (in_kinds, tuple(in_types), tuple(out_types), ndim, idx)
        if size:
            src = self._source(key, in_kinds, in_types, out_types, placeholders, ndim, idx)
            handle = _compile(src)
            kargs = list(arrays)
            for a in raws:
                kargs += [a, a.size]
            kargs += [a for a in in_args if not isinstance(a, ndarray)]
            kargs.append(size)
            if ndim:
                kargs += shape
                for a in arrays:
                    kargs += _strides_in(a, shape)
            blocks = min((size + _BLOCK - 1) // _BLOCK, _MAX_BLOCKS)
            launch(handle, self.name, blocks, _BLOCK, kargs, 0, stream)
        return out_arrays[0] if len(out_arrays) == 1 else tuple(out_arrays)


def _row_block(n):
    """Threads per block for reductions of n elements: each thread takes at least _ROW_SPAN of them
    (a power of two from 32 to _BLOCK), so short rows do not pay for a wide tree of barriers."""
    threads = 32
    while threads < _BLOCK and threads * _ROW_SPAN < n:
        threads *= 2
    return threads


def _reduced_axes(axis, ndim):
    """The axes a reduction runs over, sorted: every one for None."""
    return tuple(range(ndim)) if axis is None else tuple(sorted(_axes(axis, ndim)))


class ReductionKernel:
    """ReductionKernel(in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
    name='reduce_kernel', reduce_type=None, preamble=''): `map_expr` maps each element of the
    broadcast inputs, `reduce_expr` combines two values `a` and `b` (of reduce_type, by default
    the first output's type), starting from `identity`, and `post_map_expr` writes the outputs
    from the reduced value `a`. Called with axis= (None: every axis) and keepdims=."""

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, preamble=""):
        self.in_params, self.out_params = _params(in_params, "in_params"), _params(out_params, "out_params")
        if not self.out_params:
            raise ValueError("a ReductionKernel needs at least one output parameter")
        _check_names(self.in_params, self.out_params)
        if any(p.raw for p in self.in_params + self.out_params):
            raise ValueError("raw parameters are supported by ElementwiseKernel, not ReductionKernel")
        if identity is None:
            raise ValueError("identity=None is not supported: give the reduction's identity as a str")
        for what, v in (("map_expr", map_expr), ("reduce_expr", reduce_expr), ("post_map_expr", post_map_expr),
                        ("identity", identity)):
            if not isinstance(v, str):
                raise TypeError(f"{what} must be a str")
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError("name must be an identifier")
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity, self.name, self.reduce_type, self.preamble = identity, name, reduce_type, preamble
        self._sources = {}
        self._bound = {}  # argument types -> their parameters' types (see ElementwiseKernel)

    def _source(self, key, in_kinds, in_types, out_types, placeholders, n_out, n_red, idx):
        src = self._sources.get(key)
        if src is not None:
            return src
        ins = [(p, d) for p, d, k in zip(self.in_params, in_types, in_kinds) if k]
        outs = list(zip(self.out_params, out_types))
        params = [f"const {_ctype(d)}* __restrict__ _p_{p.name}" for p, d in ins]
        params += [f"{_ctype(d)}* __restrict__ _p_{p.name}" for p, d in outs]
        params += [f"const {_ctype(d)} {p.name}" for p, d, k in zip(self.in_params, in_types, in_kinds) if not k]
        params += [f"{idx} _out_size", f"{idx} _red_size"]
        params += [f"{idx} _on{k}" for k in range(n_out)] + [f"{idx} _rn{k}" for k in range(n_red)]
        params += [f"long long _so_{p.name}_{k}" for p, _ in ins + outs for k in range(n_out)]
        params += [f"long long _sr_{p.name}_{k}" for p, _ in ins for k in range(n_red)]

        def offsets(index, dims, prefix, names, indent):
            return _offsets(index, [f"_{prefix}n{k}" for k in range(dims)],
                            [f"_s{prefix}_%s_{k}" for k in range(dims)], names, indent, idx)

        in_names = [p.name for p, _ in ins]
        reduce_type = self.reduce_type or _ctype(out_types[0])
        if reduce_type.strip() in placeholders:  # typedef'd at file scope, before the placeholders are
            reduce_type = _ctype(placeholders[reduce_type.strip()])
        reads = "\n".join(f"            const {_ctype(d)} {p.name} = _p_{p.name}[_o_{p.name} + _b_{p.name}];"
                          for p, d in ins)
        refs = "\n".join(f"            {_ctype(d)}& {p.name} = _p_{p.name}[_o_{p.name}];" for p, d in outs)
        params += ["_type_reduce* __restrict__ _partial", "int _chunks", "int _pass"]
        # _pass 0: one block per output element. _pass 1: _chunks blocks per output element, each
        # reducing its share of the reduced elements into _partial; _pass 2: _partial reduced.
        prelude = _prelude(in_types + out_types) or (_COMPLEX if "complex<" in reduce_type else "")
        src = (f"{prelude}{self.preamble}\n{_IND}typedef {reduce_type} _type_reduce;\n"
               f"extern \"C\" __global__ void {self.name}({', '.join(params)}) {{\n"
               f"{_typedefs(placeholders, self.in_params, in_types, self.out_params, out_types)}\n"
               f"    __shared__ _type_reduce _sdata[{_BLOCK}];\n"
               "    const _cb_index _ind = {_red_size};\n"
               f"    const {idx} _blocks = _pass == 1 ? _out_size * _chunks : _out_size;\n"
               f"    for ({idx} _blk = blockIdx.x; _blk < _blocks; _blk += gridDim.x) {{\n"
               f"        const {idx} _out = _pass == 1 ? _blk / _chunks : _blk;\n"
               + "".join(f"        long long _o_{p.name} = 0;\n" for p, _ in ins + outs)
               + "        {\n" + offsets("_out", n_out, "o", [p.name for p, _ in ins + outs], "            ")
               + "\n        }\n"
               + "".join(f"        const long long _b_{n} = _o_{n};\n" for n in in_names)
               + f"        _type_reduce _acc = (_type_reduce)({self.identity});\n"
               "        if (_pass == 2) {\n"
               "            for (int _j = threadIdx.x; _j < _chunks; _j += blockDim.x) {\n"
               "                const _type_reduce a = _acc, b = _partial[_out * _chunks + _j];\n"
               f"                _acc = {self.reduce_expr};\n"
               "            }\n"
               "        } else {\n"
               f"            {idx} _lo = 0, _hi = _red_size;\n"
               "            if (_pass == 1) {\n"
               f"                const {idx} _len = (_red_size + _chunks - 1) / _chunks;\n"
               "                _lo = (_blk % _chunks) * _len;\n"
               "                _hi = _lo + _len < _red_size ? _lo + _len : _red_size;\n"
               "            }\n"
               f"            for ({idx} _j = _lo + threadIdx.x; _j < _hi; _j += blockDim.x) {{\n"
               + "".join(f"            long long _o_{n} = 0;\n" for n in in_names)
               + "            {\n" + offsets("_j", n_red, "r", in_names, "                ") + "\n            }\n"
               + reads + "\n"
               f"            const _type_reduce a = _acc, b = (_type_reduce)({self.map_expr});\n"
               f"            _acc = {self.reduce_expr};\n"
               "            }\n"
               "        }\n"
               "        _sdata[threadIdx.x] = _acc;\n"
               "        __syncthreads();\n"
               "        for (unsigned int _s = blockDim.x / 2; _s > 0; _s >>= 1) {\n"
               "            if (threadIdx.x < _s) {\n"
               "                const _type_reduce a = _sdata[threadIdx.x], b = _sdata[threadIdx.x + _s];\n"
               f"                _sdata[threadIdx.x] = {self.reduce_expr};\n"
               "            }\n"
               "            __syncthreads();\n"
               "        }\n"
               "        if (threadIdx.x == 0 && _pass == 1) {\n"
               "            _partial[_blk] = _sdata[0];\n"
               "        } else if (threadIdx.x == 0) {\n"
               "            const _type_reduce a = _sdata[0];\n"
               + refs + "\n"
               f"            {self.post_map_expr};\n"
               "        }\n"
               "        __syncthreads();\n"
               "    }\n}\n")
        self._sources[key] = src
        return src

    def _partial_dtype(self, out_types, placeholders):
        """The device dtype of reduce_type, or None (a C type the device has no array of)."""
        if self.reduce_type is None:
            return out_types[0]
        d = placeholders.get(self.reduce_type.strip())
        if d is None:
            d = _DTYPE_OF_CTYPE.get(" ".join(self.reduce_type.split()))
        return d if d is not None and d in _dtypes.SUPPORTED else None

    def __call__(self, *args, axis=None, keepdims=False, stream=None):
        ins, outs = self.in_params, self.out_params
        in_args, given, in_types, out_types, placeholders = _split_and_bind(self, args)
        in_args = _cast_inputs(ins, in_args, in_types)
        arrays = [a for a in in_args if isinstance(a, ndarray)]
        if not arrays:
            raise TypeError(f"{self.name}: a reduction needs at least one array input")
        shape = tuple(_broadcast(*(a.shape for a in arrays)))
        red = _reduced_axes(axis, len(shape))
        kept = [k for k in range(len(shape)) if k not in red]
        out_shape = tuple(1 if k in red else shape[k] for k in range(len(shape))) if keepdims else tuple(
            shape[k] for k in kept)
        out_arrays = []
        for p, d, g in zip(outs, out_types, given):
            if g is None:
                g = ndarray._new(out_shape, _check_dtype(d))
            elif g.shape != out_shape:
                raise ValueError(f"output {p.name!r} has shape {g.shape}, not {out_shape}")
            elif g.dtype != d:
                raise TypeError(f"output {p.name!r} is {g.dtype}, not {d}")
            out_arrays.append(g)
        out_size = int(np.prod([shape[k] for k in kept], dtype=np.int64))
        red_size = int(np.prod([shape[k] for k in red], dtype=np.int64))
        if out_size:
            in_kinds = tuple(isinstance(a, ndarray) for a in in_args)
            idx = "int" if max(out_size, red_size) < 2**31 - _MAX_BLOCKS * _BLOCK else "long long"
            key = (in_kinds, tuple(in_types), tuple(out_types), len(kept), len(red), idx)
            src = self._source(key, in_kinds, in_types, out_types, placeholders, len(kept), len(red), idx)
            handle = _compile(src)
            kargs = arrays + out_arrays + [a for a in in_args if not isinstance(a, ndarray)]
            kargs += [out_size, red_size] + [shape[k] for k in kept] + [shape[k] for k in red]
            for a in arrays:
                s = _strides_in(a, shape)
                kargs += [s[k] for k in kept]
            for o in out_arrays:
                kargs += [o._strides[k] for k in kept] if keepdims else list(o._strides)
            for a in arrays:
                s = _strides_in(a, shape)
                kargs += [s[k] for k in red]
            partial_dtype = self._partial_dtype(out_types, placeholders)
            chunks = min(_MAX_BLOCKS // out_size, red_size // _CHUNK) if partial_dtype is not None else 0
            if chunks < 2:  # one block per output element
                launch(handle, self.name, min(out_size, _MAX_BLOCKS), _row_block(red_size),
                       kargs + [out_arrays[0], 1, 0], 0, stream)
            else:  # few outputs, many elements each: split each reduction over `chunks` blocks
                partial = ndarray._new((out_size * chunks,), partial_dtype)
                launch(handle, self.name, out_size * chunks, _row_block(-(-red_size // chunks)),
                       kargs + [partial, chunks, 1], 0, stream)
                launch(handle, self.name, out_size, _row_block(chunks), kargs + [partial, chunks, 2], 0, stream)
        return out_arrays[0] if len(out_arrays) == 1 else tuple(out_arrays)
