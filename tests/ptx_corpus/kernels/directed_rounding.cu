// Directed rounding, as interval arithmetic uses it (NVIDIA's interval sample rounds its bounds
// down and up): float and double add, sub, mul, fma, div, sqrt and rcp, each rounded towards
// zero, down and up (__fadd_rz, __dadd_rd, __ddiv_ru, ...). 21 results per element and type.
#define ALL_ROUNDINGS(T, out, add, sub, mul, fma, div, sqrt, rcp, rz, rd, ru)          \
    out[0] = add##rz(a, b), out[1] = add##rd(a, b), out[2] = add##ru(a, b);            \
    out[3] = sub##rz(a, b), out[4] = sub##rd(a, b), out[5] = sub##ru(a, b);            \
    out[6] = mul##rz(a, b), out[7] = mul##rd(a, b), out[8] = mul##ru(a, b);            \
    out[9] = fma##rz(a, b, c), out[10] = fma##rd(a, b, c), out[11] = fma##ru(a, b, c); \
    out[12] = div##rz(a, b), out[13] = div##rd(a, b), out[14] = div##ru(a, b);         \
    out[15] = sqrt##rz(a), out[16] = sqrt##rd(a), out[17] = sqrt##ru(a);               \
    out[18] = rcp##rz(a), out[19] = rcp##rd(a), out[20] = rcp##ru(a);

extern "C" __global__ void rounded_float(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[3 * i], b = x[3 * i + 1], c = x[3 * i + 2];
    float* o = out + 21 * i;
    ALL_ROUNDINGS(float, o, __fadd, __fsub, __fmul, __fmaf, __fdiv, __fsqrt, __frcp, _rz, _rd, _ru)
}

extern "C" __global__ void rounded_double(const double* x, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = x[3 * i], b = x[3 * i + 1], c = x[3 * i + 2];
    double* o = out + 21 * i;
    ALL_ROUNDINGS(double, o, __dadd, __dsub, __dmul, __fma, __ddiv, __dsqrt, __drcp, _rz, _rd, _ru)
}
