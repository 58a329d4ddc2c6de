// Elementwise int: min/max, xor/and/not, arithmetic and logical shifts, a funnel-shift rotate,
// signed division and remainder. C++ linkage: the kernel's name in the PTX is mangled.
__global__ void int_bits(const int* a, const int* b, int* mixed, unsigned* bits, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i], y = b[i];
        unsigned s = static_cast<unsigned>(i) & 31u;
        mixed[i] = max(x, y) - min(x, y) + ((x ^ y) & 0xff) + (x >> 3) + x / 7 - y % 5;
        unsigned ux = static_cast<unsigned>(x), uy = static_cast<unsigned>(y);
        bits[i] = (__funnelshift_l(ux, ux, s) ^ (uy >> (s & 7u)) ^ (~ux & 0x0f0f0f0fu)) | (uy << 28);
    }
}
