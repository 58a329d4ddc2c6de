// A texture fetch (tex1Dfetch through a cudaTextureObject_t): an instruction the simulated GPU
// does not run, so loading this module must fail and name it.
extern "C" __global__ void gather_texture(cudaTextureObject_t tex, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(tex, i) * 2.0f;
}
