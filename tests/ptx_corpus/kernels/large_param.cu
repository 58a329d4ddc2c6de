// A struct of nearly 32 KB passed by value (CUDA 12.1 and later take up to 32764 bytes of
// parameters): indexed by a thread's value, nvcc takes the parameter's address
// (mov.b64 %rd, large_table_param_0) and loads through it with ld.param [%rd]; passed on to a
// device function by pointer, the kernel copies it to its local memory first.
#define TABLE 8000

struct lookup_table {
    int scale;
    int entries[TABLE];
};

__device__ __noinline__ int sum_pair(const int* p, int i) { return p[i] + p[(i + 1) % TABLE]; }

extern "C" __global__ void large_table(lookup_table t, const int* keys, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = t.scale * t.entries[keys[i] % TABLE] + t.entries[(7 * i) % TABLE];
}

extern "C" __global__ void large_table_by_pointer(lookup_table t, const int* keys, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = sum_pair(t.entries, keys[i] % TABLE);
}
