#!/usr/bin/env python3
"""User kernels and DLPack against numpy, in the same run (wall clock, measured on this machine;
on the simulated eGPU user kernels run on its PTX engine, on this machine's CPU threads).

  compile:    the first call of a new ElementwiseKernel (NVRTC, then the PTX engine's JIT)
  throughput: `z = (x - y) * (x - y)` as an ElementwiseKernel, an l2-norm ReductionKernel over
              all axes and over axis=1 of a square matrix, each synchronized; the best of R runs
  overhead:   1k-element ElementwiseKernel calls and RawKernel launches, N queued, one
              synchronize; the best of R runs
  dlpack:     np.from_dlpack of a device array (zero-copy: on the simulator the VRAM through BAR1),
              beside numpy's own copy of the same array
Needs NVRTC (a CUDA toolkit) for the generated kernels. Run:
  PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_user_kernels.py [--quick]
"""
import argparse
import time

import numpy as np

import cudabridge as cb

SAXPY = r"""extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}"""


def best(fn, runs):
    fn()
    cb.synchronize()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        cb.synchronize()
        times.append(time.perf_counter() - t0)
    return min(times)


def per_call(fn, n, runs):
    return best(lambda: [fn() for _ in range(n)], runs) / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes, one run (a smoke test)")
    args = ap.parse_args()
    n, side, runs, calls = (2**16, 256, 1, 50) if args.quick else (16 * 2**20, 4096, 3, 1000)
    cb.init()
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    dx, dy = cb.asarray(x), cb.asarray(y)

    sqdiff = cb.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "bench_sqdiff")
    t0 = time.perf_counter()
    sqdiff(dx[:8], dy[:8])
    cb.synchronize()
    print(f"compile   ElementwiseKernel, first call          {(time.perf_counter() - t0) * 1e3:8.1f} ms")
    np.testing.assert_allclose(sqdiff(dx, dy).get(), (x - y) * (x - y), rtol=1e-6)

    l2 = cb.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "bench_l2")
    m = rng.standard_normal((side, side)).astype(np.float32)
    dm = cb.asarray(m)
    rows = [
        (f"sqdiff {n} f32", lambda: sqdiff(dx, dy), lambda: (x - y) * (x - y)),
        (f"l2norm {n} f32, all axes", lambda: l2(dx), lambda: np.sqrt((x * x).sum())),
        (f"l2norm {side}x{side} f32, axis=1", lambda: l2(dm, axis=1), lambda: np.sqrt((m * m).sum(axis=1))),
    ]
    for name, dev, host in rows:
        td, th = best(dev, runs), best(host, runs)
        print(f"throughput {name:36s} cb {td * 1e3:8.1f} ms  numpy {th * 1e3:8.1f} ms  {th / td:5.2f}x")

    small_x, small_y, out = cb.zeros(1000, np.float32), cb.zeros(1000, np.float32), cb.zeros(1000, np.float32)
    raw = cb.RawKernel(SAXPY, "saxpy")
    raw_args = (np.float32(2), small_x, small_y, out, np.uint32(1000))
    print(f"overhead  ElementwiseKernel, 1k elements         "
          f"{per_call(lambda: sqdiff(small_x, small_y), calls, runs) * 1e6:8.1f} us")
    print(f"overhead  RawKernel launch, 1k elements          "
          f"{per_call(lambda: raw(4, 256, raw_args), calls, runs) * 1e6:8.1f} us")

    a = cb.asarray(x)
    shared, copied = best(lambda: np.from_dlpack(a), runs), best(lambda: x.copy(), runs)
    print(f"dlpack    np.from_dlpack, {a.nbytes >> 20} MiB (no copy)      {shared * 1e6:8.1f} us  "
          f"numpy copy {copied * 1e6:8.1f} us  {copied / shared:5.1f}x")


if __name__ == "__main__":
    main()
