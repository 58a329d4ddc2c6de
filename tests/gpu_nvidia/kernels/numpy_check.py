"""Cross-checks results computed by test_numpy.cpp against numpy itself.

Usage: numpy_check.py DIR  (DIR holds manifest.txt and raw little-endian arrays).
Each manifest line: kind op arg out_file out_dtype out_shape in_file in_dtype in_shape [...]
Exit 0 when everything matches, 1 with a list of mismatches otherwise.
"""
import os
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")  # integer division by zero etc.: numpy warns, we compare values


def load(d, name, dtype, shape):
    shape = () if shape == "-" else tuple(int(s) for s in shape.split(","))
    return np.fromfile(os.path.join(d, name), dtype=dtype).reshape(shape)


def main():
    d = sys.argv[1]
    failures = []
    count = 0
    for line in open(os.path.join(d, "manifest.txt")):
        f = line.split()
        if not f:
            continue
        kind, op, arg = f[0], f[1], f[2]
        got = load(d, f[3], f[4], f[5])
        ins = [load(d, f[i], f[i + 1], f[i + 2]) for i in range(6, len(f), 3)]
        if kind == "binary" or kind == "unary":
            exp = getattr(np, op)(*ins)
        elif kind == "reduce":
            axis = None if arg == "all" else int(arg)
            exp = np.asarray(getattr(np, op)(ins[0], axis=axis))
            if ins[0].dtype == np.float16 and op in ("sum", "prod"):
                # numpy rounds to half at every step along a strided axis; the device accumulates
                # in float32 and rounds once: compare with the exact result, rounded to half.
                exp = np.asarray(getattr(np, op)(ins[0].astype(np.float64), axis=axis)).astype(np.float16)
        elif kind == "matmul":
            exp = np.asarray(np.matmul(ins[0], ins[1]))
        elif kind == "cast":
            exp = ins[0].astype(f[4])
        elif kind == "sort":  # argsort: the stable order (the kernel's documented choice)
            exp = np.sort(ins[0], axis=-1) if op == "sort" else np.argsort(ins[0], axis=-1, kind="stable")
        elif kind == "take":
            exp = np.take(ins[0], ins[1], mode="wrap")
        elif kind == "put":  # ins: before, values, indices (a repeated index keeps the last value)
            exp = ins[0].copy()
            np.put(exp, ins[2], ins[1], mode="wrap")
        elif kind == "copyto":  # ins: before, src, mask
            exp = ins[0].copy()
            np.copyto(exp, ins[1], where=ins[2])
        else:
            failures.append("unknown kind " + kind)
            continue
        count += 1
        where = " ".join(f[:3]) + " " + " ".join(f[7::3]) + " " + " ".join(f[8::3])
        if str(exp.dtype) != f[4]:
            failures.append("%s: dtype %s, numpy %s" % (where, f[4], exp.dtype))
            continue
        try:
            if exp.dtype.kind in "fc":
                rtol = {"float16": 1e-3, "float32": 2e-5, "complex64": 2e-5}.get(exp.dtype.name, 1e-12)
                np.testing.assert_allclose(got, exp, rtol=rtol, atol=0, equal_nan=True)
            else:
                np.testing.assert_array_equal(got, exp)
        except AssertionError as e:
            failures.append("%s: %s" % (where, str(e)[:400]))
    print("numpy %s: %d cases checked, %d mismatches" % (np.__version__, count, len(failures)))
    for x in failures[:30]:
        print(x)
    return 1 if failures or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
