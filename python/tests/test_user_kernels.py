"""cb.RawKernel / cb.RawModule (PTX always; CUDA source through NVRTC when the machine has it) and
cb.ElementwiseKernel / cb.ReductionKernel against numpy."""
import numpy as np
import pytest

import cudabridge as cb
from cudabridge import _kernels

# nvcc -ptx -arch=compute_75 of:
#   extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, unsigned n)
#   { unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = a * x[i] + y[i]; }
SAXPY_PTX = r"""
.version 7.0
.target sm_75
.address_size 64

.visible .entry saxpy(
	.param .f32 saxpy_param_0,
	.param .u64 saxpy_param_1,
	.param .u64 saxpy_param_2,
	.param .u64 saxpy_param_3,
	.param .u32 saxpy_param_4
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<5>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<11>;

	ld.param.f32 	%f1, [saxpy_param_0];
	ld.param.u64 	%rd1, [saxpy_param_1];
	ld.param.u64 	%rd2, [saxpy_param_2];
	ld.param.u64 	%rd3, [saxpy_param_3];
	ld.param.u32 	%r2, [saxpy_param_4];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.u32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd4, %rd1;
	mul.wide.u32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.f32 	%f2, [%rd6];
	cvta.to.global.u64 	%rd7, %rd2;
	add.s64 	%rd8, %rd7, %rd5;
	ld.global.f32 	%f3, [%rd8];
	fma.rn.f32 	%f4, %f2, %f1, %f3;
	cvta.to.global.u64 	%rd9, %rd3;
	add.s64 	%rd10, %rd9, %rd5;
	st.global.f32 	[%rd10], %f4;
$L__BB0_2:
	ret;
}
"""

SAXPY_CU = r"""
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = SCALE * a * x[i] + y[i];
}
"""


def _nvrtc_error():
    """None when CUDA source compiles on this machine, else the runtime's message."""
    cb.init()
    try:
        cb.RawModule(code='extern "C" __global__ void probe(int* p) { *p = 1; }')
    except cb.Error as e:
        return str(e)
    return None


@pytest.fixture(scope="module")
def nvrtc(gpu_module):
    err = _nvrtc_error()
    if err is not None:
        assert "no NVRTC on this machine" in err, err
    return err is None


@pytest.fixture(scope="module")
def gpu_module():
    cb.init()
    yield cb


def _inputs(n=1000):
    rng = np.random.default_rng(1)
    return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


def _saxpy_expected(a, x, y, scale=1.0):
    """scale * a * x + y rounded once (the kernel's fma), from float64."""
    return (np.float64(np.float32(scale) * np.float32(a)) * x.astype(np.float64) + y).astype(np.float32)


# ---- RawKernel / RawModule -------------------------------------------------------------------

def test_ptx_raw_kernel(gpu):
    x, y = _inputs()
    dx, dy, out = cb.asarray(x), cb.asarray(y), cb.zeros(x.size, np.float32)
    k = cb.RawKernel(SAXPY_PTX, "saxpy")
    k(((x.size + 127) // 128,), (128,), (np.float32(2.5), dx, dy, out, np.uint32(x.size)))
    np.testing.assert_allclose(out.get(), _saxpy_expected(2.5, x, y), rtol=1e-6)


def test_ptx_python_scalars_are_narrowed(gpu):
    x, y = _inputs(300)
    dx, dy, out = cb.asarray(x), cb.asarray(y), cb.zeros(x.size, np.float32)
    cb.RawKernel(SAXPY_PTX, "saxpy")(3, 128, (0.5, dx, dy, out, x.size))
    np.testing.assert_allclose(out.get(), _saxpy_expected(0.5, x, y), rtol=1e-6)


def test_ptx_module_from_file_and_get_function(gpu, tmp_path):
    path = tmp_path / "saxpy.ptx"
    path.write_text(SAXPY_PTX)
    mod = cb.RawModule(path=str(path))
    k = mod.get_function("saxpy")
    x, y = _inputs(64)
    dx, dy, out = cb.asarray(x), cb.asarray(y), cb.zeros(64, np.float32)
    k(1, 64, [np.float32(-1.0), dx, dy, out, np.uint32(64)])
    np.testing.assert_allclose(out.get(), _saxpy_expected(-1.0, x, y), rtol=1e-6)


def test_views_pass_their_own_address(gpu):
    x, y = _inputs(200)
    dx, dy, out = cb.asarray(x), cb.asarray(y), cb.zeros(200, np.float32)
    cb.RawKernel(SAXPY_PTX, "saxpy")(1, 128, (np.float32(2), dx[50:], dy[50:], out[100:], np.uint32(100)))
    got = out.get()
    assert np.all(got[:100] == 0)
    np.testing.assert_allclose(got[100:], _saxpy_expected(2, x[50:150], y[50:150]), rtol=1e-6)


def test_modules_are_cached(gpu):
    before = _kernels.loaded_module_count()
    k1 = cb.RawKernel(SAXPY_PTX, "saxpy")
    k2 = cb.RawKernel(SAXPY_PTX, "saxpy")
    assert k1.compile() == k2.compile() == cb.RawModule(code=SAXPY_PTX).get_function("saxpy").compile()
    assert _kernels.loaded_module_count() <= before + 1


def test_bad_arguments_raise(gpu):
    x, y = _inputs(16)
    dx, dy, out = cb.asarray(x), cb.asarray(y), cb.zeros(16, np.float32)
    k = cb.RawKernel(SAXPY_PTX, "saxpy")
    with pytest.raises(cb.Error, match="arguments for 5 parameters"):
        k(1, 16, (np.float32(1), dx, dy, out))
    with pytest.raises(cb.Error, match="float where an integer or pointer"):
        k(1, 16, (np.float32(1), 1.5, dy, out, np.uint32(16)))
    with pytest.raises(cb.Error, match="takes 4 bytes, not 8"):
        k(1, 16, (np.float64(1), dx, dy, out, np.uint32(16)))
    with pytest.raises(cb.Error, match="pointer where a 32-bit"):
        k(1, 16, (np.float32(1), dx, dy, out, dx))
    with pytest.raises(TypeError, match="host memory"):
        k(1, 16, (np.float32(1), x, dy, out, np.uint32(16)))
    with pytest.raises(TypeError, match="cannot be passed"):
        k(1, 16, (np.float32(1), "x", dy, out, np.uint32(16)))
    with pytest.raises(ValueError, match="grid"):
        k((1, 1, 1, 1), 16, (np.float32(1), dx, dy, out, np.uint32(16)))
    with pytest.raises(cb.Error, match="nope"):
        cb.RawKernel(SAXPY_PTX, "nope")(1, 16, (np.float32(1), dx, dy, out, np.uint32(16)))


def test_bad_ptx_and_bad_paths_raise(gpu, tmp_path):
    with pytest.raises(cb.Error, match="PTX"):
        cb.RawModule(code=".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k( { bogus; }")
    with pytest.raises(ValueError, match=".cu, .ptx, .cubin or .fatbin"):
        cb.RawModule(path=str(tmp_path / "k.txt"))
    with pytest.raises(TypeError, match="exactly one"):
        cb.RawModule()
    with pytest.raises(ValueError, match="options apply to CUDA source only"):
        cb.RawModule(code=SAXPY_PTX, options=("-DX=1",))


def test_cuda_source(gpu, nvrtc):
    x, y = _inputs(500)
    dx, dy, out = cb.asarray(x), cb.asarray(y), cb.zeros(500, np.float32)
    if not nvrtc:
        with pytest.raises(cb.Error, match="no NVRTC on this machine"):
            cb.RawKernel(SAXPY_CU, "saxpy", options=("-DSCALE=2.0f",)).compile()
        return
    k = cb.RawKernel(SAXPY_CU, "saxpy", options=("-DSCALE=2.0f",))
    k(4, 128, (np.float32(1.5), dx, dy, out, np.uint32(500)))
    np.testing.assert_allclose(out.get(), _saxpy_expected(1.5, x, y, 2.0), rtol=1e-6)
    # Another macro value is another module.
    cb.RawModule(code=SAXPY_CU, options=("-D", "SCALE=3.0f")).get_function("saxpy")(
        4, 128, (np.float32(1.5), dx, dy, out, np.uint32(500)))
    np.testing.assert_allclose(out.get(), _saxpy_expected(1.5, x, y, 3.0), rtol=1e-6)


def test_cuda_source_errors(gpu, nvrtc):
    if not nvrtc:
        pytest.skip("no NVRTC: test_cuda_source checked the error")
    with pytest.raises(cb.Error, match="undefined|identifier"):
        cb.RawModule(code='extern "C" __global__ void k(float* p) { p[0] = undefined_name; }')
    with pytest.raises(ValueError, match="not supported"):
        cb.RawModule(code=SAXPY_CU, options=("--use_fast_math",))


def test_shared_memory_and_2d_grid(gpu, nvrtc):
    if not nvrtc:
        pytest.skip("no NVRTC on this machine")
    code = r"""
    extern "C" __global__ void block_sums(const int* x, long long* out, int n) {
        extern __shared__ long long s[];
        int b = blockIdx.y * gridDim.x + blockIdx.x;
        int i = b * blockDim.x + threadIdx.x;
        s[threadIdx.x] = i < n ? x[i] : 0;
        __syncthreads();
        for (int k = blockDim.x / 2; k > 0; k >>= 1) {
            if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
            __syncthreads();
        }
        if (threadIdx.x == 0) out[b] = s[0];
    }"""
    x = np.arange(4 * 3 * 64, dtype=np.int32)
    out = cb.zeros(12, np.int64)
    cb.RawKernel(code, "block_sums")((4, 3), 64, (cb.asarray(x), out, x.size), shared_mem=64 * 8)
    np.testing.assert_array_equal(out.get(), x.reshape(12, 64).sum(axis=1))


# ---- ElementwiseKernel / ReductionKernel -------------------------------------------------------

@pytest.fixture()
def compiled(gpu, nvrtc):
    if not nvrtc:
        with pytest.raises(cb.Error, match="no NVRTC on this machine"):
            cb.ElementwiseKernel("T x", "T y", "y = x", "copy_probe")(cb.zeros(3))
        pytest.skip("no NVRTC on this machine: generated kernels raise the clear error (checked)")
    return cb


def test_elementwise_squared_diff(compiled):
    k = cb.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff")
    for dtype in (np.float32, np.float64, np.int32, np.int64, np.int16):
        x = (np.arange(30) * 3 % 7).astype(dtype).reshape(5, 6)
        y = (np.arange(6) % 4).astype(dtype)
        got = k(cb.asarray(x), cb.asarray(y))
        assert got.dtype == dtype and got.shape == (5, 6)
        np.testing.assert_array_equal(got.get(), (x - y) * (x - y))


def test_elementwise_scalar_typed_params_and_index(compiled):
    k = cb.ElementwiseKernel("float32 x, T s", "float64 z, int64 j", "z = x * s + i; j = _ind.size() - i",
                             "scaled_index")
    x = np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4)
    z, j = k(cb.asarray(x), np.float64(2.5))
    np.testing.assert_allclose(z.get(), x.astype(np.float64) * 2.5 + np.arange(12).reshape(3, 4), rtol=1e-12)
    np.testing.assert_array_equal(j.get(), 12 - np.arange(12).reshape(3, 4))
    assert z.dtype == np.float64 and j.dtype == np.int64


def test_elementwise_views_broadcast_and_out(compiled):
    k = cb.ElementwiseKernel("T x, T y", "T z", "z = x + 10 * y", "axpy10")
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    dx = cb.asarray(x)
    y = np.array([[1], [2], [3], [4]], dtype=np.float32)
    out = cb.zeros((6, 4), np.float32)
    got = k(dx.T, cb.asarray(y).T[0], out)  # a transposed view, a broadcast row, a given output
    assert got is out
    np.testing.assert_array_equal(out.get(), x.T + 10 * y.T[0])
    got = k(dx[:, ::2], cb.asarray(y))
    np.testing.assert_array_equal(got.get(), x[:, ::2] + 10 * y)


def test_elementwise_errors(compiled):
    k = cb.ElementwiseKernel("T x, T y", "T z", "z = x + y", "add_same")
    with pytest.raises(TypeError, match="placeholder T"):
        k(cb.zeros(3, np.float32), cb.zeros(3, np.int32))
    with pytest.raises(TypeError, match="inputs"):
        k(cb.zeros(3))
    with pytest.raises(ValueError, match="broadcast"):
        k(cb.zeros(3), cb.zeros(4))
    with pytest.raises(TypeError, match="host memory"):
        k(np.zeros(3, np.float32), cb.zeros(3))
    with pytest.raises(ValueError, match="as numpy does"):
        cb.ElementwiseKernel("float x", "float32 z", "z = x", "ctype_param")
    with pytest.raises(ValueError, match="appears twice"):
        cb.ElementwiseKernel("T x", "T x", "x = x", "twice_named")
    with pytest.raises(ValueError, match="not ReductionKernel"):
        cb.ReductionKernel("raw T x", "T y", "x[0]", "a + b", "y = a", "0", "rawr")
    with pytest.raises(cb.Error, match="module_load"):
        cb.ElementwiseKernel("T x", "T z", "z = x +* ;", "broken")(cb.zeros(3))


def test_elementwise_cached_per_dtype(compiled):
    k = cb.ElementwiseKernel("T x", "T y", "y = x * 2", "twice")
    k(cb.zeros(4, np.float32))
    before = _kernels.loaded_module_count()
    k(cb.ones(7, np.float32))
    k(cb.ones((2, 3), np.float32))
    assert _kernels.loaded_module_count() == before
    k(cb.ones(4, np.int32))
    assert _kernels.loaded_module_count() == before + 1


def _complex_sample(n, dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_elementwise_complex_as_cupy_names_it(compiled, dtype):
    """complex<float> / complex<double> with numpy's arithmetic and the usual functions."""
    x, y = _complex_sample(64, dtype, 1), _complex_sample(64, dtype, 2)
    k = cb.ElementwiseKernel("T x, T y", "T z", "z = x * y + conj(x) / y - exp(x) + sqrt(y) + pow(x, y)", "cmix")
    got = k(cb.asarray(x), cb.asarray(y))
    assert got.dtype == dtype
    want = x * y + np.conj(x) / y - np.exp(x) + np.sqrt(y) + x ** y
    np.testing.assert_allclose(got.get(), want, rtol=2e-5 if dtype == np.complex64 else 1e-12)
    parts = cb.ElementwiseKernel("T x", "float64 r", "r = abs(x) + arg(x) + norm(x) + real(x) * x.imag() - log(x).real()",
                                 "cparts")(cb.asarray(x))
    want = np.abs(x) + np.angle(x) + np.abs(x) ** 2 + x.real * x.imag - np.log(x).real
    np.testing.assert_allclose(parts.get(), want.astype(np.float64), rtol=2e-5 if dtype == np.complex64 else 1e-12)


def test_elementwise_complex_division_and_scalars_follow_numpy(compiled):
    k = cb.ElementwiseKernel("T x, T w", "T z", "z = x / w", "cdiv")
    x = np.array([1 + 1j, 2, 0, 3 - 4j, 1e300 + 1e300j], np.complex128)
    w = np.array([0j, 1j, 0j, 1e-300 + 1e300j, 1e300 + 1e-300j], np.complex128)
    with np.errstate(all="ignore"):
        want = x / w
    np.testing.assert_array_equal(k(cb.asarray(x), cb.asarray(w)).get(), want)  # inf/nan where numpy has them
    scale = cb.ElementwiseKernel("T x, T s", "T z", "z = x * s", "cscale")
    f = _complex_sample(5, np.complex64, 3)
    np.testing.assert_allclose(scale(cb.asarray(f), np.complex64(2j)).get(), f * np.complex64(2j), rtol=1e-6)
    np.testing.assert_allclose(scale(cb.asarray(f.astype(np.complex128)), 1 + 1j).get(), f * (1 + 1j), rtol=1e-6)


def test_reduction_complex(compiled):
    x = _complex_sample(600, np.complex128, 4).reshape(6, 100)
    sumsq = cb.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "csumsq")
    np.testing.assert_allclose(sumsq(cb.asarray(x), axis=1).get(), (x * x).sum(axis=1), rtol=1e-12)
    energy = cb.ReductionKernel("T x", "float64 y", "norm(x)", "a + b", "y = sqrt(a)", "0", "cenergy",
                                reduce_type="double")
    np.testing.assert_allclose(float(energy(cb.asarray(x))), np.linalg.norm(x), rtol=1e-12)


def test_reduction_l2norm(compiled):
    l2norm = cb.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    x = np.arange(10 * 37, dtype=np.float32).reshape(10, 37) / 100
    dx = cb.asarray(x)
    np.testing.assert_allclose(l2norm(dx).get(), np.sqrt((x * x).sum()), rtol=1e-5)
    np.testing.assert_allclose(l2norm(dx, axis=1).get(), np.sqrt((x * x).sum(axis=1)), rtol=1e-5)
    got = l2norm(dx, axis=0, keepdims=True)
    assert got.shape == (1, 37)
    np.testing.assert_allclose(got.get(), np.sqrt((x * x).sum(axis=0, keepdims=True)), rtol=1e-5)


def test_reduction_max_and_views(compiled):
    kmax = cb.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", "-2147483647 - 1", "imax")
    x = np.random.default_rng(3).integers(-10**6, 10**6, size=(6, 5, 300)).astype(np.int32)
    dx = cb.asarray(x)
    np.testing.assert_array_equal(kmax(dx, axis=(0, 2)).get(), x.max(axis=(0, 2)))
    np.testing.assert_array_equal(kmax(dx.transpose(2, 0, 1), axis=0).get(), x.max(axis=2))
    np.testing.assert_array_equal(kmax(dx[:, ::2, 1:], axis=-1).get(), x[:, ::2, 1:].max(axis=-1))


def test_reduction_two_inputs_and_reduce_type(compiled):
    dot = cb.ReductionKernel("T x, T y", "float64 z", "x * y", "a + b", "z = a", "0", "dot64",
                             reduce_type="double")
    x = np.arange(1000, dtype=np.int32)
    y = (np.arange(1000) % 7).astype(np.int32)
    got = dot(cb.asarray(x), cb.asarray(y))
    assert got.shape == () and got.dtype == np.float64
    assert float(got.get()) == float(np.dot(x.astype(np.float64), y))
    # An empty reduction gives the identity through post_map.
    np.testing.assert_array_equal(dot(cb.zeros((3, 0), np.int32), cb.zeros((3, 0), np.int32), axis=1).get(),
                                  np.zeros(3))


def test_reduction_split_over_blocks(compiled):
    """Few outputs of many elements each: each reduction is split over blocks (two passes)."""
    ksum = cb.ReductionKernel("T x", "int64 y", "x", "a + b", "y = a", "0", "isum", reduce_type="long long")
    x = np.random.default_rng(5).integers(-1000, 1000, size=(3, 300_001)).astype(np.int32)
    dx = cb.asarray(x)
    assert int(ksum(dx).get()) == int(x.sum())
    np.testing.assert_array_equal(ksum(dx, axis=1).get(), x.sum(axis=1))
    np.testing.assert_array_equal(ksum(dx[:, ::-3], axis=-1, keepdims=True).get(),
                                  x[:, ::-3].sum(axis=-1, keepdims=True))
    kmin = cb.ReductionKernel("T x", "T y", "x", "min(a, b)", "y = a", "1e300", "dmin", reduce_type="T")
    f = np.random.default_rng(6).standard_normal(500_000)
    f[123_457] = -50.0
    assert float(kmin(cb.asarray(f)).get()) == -50.0


def test_no_nvrtc_is_a_clear_python_error(tmp_path):
    """Without NVRTC (CUDABRIDGE_NVRTC names a library that is not there), CUDA source raises
    cb.Error saying so, and PTX still runs: in a process of its own, as NVRTC loads once."""
    import os
    import subprocess
    import sys
    script = f"""
import numpy as np, cudabridge as cb
cb.init()
try:
    cb.RawKernel('extern "C" __global__ void k(int* p) {{ *p = 1; }}', "k").compile()
except cb.Error as e:
    print("ERROR:", e)
out = cb.zeros(4, np.float32)
cb.RawKernel({SAXPY_PTX!r}, "saxpy")(1, 4, (np.float32(1), cb.ones(4), cb.ones(4), out, np.uint32(4)))
print("PTX:", out.get().tolist())
"""
    env = dict(os.environ, CUDABRIDGE_NVRTC=str(tmp_path / "libnvrtc-absent.so"),
               CUDABRIDGE_HOME=str(tmp_path / "home"))
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "ERROR:" in r.stdout and "no NVRTC on this machine" in r.stdout, r.stdout
    assert "PTX: [2.0, 2.0, 2.0, 2.0]" in r.stdout


def test_fatbin_and_cubin_files(gpu, tmp_path):
    import shutil
    import subprocess
    (tmp_path / "k.cubin").write_bytes(b"\x7fELF" + bytes(60))
    with pytest.raises(cb.Error, match="CUBIN holds no PTX"):
        cb.RawModule(path=str(tmp_path / "k.cubin"))
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not shutil.which(nvcc):
        pytest.skip("no nvcc to build a fatbin with")
    src = tmp_path / "k.cu"
    src.write_text(SAXPY_CU.replace("SCALE", "4.0f"))
    fatbin = tmp_path / "k.fatbin"
    subprocess.run([nvcc, "-fatbin", "-gencode", "arch=compute_75,code=compute_75", str(src), "-o", str(fatbin)],
                   check=True, timeout=300)
    x, y = _inputs(100)
    out = cb.zeros(100, np.float32)
    cb.RawModule(path=fatbin).get_function("saxpy")(1, 128, (np.float32(0.5), cb.asarray(x), cb.asarray(y), out,
                                                             np.uint32(100)))
    np.testing.assert_allclose(out.get(), _saxpy_expected(0.5, x, y, 4.0), rtol=1e-6)


def test_elementwise_raw_parameters(compiled):
    # CuPy's example: a raw array is indexed by the kernel, outside the broadcast.
    add_reverse = cb.ElementwiseKernel("T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1]", "add_reverse")
    x = np.arange(10, dtype=np.float32)
    y = np.arange(10, dtype=np.float32) * 100
    np.testing.assert_array_equal(add_reverse(cb.asarray(x), cb.asarray(y)).get(), x + y[::-1])
    # Every array raw: size= is the index space; a raw output is written where the kernel says.
    rev = cb.ElementwiseKernel("raw T x, int64 k", "raw T y", "y[i] = x[x.size() - 1 - i] * k", "rev_scale")
    src = np.arange(7, dtype=np.int32)
    dst = cb.zeros(7, np.int32)
    assert rev(cb.asarray(src), 3, dst, size=7) is dst
    np.testing.assert_array_equal(dst.get(), src[::-1] * 3)
    with pytest.raises(ValueError, match="size="):
        rev(cb.asarray(src), 3, dst)
    with pytest.raises(ValueError, match="C-contiguous"):
        rev(cb.asarray(src)[::2], 3, dst, size=3)
    with pytest.raises(ValueError, match="all raw"):
        add_reverse(cb.asarray(x), cb.asarray(y), size=10)
    with pytest.raises(TypeError, match="raw parameter 'y' needs a device array"):
        rev(cb.asarray(src), 3, size=7)


def test_kernels_survive_a_runtime_restart(gpu):
    """Modules belong to a runtime: after cb.shutdown() and cb.init() a kernel loads again."""
    k = cb.RawKernel(SAXPY_PTX, "saxpy")
    out = cb.zeros(8, np.float32)
    k(1, 8, (np.float32(1), cb.ones(8), cb.ones(8), out, np.uint32(8)))
    del out
    cb.shutdown()
    cb.init()
    loaded = _kernels.loaded_module_count()
    out = cb.zeros(8, np.float32)
    k(1, 8, (np.float32(3), cb.ones(8), cb.ones(8), out, np.uint32(8)))
    np.testing.assert_array_equal(out.get(), np.full(8, 4, np.float32))
    assert _kernels.loaded_module_count() == loaded + 1  # loaded into the new runtime
