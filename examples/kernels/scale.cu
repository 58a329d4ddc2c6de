// vector_add's user kernel: x[i] *= factor for every i < n, one thread per element. The same
// kernel runs on the simulated GPU (its PTX engine) and on a real NVIDIA GPU (cuModuleLoadData):
// vector_add loads the PTX nvcc emits for it, committed beside it as scale.ptx.
//   nvcc -ptx -arch=compute_75 -O3 -o scale.ptx scale.cu   (regenerate.sh checks it)
// The product is taken in double and rounded once to float, as the example's CPU check does.
extern "C" __global__ void scale(float* x, unsigned int n, double factor) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = static_cast<float>(x[i] * factor);
}
