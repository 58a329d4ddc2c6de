// Elementwise float: y = a * x + y (one thread per element, bounds-checked), with the scalar
// `a` an .f32 parameter and `n` an .s32 one; __restrict__ lets x be read through the
// non-coherent (read-only) path.
extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
