"""numpy's universal functions on the device: cb.exp(x), cb.power(x, y), cb.clip(x, lo, hi), ...

Each runs one built-in kernel (the plugin's kernel library: the same per-element functor on the
simulated GPU's CPU engine and in the CUDA fatbin) and follows numpy 1.24: result dtypes
(integers go to float64 for exp and friends, int16 and uint16 to float32, bool, int8 and uint8 to
float16, computed in float32 and rounded once as numpy's half loops), value-based casting of
Python scalars, broadcasting, out= with same_kind casting. Where the device has no kernel for a
dtype (sin of complex64, say) they raise naming it rather than computing something else.
np.exp(x) on a device array lands here through __array_ufunc__ (_dispatch.py).
"""

import numbers
import operator

import numpy as np

from . import _array, _complex

# Kernel name = numpy's ufunc name.
UNARY = ("negative", "absolute", "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "square",
         "reciprocal", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
         "arccosh", "arctanh", "floor", "ceil", "trunc", "rint", "deg2rad", "rad2deg", "sign", "isnan", "isinf",
         "isfinite", "signbit", "logical_not", "invert")
BINARY = ("add", "subtract", "multiply", "divide", "floor_divide", "minimum", "maximum", "arctan2", "hypot",
          "copysign", "logaddexp", "logaddexp2", "fmod", "remainder", "fmax", "fmin", "logical_and", "logical_or", "logical_xor",
          "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal")


def _device(x):
    return x if isinstance(x, _array.ndarray) else _array.asarray(x)


def _check_out(name, out):
    if out is not None and not isinstance(out, _array.ndarray):
        raise TypeError(f"{name}: out= must be a cudabridge.ndarray, not {type(out).__name__}")


def unary(name, x, out=None):
    _check_out(name, out)
    return _array._unary(name, _device(x), out=out)


def binary(name, x1, x2, out=None):
    _check_out(name, out)
    if not isinstance(x1, _array.ndarray) and not isinstance(x2, _array.ndarray):
        x1 = _device(x1)  # two host operands: the first goes to the device, the second keeps numpy's scalar rules
    result = _array._binary(name, x1, x2, out=out)
    if result is NotImplemented:
        raise TypeError(f"{name}: unsupported operand types {type(x1).__name__} and {type(x2).__name__}")
    return result


def _dtype_of(x):
    return x.dtype if isinstance(x, (_array.ndarray, np.ndarray)) else np.asarray(x).dtype


def _negative_integer_exponent(base, exponent):
    """Whether numpy would refuse base ** exponent: an integer result with a negative exponent."""
    if isinstance(exponent, (bool, np.bool_)):
        return False
    if isinstance(exponent, (numbers.Number, np.generic)):  # a scalar: value-based result dtype
        if not isinstance(exponent, (numbers.Integral, np.integer)) or exponent >= 0:
            return False
        return np.result_type(_dtype_of(base), exponent).kind in "iu"
    if _dtype_of(exponent).kind != "i" or np.result_type(_dtype_of(base), _dtype_of(exponent)).kind not in "iu":
        return False
    if isinstance(exponent, _array.ndarray):
        return bool(_array._binary("less", exponent, 0).any())  # checked on the device; one flag comes back
    return bool((np.asarray(exponent) < 0).any())  # host data about to be uploaded


def power(x1, x2, out=None):
    """x1 ** x2. Integer results with a negative exponent raise ValueError, as numpy's."""
    if _negative_integer_exponent(x1, x2):
        raise ValueError("Integers to negative integer powers are not allowed.")
    return binary("power", x1, x2, out=out)


def positive(x, out=None):
    """+x: a copy (numpy refuses bool)."""
    _check_out("positive", out)
    x = _device(x)
    if x.dtype == np.bool_:
        raise TypeError("ufunc 'positive' did not contain a loop with signature matching types "
                        "<class 'numpy.dtype[bool_]'> -> None")
    if out is None:
        return x.copy()
    _array._check_output("positive", out, x.shape, x.dtype)
    _array._launch_elementwise("cast", out, [x, out])
    return out


def _float64(x):
    """x as a float64 operand: device arrays are cast on the device, numbers stay numbers."""
    if isinstance(x, _array.ndarray):
        return x if x.dtype == np.float64 else x.astype(np.float64)
    if isinstance(x, (numbers.Number, np.generic)):
        return float(x)
    return _array.to_device(np.asarray(x), np.float64)


def float_power(x1, x2, out=None):
    """numpy's float_power: x1 ** x2 computed in float64 whatever the inputs."""
    return binary("power", _float64(x1), _float64(x2), out=out)


def conjugate(x, out=None):
    """The complex conjugate; for the device's real dtypes a copy (bool becomes int8, as numpy's)."""
    _check_out("conjugate", out)
    x = _device(x)
    if x.dtype.kind == "c":
        return _complex.conjugate_into(x, out)
    dtype = np.dtype(np.int8) if x.dtype == np.bool_ else x.dtype
    if out is None:
        return x.astype(dtype)
    _array._check_output("conjugate", out, x.shape, dtype)
    _array._launch_elementwise("cast", out, [x, out])
    return out


def divmod(x1, x2, out=(None, None)):
    """(x1 // x2, x1 % x2), numpy's divmod: floor_divide and remainder."""
    if out is None:
        out = (None, None)
    if len(out) != 2:
        raise ValueError(f"divmod has 2 outputs, got {len(out)}")
    return (binary("floor_divide", x1, x2, out=out[0]), binary("remainder", x1, x2, out=out[1]))


def clip(a, a_min=None, a_max=None, out=None):
    """numpy's clip: minimum(maximum(a, a_min), a_max); either bound may be None (not both),
    scalars or arrays (broadcast)."""
    if a_min is None and a_max is None:
        raise ValueError("One of max or min must be given")
    _check_out("clip", out)
    result = _device(a)
    if a_min is not None:
        result = binary("maximum", result, a_min, out=out if a_max is None else None)
    if a_max is not None:
        result = binary("minimum", result, a_max, out=out)
    return result


def around(a, decimals=0, out=None):
    """numpy's around / round: rint(a * 10**decimals) / 10**decimals (rint(a / 10**-decimals) *
    10**-decimals for negative decimals), as numpy computes it; integers are returned unchanged
    (a copy) for decimals >= 0 and rounded through float64 and cast back (wrapping) otherwise."""
    _check_out("around", out)
    a = _device(a)
    decimals = operator.index(decimals)
    if a.dtype.kind == "c":  # numpy rounds the two parts on their own (a NaN in one stays there)
        from . import _complex
        result = _complex._assemble(around(_complex.real(a), decimals), around(_complex.imag(a), decimals), a.dtype)
    elif a.dtype.kind in "iu":
        if decimals >= 0:
            result = a.copy()
        else:
            f = 10.0 ** -decimals
            result = binary("multiply", unary("rint", binary("divide", a.astype(np.float64), f)), f).astype(a.dtype)
    elif decimals == 0:
        result = unary("rint", a)
    elif decimals > 0:
        f = 10.0 ** decimals
        result = binary("divide", unary("rint", binary("multiply", a, f)), f)
    else:
        f = 10.0 ** -decimals
        result = binary("multiply", unary("rint", binary("divide", a, f)), f)
    if out is None:
        return result
    if out.shape != result.shape:
        raise ValueError(f"around: out has shape {out.shape}, the result {result.shape}")
    _array._launch_elementwise("cast", out, [result, out])  # numpy's around casts into out unsafely
    return out


def _make_unary(name):
    def f(x, out=None):
        if out is None and type(x) is _array.ndarray:
            return _array._unary(name, x)  # the common case, without the checks below
        return unary(name, x, out=out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"numpy.{name} on the device."
    return f


def _make_binary(name):
    def f(x1, x2, out=None):
        return binary(name, x1, x2, out=out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"numpy.{name} on the device."
    return f


FUNCTIONS = {name: _make_unary(name) for name in UNARY}
FUNCTIONS.update({name: _make_binary(name) for name in BINARY})
FUNCTIONS.update(positive=positive, power=power, divmod=divmod, clip=clip, around=around, round=around,
                 round_=around, float_power=float_power, conjugate=conjugate, conj=conjugate)
# numpy's other names for the same ufuncs.
ALIASES = {"abs": "absolute", "bitwise_not": "invert", "mod": "remainder", "true_divide": "divide",
           "radians": "deg2rad", "degrees": "rad2deg",
           # the array API standard's names
           "acos": "arccos", "asin": "arcsin", "atan": "arctan", "atan2": "arctan2", "acosh": "arccosh",
           "asinh": "arcsinh", "atanh": "arctanh", "pow": "power", "bitwise_left_shift": "left_shift",
           "bitwise_right_shift": "right_shift", "bitwise_invert": "invert"}
FUNCTIONS.update({alias: FUNCTIONS[name] for alias, name in ALIASES.items()})
