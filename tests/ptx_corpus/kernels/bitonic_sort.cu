// Bitonic sort of 1024 ints in shared memory by one block of 1024 threads; each block sorts
// its own run of 1024 (ascending).
#define N 1024

extern "C" __global__ void bitonic_sort1024(int* data) {
    __shared__ int s[N];
    unsigned t = threadIdx.x;
    int* run = data + blockIdx.x * N;
    s[t] = run[t];
    __syncthreads();
    for (unsigned k = 2; k <= N; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned partner = t ^ j;
            if (partner > t) {
                bool ascending = (t & k) == 0;
                int a = s[t], b = s[partner];
                if ((a > b) == ascending) {
                    s[t] = b;
                    s[partner] = a;
                }
            }
            __syncthreads();
        }
    }
    run[t] = s[t];
}
