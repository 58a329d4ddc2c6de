// Math functions and conversions: sqrtf, expf, __expf, sinf (with huge arguments too), __sinf,
// rsqrtf, fdividef, __fdividef, fmaf, int <-> float conversions (round-to-nearest and
// truncating) and float -> double.
extern "C" __global__ void math_funcs(const float* x, float* f, int* iv, double* d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float a = fabsf(v) + 0.5f;
    f[0 * n + i] = sqrtf(a);
    f[1 * n + i] = expf(v);
    f[2 * n + i] = __expf(v);
    f[3 * n + i] = sinf(v);
    f[4 * n + i] = __sinf(v);
    f[5 * n + i] = rsqrtf(a);
    f[6 * n + i] = fdividef(v, a);
    f[7 * n + i] = fmaf(v, a, 1.0f);
    f[8 * n + i] = __fdividef(v, a);
    f[9 * n + i] = static_cast<float>(i % 1000 - 500) * 0.25f;
    iv[0 * n + i] = __float2int_rn(v * 100.0f);
    iv[1 * n + i] = static_cast<int>(v * 100.0f);
    iv[2 * n + i] = static_cast<int>(static_cast<unsigned>(a * 1000.0f));
    d[i] = static_cast<double>(v) * static_cast<double>(a);
}
