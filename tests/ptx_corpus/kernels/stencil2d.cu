// A 2D 5-point stencil on a 2D grid of 2D blocks (blockIdx.y / threadIdx.y): interior points get
// center * p + side * (sum of the four neighbours), border points are copied.
extern "C" __global__ void stencil5(const float* __restrict__ in, float* __restrict__ out, int width, int height,
                                    float center, float side) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int i = y * width + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        out[i] = in[i];
        return;
    }
    out[i] = center * in[i] + side * (in[i - 1] + in[i + 1] + in[i - width] + in[i + width]);
}
