#!/usr/bin/env python3
"""Per-operation time of cudabridge arrays against numpy, in the same run (wall clock, measured on
this machine; on the simulated eGPU the kernels run on this machine's CPU threads).

  overhead:   1k-element float32 `a + b`, `a.sum()`, `np.exp(a)` (numpy's dispatch) and
              `cb.exp(a)`: N operations queued, then one synchronize; the time per operation,
              the best of --small-runs such runs (as timeit takes the minimum: many short
              runs, because a shared machine has slow spells that slow numpy as much); CuPy's
              launch overhead is about 5-10 us
  throughput: 16M float32 `a + b`, `a * 2.0`, `a.sum()`, `a.max()` and a 1024x1024 float32
              matmul, each synchronized; the best of R runs
Goals: <= 5 us per small op (np.exp through dispatch <= 4 us, cb.exp <= 3 us); >= 1.0x numpy
on the large elementwise ops and reductions; >= 0.9x numpy on the 1024^2 matmul (every other
op, the sort and the batched matmul: bench_every_op.py).
Run:  PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_python_ops.py
"""
import argparse
import time

import numpy as np

import cudabridge as cb


def per_op(fn, n, runs, sync=True):
    fn()
    if sync:
        cb.synchronize()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if sync:
            cb.synchronize()
        times.append((time.perf_counter() - t0) / n)
    return min(times)


def best(fn, runs, sync=True):
    """The best of `runs` single calls (each synchronized)."""
    return per_op(fn, 1, runs, sync)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--small-ops", type=int, default=2000)
    p.add_argument("--small-runs", type=int, default=20)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    a = p.parse_args()
    if a.quick:
        a.small_ops, a.small_runs, a.runs = 200, 2, 2
    cb.init()
    dev = cb.devices()[0]
    print(f"device: {dev.name} on {dev.link} ({'simulated: kernels run on this CPU' if dev.simulated else 'hardware'})")
    print("all times measured (wall clock, this machine)\n")

    rng = np.random.default_rng(1)
    small_np = [rng.random(1000, dtype=np.float32) for _ in range(2)]
    small = [cb.to_device(x) for x in small_np]
    rows = []
    t = per_op(lambda: small[0] + small[1], a.small_ops, a.small_runs)
    tn = per_op(lambda: small_np[0] + small_np[1], a.small_ops, a.small_runs, sync=False)
    rows.append(("1k a + b (per op, queued)", t, tn, "<= 5 us", t <= 5e-6))
    t = per_op(lambda: small[0].sum(), a.small_ops, a.small_runs)
    tn = per_op(lambda: small_np[0].sum(), a.small_ops, a.small_runs, sync=False)
    rows.append(("1k a.sum() (per op, queued)", t, tn, "<= 5 us", t <= 5e-6))
    # A ufunc through numpy's dispatch (__array_ufunc__) and called directly.
    t = per_op(lambda: np.exp(small[0]), a.small_ops, a.small_runs)
    tn = per_op(lambda: np.exp(small_np[0]), a.small_ops, a.small_runs, sync=False)
    rows.append(("1k np.exp(a) (per op, queued)", t, tn, "<= 4 us", t <= 4e-6))
    t = per_op(lambda: cb.exp(small[0]), a.small_ops, a.small_runs)
    rows.append(("1k cb.exp(a) (per op, queued)", t, tn, "<= 3 us", t <= 3e-6))

    n = 16 << 20
    big_np = [rng.random(n, dtype=np.float32) for _ in range(2)]
    big = [cb.to_device(x) for x in big_np]
    for label, fn, fnn in [
        ("16M a + b", lambda: big[0] + big[1], lambda: big_np[0] + big_np[1]),
        ("16M a * 2.0", lambda: big[0] * 2.0, lambda: big_np[0] * 2.0),
        ("16M a.sum()", lambda: big[0].sum(), lambda: big_np[0].sum()),
        ("16M a.max()", lambda: big[0].max(), lambda: big_np[0].max()),
    ]:
        t, tn = best(fn, a.runs), best(fnn, a.runs, sync=False)
        rows.append((label, t, tn, ">= 1.0x numpy", tn / t >= 1.0))
    m_np = [rng.random((1024, 1024), dtype=np.float32) for _ in range(2)]
    m = [cb.to_device(x) for x in m_np]
    t, tn = best(lambda: m[0] @ m[1], a.runs), best(lambda: m_np[0] @ m_np[1], a.runs, sync=False)
    rows.append(("1024^2 matmul float32", t, tn, ">= 0.9x numpy", tn / t >= 0.9))

    print(f"{'operation':30} {'cudabridge':>12} {'numpy':>12} {'numpy/cb':>9}  goal")
    for label, t, tn, goal, met in rows:
        print(f"{label:30} {t * 1e6:10.1f}us {tn * 1e6:10.1f}us {tn / t:8.2f}x  {goal}: {'met' if met else 'NOT met'}")
    cb.shutdown()


if __name__ == "__main__":
    main()
