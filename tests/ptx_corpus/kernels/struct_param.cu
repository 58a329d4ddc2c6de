// A struct passed by value: it arrives as one aligned .param byte array (8-byte aligned here
// because of its double), read field by field at offsets.
struct affine_map {
    double offset;
    float scale;
    int stride;
    int count;
};

extern "C" __global__ void apply_affine(affine_map map, const float* in, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < map.count) out[i] = static_cast<float>(map.scale * in[i * map.stride] + map.offset);
}
