// A matrix transpose through a 32x32 shared-memory tile padded to 33 columns (no bank
// conflicts), blocks of 32x8 threads, __syncthreads between the load and the store. C++ linkage:
// the kernel's name in the PTX is mangled.
#define TILE_DIM 32
#define BLOCK_ROWS 8

// out (cols x rows) = transpose of in (rows x cols), both row-major.
__global__ void transpose_tiled(float* out, const float* in, int rows, int cols) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
