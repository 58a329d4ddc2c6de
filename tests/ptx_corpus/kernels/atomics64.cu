// 64-bit atomics on global memory: atomicAdd on unsigned long long, atomicMax on long long, and
// a double sum by an atomicCAS loop on the value's 64-bit pattern.
__device__ double atomic_add_double_cas(double* address, double value) {
    unsigned long long* word = reinterpret_cast<unsigned long long*>(address);
    unsigned long long old = *word, assumed;
    do {
        assumed = old;
        old = atomicCAS(word, assumed, __double_as_longlong(__longlong_as_double(assumed) + value));
    } while (assumed != old);
    return __longlong_as_double(old);
}

extern "C" __global__ void atomics64(const long long* values, int n, unsigned long long* sum, long long* maximum,
                                     double* half_low_sum) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long v = values[i];
        atomicAdd(sum, static_cast<unsigned long long>(v));
        atomicMax(maximum, v);
        atomic_add_double_cas(half_low_sum, static_cast<double>(v & 0xffff) * 0.5);
    }
}
