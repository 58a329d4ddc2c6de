#!/usr/bin/env python3
"""Dask over cudabridge chunks against numpy chunks, in the same run and on the same cluster
(wall clock, measured on this machine; a simulated eGPU runs its kernels on this machine's CPU).

  per-task overhead: an elementwise layer (`x + k`) over N tiny chunks (64 float32 each), persisted
                     and waited for; the time per task, the best of --runs runs, on a
                     cudabridge.dask.LocalCluster of --workers worker processes. The same graph
                     over numpy chunks runs on the same workers, interleaved with it
  scaling (--scaling): the example's elementwise + reduction pipeline (sqrt(x*x+1)*0.5-x, then
                     sum, column means, row maxima) on 1 and then 2 eGPU workers; best of --runs
Goal: per-task overhead with cudabridge chunks <= 1.5x that with numpy chunks.
Run:  PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_dask.py [--scaling]
By default the run makes a CudaBridge home of its own with two simulated eGPUs (cudabridge-cli
sim plug + connect); --use-connected uses the connected eGPUs of CUDABRIDGE_HOME instead.
"""
import argparse
import logging
import os
import pathlib
import sys
import time

import numpy as np


# The example's own setup: its two simulated enclosures in a temporary home.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"))
from dask_two_egpus import egpus_for_the_run  # noqa: E402


def per_task(client, x, runs, wait):
    """Seconds per task of an elementwise layer over x's chunks: the best of `runs`."""
    tasks = x.npartitions
    times = []
    for k in range(runs + 1):  # the first run warms up (imports, pools); it is not counted
        y = x + (k + 1)  # new keys each run: nothing is reused from the run before
        t0 = time.perf_counter()
        y = y.persist()
        wait(y)
        dt = time.perf_counter() - t0
        del y
        if k:
            times.append(dt / tasks)
    return min(times)


def overhead(cbd, da, client, wait, n_chunks, runs):
    h = np.arange(n_chunks * 64, dtype=np.float32)
    xs = {"numpy": da.from_array(h, chunks=64).persist(), "cudabridge": cbd.from_array(h, chunks=64).persist()}
    for x in xs.values():
        wait(x)
    best = {name: float("inf") for name in xs}
    for _ in range(3):  # interleaved, so a slow spell of the machine hits both
        for name, x in xs.items():
            best[name] = min(best[name], per_task(client, x, runs, wait))
    print(f"per-task overhead ({n_chunks} tasks of 64 float32 each, best of {3 * runs} runs, measured):")
    for name, t in best.items():
        print(f"    {name:<10} chunks: {t * 1e6:8.1f} us per task")
    ratio = best["cudabridge"] / best["numpy"]
    print(f"    cudabridge / numpy: {ratio:.2f}x (goal <= 1.5x): {'met' if ratio <= 1.5 else 'NOT met'}")
    return ratio


def pipeline_seconds(cbd, da, wait, h, chunk, runs):
    x = cbd.from_array(h, chunks=chunk).persist()
    wait(x)
    times = []
    for k in range(runs + 1):
        y = da.sqrt(x * x + 1.0) * (0.5 + k) - x
        t0 = time.perf_counter()
        results = [cbd.to_numpy(r) for r in (y.sum(), y.mean(axis=0), y.max(axis=1))]
        da.compute(*results)
        if k:
            times.append(time.perf_counter() - t0)
    return min(times)


def scaling(cbd, da, Client, wait, env, size, runs):
    h = np.random.default_rng(1).standard_normal((size, size)).astype(np.float32)
    seconds = {}
    for n in (1, 2):
        with cbd.LocalCluster(n_devices=n, env=env, silence_logs=logging.WARNING) as cluster, Client(cluster):
            seconds[n] = pipeline_seconds(cbd, da, wait, h, size // 4, runs)
    print(f"strong scaling, {size} x {size} float32 pipeline (best of {runs} runs, measured, {os.cpu_count()} CPU "
          f"cores):")
    for n, s in seconds.items():
        print(f"    {n} eGPU worker(s): {s:.3f} s")
    print(f"    speed-up 1 -> 2 workers: {seconds[1] / seconds[2]:.2f}x")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--chunks", type=int, default=400, help="tasks per layer in the overhead graph")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--workers", type=int, default=2, help="eGPU workers for the overhead graph")
    p.add_argument("--scaling", action="store_true", help="also time the pipeline on 1 and 2 workers")
    p.add_argument("--size", type=int, default=2048, help="side of the scaling pipeline's array")
    p.add_argument("--use-connected", action="store_true", help="use the eGPUs connected in CUDABRIDGE_HOME")
    p.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run)")
    a = p.parse_args()
    if a.quick:
        a.chunks, a.runs, a.size = 40, 1, 512
    with egpus_for_the_run(a.use_connected, "cudabridge-bench-dask-"):
        import dask.array as da
        from distributed import Client, wait

        import cudabridge as cb
        import cudabridge.dask as cbd

        env = {"CUDABRIDGE_HOME": os.environ["CUDABRIDGE_HOME"]} if "CUDABRIDGE_HOME" in os.environ else {}
        with cbd.LocalCluster(n_devices=a.workers, env=env, silence_logs=logging.WARNING) as cluster, \
                Client(cluster) as client:
            names = sorted(d["name"] for d in client.run(cbd.bound_device).values())
            print(f"{a.workers} worker processes, nthreads=1 each, on {', '.join(names)}")
            overhead(cbd, da, client, wait, a.chunks, a.runs)
        if a.scaling:
            scaling(cbd, da, Client, wait, env, a.size, a.runs)
        cb.shutdown()


if __name__ == "__main__":
    main()
