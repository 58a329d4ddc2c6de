"""cb.random: numpy's Generator interface, drawing on the device.

``default_rng(seed)`` gives a Generator whose ``random``, ``uniform``, ``normal``, ``integers``,
``choice`` and ``permutation`` compute on the device from the built-in Philox4x32-10 kernel
(``random_uniform``). Philox is counter-based: a number depends only on (seed, draw, index), so
the same seed gives the same numbers on the simulated GPU and on a real one, however the work is
split. Each draw takes a stream of its own (the Philox counter's upper half is the number of
earlier draws), so draws never overlap. The numbers are not numpy's for the same seed: numpy's
``default_rng`` is PCG64.
"""

import math
import numbers
import os

import numpy as np

from . import _array, _dtypes

__all__ = ["Generator", "default_rng", "rand", "random", "seed"]

rand = _array.rand
seed = _array.seed

_U64 = 1 << 64


def _seed_value(value):
    if value is None:
        return int.from_bytes(os.urandom(8), "little")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"seed must be an integer or None, not {type(value).__name__}")
    value = int(value)
    if not 0 <= value < _U64:
        raise ValueError(f"seed must be between 0 and 2**64 - 1, not {value}")
    return value


def _shape(size):
    if size is None:
        return ()
    if isinstance(size, (numbers.Integral, np.integer)):
        size = (int(size),)
    shape = tuple(int(s) for s in size)
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def _scalar(x, what):
    if isinstance(x, _array.ndarray):
        if x.ndim:
            raise TypeError(f"{what} must be a number here, not an array of shape {x.shape}")
        x = x.item()
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Real, np.number)):
        raise TypeError(f"{what} must be a real number, not {type(x).__name__}")
    return x.item() if isinstance(x, np.generic) else x


class Generator:
    """Random numbers on the device from one seed (see the module's docstring)."""

    def __init__(self, seed=None):
        self._seed = _seed_value(seed)
        self._draws = 0

    def __repr__(self):
        return f"Generator(Philox4x32-10, seed={self._seed})"

    def _uniform(self, shape, dtype=np.float64):
        """[0, 1) of `shape` from a stream no other draw uses."""
        out = _array.ndarray._new(shape, _dtypes.check(dtype))
        if out.size:
            _array._launch("random_uniform", out, [out], [("u", self._seed), ("u", self._draws)])
        self._draws += 1
        return out

    def random(self, size=None, dtype=np.float64):
        """Uniform floats in [0, 1), float64 or float32."""
        dtype = _dtypes.check(dtype)
        if dtype not in (np.float32, np.float64):  # numpy's Generator.random refuses float16 too
            raise TypeError(f"random makes float32 or float64 numbers, not {dtype}")
        return self._uniform(_shape(size), dtype)

    def uniform(self, low=0.0, high=1.0, size=None):
        """Uniform floats in [low, high)."""
        low, high = _scalar(low, "low"), _scalar(high, "high")
        if not (math.isfinite(low) and math.isfinite(high)):
            raise OverflowError("uniform: low and high must be finite")
        return self._uniform(_shape(size)) * (high - low) + low

    def normal(self, loc=0.0, scale=1.0, size=None):
        """Normal floats (Box-Muller over two uniform draws)."""
        loc, scale = _scalar(loc, "loc"), _scalar(scale, "scale")
        if scale < 0:
            raise ValueError("normal: scale must be non-negative")
        from . import cos, log, sqrt

        shape = _shape(size)
        u1, u2 = self._uniform(shape), self._uniform(shape)
        z = sqrt(log(1.0 - u1) * -2.0) * cos(u2 * (2.0 * math.pi))
        return z * scale + loc

    def standard_normal(self, size=None):
        return self.normal(0.0, 1.0, size)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """Integers in [low, high) ([low, high] with endpoint=True)."""
        low = _scalar(low, "low")
        if high is None:
            low, high = 0, low
        high = _scalar(high, "high")
        if int(low) != low or int(high) != high:
            raise TypeError("integers: low and high must be integers")
        low, high = int(low), int(high) + (1 if endpoint else 0)
        if low >= high:
            raise ValueError(f"integers: low >= high ({low} >= {high})")
        dtype = _dtypes.check(dtype)
        if dtype.kind not in "iu":
            raise TypeError(f"integers makes an integer dtype, not {dtype}")
        info = np.iinfo(dtype)
        if low < info.min or high - 1 > info.max:
            raise ValueError(f"integers: [{low}, {high}) does not fit {dtype}")
        if high - low > 1 << 53:
            raise ValueError("integers: a range wider than 2**53 is not supported (float64 draws)")
        from . import floor, minimum

        span = high - low
        picked = minimum(floor(self._uniform(_shape(size)) * float(span)), float(span - 1))
        return (picked + float(low)).astype(dtype)

    def permutation(self, x):
        """A shuffled arange(x), or a copy of x shuffled along its first axis."""
        from . import argsort

        if isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_)):
            if x < 0:
                raise ValueError(f"permutation: {x} is negative")
            return argsort(self._uniform((int(x),)))
        a = _array.asarray(x)
        if a.ndim == 0:
            raise TypeError("permutation: x must be an integer or an array with at least one dimension")
        return a.take(argsort(self._uniform((a.shape[0],))), axis=0)

    def choice(self, a, size=None, replace=True, p=None):
        """Elements of `a` (or of arange(a) for an integer), with or without replacement, optionally
        weighted by the probabilities `p` (with replacement only)."""
        if isinstance(a, (numbers.Integral, np.integer)) and not isinstance(a, (bool, np.bool_)):
            population, n = None, int(a)
        else:
            population = _array.asarray(a)
            if population.ndim != 1:
                raise ValueError("choice: a must be 1-dimensional or an integer")
            n = population.shape[0]
        shape = _shape(size)
        count = math.prod(shape)
        if n <= 0 and count:
            raise ValueError("choice: a cannot be empty unless no samples are taken")
        if p is not None:
            if not replace:
                raise NotImplementedError("choice: weighted sampling without replacement is not supported")
            index = self._weighted(n, p, shape)
        elif replace:
            index = self.integers(0, max(n, 1), size=shape)
        else:
            if count > n:
                raise ValueError("choice: cannot take a larger sample than the population when replace=False")
            index = self.permutation(n)[:count].reshape(shape)
        return index if population is None else population.take(index)

    def _weighted(self, n, p, shape):
        from . import cumsum, minimum

        weights = np.asarray(_array.from_device(p) if isinstance(p, _array.ndarray) else p, dtype=np.float64)
        if weights.shape != (n,):
            raise ValueError("choice: a and p must have the same size")
        if not np.all(np.isfinite(weights)) or np.any(weights < 0):
            raise ValueError("choice: probabilities must be finite and non-negative")
        if not np.isclose(weights.sum(), 1.0):
            raise ValueError("choice: probabilities do not sum to 1")
        cdf = cumsum(_array.asarray(weights))
        cdf = cdf / cdf[n - 1]
        u = self._uniform((math.prod(shape), 1))
        # The index is how many cumulative weights lie at or below the draw: O(samples x n) work.
        below = (u >= cdf.reshape(1, n)).sum(axis=1)
        return minimum(below, n - 1).reshape(shape)


def default_rng(seed=None):
    """A Generator on the device; a Generator passed in is returned as it is."""
    if isinstance(seed, Generator):
        return seed
    return Generator(seed)


def random(size=None):
    """Uniform float64 numbers in [0, 1), from the module's generator (cb.random.seed)."""
    return _array.rand(_shape(size))
