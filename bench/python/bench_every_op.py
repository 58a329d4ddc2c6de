#!/usr/bin/env python3
"""Every elementwise op and reduction of the device's numpy coverage on 16M elements, a 16M float32
sort and a batched 64 x (128 x 128) float32 matmul, each beside numpy on the same data in the
same run (wall clock, measured on this machine; on the simulated eGPU the kernels run on this
machine's CPU threads, so the ratio is the device's kernels against numpy's loops).

Each figure is the best of --runs synchronized calls. Data: float32 in [0.25, 0.75) (inside
every op's domain: arccosh gets 1 + x), int32 in [0, 1000) for the bitwise ops, booleans for the
logical ones, about a tenth NaN for the nan-reductions.
Goals (numpy/cudabridge): >= 1.0x for every elementwise op, reduction and the sort; >= 0.8x for
the batched matmul.
Run:  PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_every_op.py [--only NAME...]
"""
import argparse

import numpy as np

import cudabridge as cb
from bench_python_ops import best  # this folder's: the best of synchronized runs

UNARY = ["abs", "negative", "positive", "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "cbrt",
         "square", "reciprocal", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
         "arcsinh", "arccosh", "arctanh", "floor", "ceil", "trunc", "rint", "sign", "isnan", "isinf", "isfinite"]
BINARY = ["add", "subtract", "multiply", "divide", "power", "arctan2", "hypot", "copysign", "fmod", "remainder",
          "maximum", "minimum", "fmax", "fmin", "equal", "not_equal", "less", "less_equal", "greater",
          "greater_equal"]
INTEGER = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]
REDUCTIONS = ["sum", "prod", "mean", "var", "std", "min", "max", "argmin", "argmax", "cumsum", "cumprod",
              "count_nonzero"]
NAN_REDUCTIONS = ["nansum", "nanmean", "nanmax", "nanmin"]


def cases(n, rng):
    """(label, goal ratio, fn(module, *operands), host operands) for every op."""
    x = (0.25 + 0.5 * rng.random(n, dtype=np.float32))
    y = (0.25 + 0.5 * rng.random(n, dtype=np.float32))
    i, j = rng.integers(0, 1000, n, dtype=np.int32), rng.integers(0, 8, n, dtype=np.int32)
    p, q = rng.random(n) < 0.5, rng.random(n) < 0.5
    nan = np.where(rng.random(n) < 0.1, np.float32(np.nan), x)
    for name in UNARY:
        operand = x + 1 if name == "arccosh" else x
        yield name, 1.0, (lambda m, a, f=name: getattr(m, f)(a)), [operand]
    yield "logical_not", 1.0, (lambda m, a: m.logical_not(a)), [p]
    yield "invert (int32)", 1.0, (lambda m, a: m.invert(a)), [i]
    for name in BINARY:
        yield name, 1.0, (lambda m, a, b, f=name: getattr(m, f)(a, b)), [x, y]
    for name in INTEGER:
        yield name + " (int32)", 1.0, (lambda m, a, b, f=name: getattr(m, f)(a, b)), [i, j]
    for name in LOGICAL:
        yield name, 1.0, (lambda m, a, b, f=name: getattr(m, f)(a, b)), [p, q]
    yield "clip", 1.0, (lambda m, a: m.clip(a, 0.4, 0.6)), [x]
    for name in REDUCTIONS:
        yield name, 1.0, (lambda m, a, f=name: getattr(m, f)(a)), [x]
    yield "any", 1.0, (lambda m, a: m.any(a)), [p]
    yield "all", 1.0, (lambda m, a: m.all(a)), [p]
    yield "sum axis=1 (4096 x 4096)", 1.0, (lambda m, a: m.sum(a, axis=1)), [x.reshape(4096, -1)]
    for name in NAN_REDUCTIONS:
        yield name, 1.0, (lambda m, a, f=name: getattr(m, f)(a)), [nan]
    yield "sort float32", 1.0, (lambda m, a: m.sort(a)), [x]
    b = [rng.random((64, 128, 128), dtype=np.float32) for _ in range(2)]
    yield "matmul 64 x (128 x 128)", 0.8, (lambda m, a, c: m.matmul(a, c)), b


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--elements", type=int, default=16 << 20)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--only", nargs="*", help="run only the ops whose label starts with one of these")
    a = p.parse_args()
    cb.init()
    dev = cb.devices()[0]
    print(f"device: {dev.name} on {dev.link} ({'simulated: kernels run on this CPU' if dev.simulated else 'hardware'})")
    print(f"{a.elements} elements (the matmul: its own shape); all times measured (wall clock, this machine)\n")
    print(f"{'operation':28} {'cudabridge':>12} {'numpy':>12} {'numpy/cb':>9}  goal")
    met = total = 0
    for label, goal, fn, host in cases(a.elements, np.random.default_rng(7)):
        if a.only and not any(label.startswith(o) for o in a.only):
            continue
        dev_operands = [cb.to_device(h) for h in host]
        with np.errstate(all="ignore"):
            tn = best(lambda: fn(np, *host), a.runs, sync=False)
            t = best(lambda: fn(cb, *dev_operands), a.runs, sync=True)
        ok = tn / t >= goal
        met, total = met + ok, total + 1
        print(f"{label:28} {t * 1e3:10.2f}ms {tn * 1e3:10.2f}ms {tn / t:8.2f}x  >= {goal:.1f}x: "
              f"{'met' if ok else 'NOT met'}", flush=True)
    print(f"\n{met} of {total} goals met")
    cb.shutdown()


if __name__ == "__main__":
    main()
