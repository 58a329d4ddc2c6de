// The kernels the driver API tests (driver_api.cpp, mixed_runtime.cpp) load as PTX: kernels.ptx,
// what nvcc emits for this file, is committed beside it, so the tests need no nvcc.
//   nvcc -ptx -arch=compute_75 -O3 -o kernels.ptx kernels.cu   (regenerate_ptx.sh checks it)
// extern "C": cuModuleGetFunction finds each by its plain name.

// y = a * x + y over n elements, one thread each.
extern "C" __global__ void scale_add(float* y, const float* x, float a, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// out[i] = i: each thread writes its own global index.
extern "C" __global__ void fill_index(unsigned* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i;
}

// Module variables, reached from the host through cuModuleGetGlobal.
__device__ int counter;
__constant__ float factor;

// counter += the number of threads below n.
extern "C" __global__ void count(int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counter, 1);
}

// out[i] = factor * i
extern "C" __global__ void times_factor(float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = factor * i;
}

// Parameters of different sizes and alignments: by natural alignment c lies at 0, d at 8, out at
// 16 and s at 24. Each value is written back as it arrived, so a misplaced one shows.
extern "C" __global__ void mixed_args(char c, double d, double* out, short s) {
    out[0] = c;
    out[1] = d;
    out[2] = s;
}

// out[block] = the sum of the block's elements of in: a tree in dynamic shared memory (blockDim.x
// unsigneds, a power of two, given at launch).
extern "C" __global__ void block_sum(const unsigned* in, unsigned* out, int n) {
    extern __shared__ unsigned partial[];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// out[y * width + x] = the texture at texel (x, y), read at the texel's centre (no filtering
// between texels): the array's element, or, for 8-bit integers read as normalized floats, it / 255.
extern "C" __global__ void read_texture(cudaTextureObject_t tex, float* out, int width, int height) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) out[y * width + x] = tex2D<float>(tex, x + 0.5f, y + 0.5f);
}
