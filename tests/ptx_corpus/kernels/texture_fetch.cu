// A texture fetch (tex1Dfetch through a cudaTextureObject_t): the handle is the device address of
// the cb_texture_descriptor the runtime wrote (texture_descriptor.h).
extern "C" __global__ void gather_texture(cudaTextureObject_t tex, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(tex, i) * 2.0f;
}
