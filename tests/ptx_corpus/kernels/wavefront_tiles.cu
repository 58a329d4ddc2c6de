// A dynamic-programming tile filled along anti-diagonals: one block of 16 threads scores a
// 16x16 tile of alignment scores from its top row and left column (each block its own 17
// columns of `score`, rows `pitch` ints apart), each cell the best of its three neighbours.
// Two shared tiles, a barrier after every diagonal, and a thread's cell addresses computed as base - 64 * tx + ...,
// which wraps below zero for the threads a diagonal leaves out: nvcc folds the offsets into
// [reg + imm] addresses whose register is a 32-bit shared address.
#define TILE 16

__device__ int best_of(int diagonal, int up, int left) { return max(diagonal, max(up, left)); }

extern "C" __global__ void wavefront_tile(const int* cost, int* score, int pitch, int gap) {
    __shared__ int s[TILE + 1][TILE + 1];
    __shared__ int c[TILE][TILE];
    int tx = threadIdx.x;
    int origin = blockIdx.x * (TILE + 1);
    for (int r = 0; r < TILE; ++r) c[r][tx] = cost[r * pitch + origin + tx];
    if (tx == 0) s[0][0] = score[origin];
    s[0][tx + 1] = score[origin + tx + 1];
    s[tx + 1][0] = score[(tx + 1) * pitch + origin];
    __syncthreads();
    for (int m = 0; m < TILE; ++m) {
        if (tx <= m) {
            int x = tx + 1, y = m - tx + 1;
            s[y][x] = best_of(s[y - 1][x - 1] + c[y - 1][x - 1], s[y][x - 1] - gap, s[y - 1][x] - gap);
        }
        __syncthreads();
    }
    for (int m = TILE - 2; m >= 0; --m) {
        if (tx <= m) {
            int x = tx + TILE - m, y = TILE - tx;
            s[y][x] = best_of(s[y - 1][x - 1] + c[y - 1][x - 1], s[y][x - 1] - gap, s[y - 1][x] - gap);
        }
        __syncthreads();
    }
    for (int r = 0; r < TILE; ++r) score[(r + 1) * pitch + origin + tx + 1] = s[r + 1][tx + 1];
}
