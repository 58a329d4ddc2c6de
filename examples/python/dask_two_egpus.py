"""Two eGPUs, one Dask worker process each: an elementwise + reduction pipeline and a blocked
matmul, every result checked against numpy, and each device's share of the tasks printed.

    python3 dask_two_egpus.py                  # two simulated eGPUs in a CudaBridge home of its own
    python3 dask_two_egpus.py --use-connected  # the eGPUs connected in your CudaBridge home

By default the example makes a temporary CudaBridge home, plugs a second simulated enclosure
(an RTX 4090 beside the default RTX 5090) with cudabridge-cli, connects both, and removes the home
at the end; your own home and fabric are left alone.
"""
import argparse
import collections
import contextlib
import logging
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np


def cli():
    import cudabridge
    built = pathlib.Path(cudabridge.__file__).resolve().parents[2] / "bin" / "cudabridge-cli"
    found = str(built) if built.exists() else shutil.which("cudabridge-cli")
    if not found:
        sys.exit("cudabridge-cli is neither next to the cudabridge package nor on PATH")
    return found


def make_two_simulated_egpus(home):
    env = dict(os.environ, CUDABRIDGE_HOME=home)
    for args in (["sim", "plug", "rtx-4090"], ["connect", "0"], ["connect", "1"]):
        r = subprocess.run([cli(), *args], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"cudabridge-cli {' '.join(args)} failed: {r.stderr.strip() or r.stdout.strip()}")


@contextlib.contextmanager
def egpus_for_the_run(use_connected, prefix):
    """The eGPUs a run uses: those connected in CUDABRIDGE_HOME (use_connected), or two simulated
    ones in a temporary home of their own, disconnected and removed when the run ends."""
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")  # the workers' start-up lines too
    if use_connected:
        yield
        return
    home = tempfile.mkdtemp(prefix=prefix)
    os.environ["CUDABRIDGE_HOME"] = home
    os.environ.setdefault("CUDABRIDGE_LOG_SINKS", "file,sqlite")
    try:
        make_two_simulated_egpus(home)
        yield
    finally:
        subprocess.run([cli(), "disconnect"], env=dict(os.environ), capture_output=True)
        shutil.rmtree(home, ignore_errors=True)


def share_of_tasks(records, bound):
    """Tasks per worker from distributed's task stream, named by the worker's eGPU."""
    count = collections.Counter(r["worker"] for r in records)
    total = sum(count.values())
    for worker, n in sorted(count.items()):
        d = bound.get(worker) or {}
        print(f"    eGPU {d.get('visible')} {d.get('name')}: {n} tasks ({100.0 * n / total:.0f}%)")


def held_bytes(dask_worker):
    """Bytes of device chunks a worker holds (runs on the worker)."""
    import cudabridge as cb
    return sum(v.nbytes for v in dask_worker.data.values() if isinstance(v, cb.ndarray))


def pipeline(cbd, da, n, chunk, rng):
    print(f"elementwise + reduction: {n} x {n} float32 ({n * n * 4 >> 20} MiB), chunks of {chunk} x {chunk}")
    h = rng.standard_normal((n, n)).astype(np.float32)
    x = cbd.from_array(h, chunks=chunk)
    y = da.sqrt(x * x + 1.0) * 0.5 - x
    t = time.perf_counter()
    total, col_mean, row_max = (cbd.to_numpy(r).compute() for r in (y.sum(), y.mean(axis=0), y.max(axis=1)))
    seconds = time.perf_counter() - t
    ref = np.sqrt(h * h + np.float32(1.0)) * np.float32(0.5) - h
    np.testing.assert_allclose(total, ref.sum(dtype=np.float64), rtol=1e-4)
    np.testing.assert_allclose(col_mean, ref.mean(axis=0), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(row_max, ref.max(axis=1))
    print(f"    sum, column means and row maxima equal numpy's ({seconds:.2f} s measured, three graphs)")


def blocked_matmul(cbd, client, n, k, chunk, budget_mib, rng):
    out_mib = n * n * 4 / 2**20
    print(f"blocked matmul: ({n} x {k}) @ ({k} x {n}) float32, output {out_mib:.0f} MiB in {chunk} x {chunk} "
          f"blocks, per-device budget {budget_mib} MiB")
    if out_mib <= budget_mib:
        print("    (the output fits the budget; raise --matmul or lower --budget-mib to exceed it)")
    a_host = rng.standard_normal((n, k)).astype(np.float32)
    b_host = rng.standard_normal((k, n)).astype(np.float32)
    c = cbd.matmul(cbd.from_array(a_host, chunks=(chunk, chunk)), cbd.from_array(b_host, chunks=(chunk, chunk)))
    t = time.perf_counter()
    c = c.persist()  # the output stays on the workers' eGPUs, in blocks
    from distributed import wait
    wait(c)
    seconds = time.perf_counter() - t
    held = client.run(held_bytes)
    for worker, nbytes in sorted(held.items()):
        print(f"    {worker} holds {nbytes / 2**20:.1f} MiB of device chunks")
    busiest = max(held.values()) / 2**20
    print(f"    the busiest device holds {busiest:.1f} MiB of the {out_mib:.0f} MiB output "
          f"({'within' if busiest <= budget_mib else 'over'} the {budget_mib} MiB budget)")
    got = cbd.to_numpy(c).compute()
    np.testing.assert_allclose(got, a_host @ b_host, rtol=1e-3, atol=1e-3)
    print(f"    equals numpy's a @ b ({seconds:.2f} s measured for the matmul)")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--use-connected", action="store_true", help="use the eGPUs connected in CUDABRIDGE_HOME")
    p.add_argument("--size", type=int, default=4096, help="side of the elementwise array (default 4096)")
    p.add_argument("--matmul", type=int, default=1536, help="side of the matmul output (default 1536)")
    p.add_argument("--budget-mib", type=float, default=6.0, help="per-device budget for the matmul output (MiB)")
    args = p.parse_args()

    with egpus_for_the_run(args.use_connected, "cudabridge-dask-example-"):
        import dask.array as da
        from distributed import Client, get_task_stream

        import cudabridge as cb
        import cudabridge.dask as cbd

        with cbd.LocalCluster(silence_logs=logging.WARNING) as cluster, Client(cluster) as client:
            bound = client.run(cbd.bound_device)
            print(f"{len(bound)} workers:")
            for worker, d in sorted(bound.items()):
                print(f"    {worker}: eGPU {d['visible']} {d['name']} ({d['uuid']}), pid {d['pid']}")
            rng = np.random.default_rng(2026)
            with get_task_stream(client) as stream:
                pipeline(cbd, da, args.size, args.size // 4, rng)
                blocked_matmul(cbd, client, args.matmul, args.matmul // 2, args.matmul // 6, args.budget_mib, rng)
            print("share of the tasks (distributed's task stream):")
            share_of_tasks(stream.data, bound)
        cb.shutdown()
    print("all results equal numpy's")


if __name__ == "__main__":
    main()
