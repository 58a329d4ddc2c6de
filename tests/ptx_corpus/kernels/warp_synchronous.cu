// Warp-synchronous code of the pre-Volta kind: lanes of a warp exchange values through volatile
// shared memory with neither a barrier nor __syncwarp(), relying on the warp's lanes running in
// step (every lane's store of one step lands before any lane's load of the next).

// An inclusive scan of each warp's 32 values (Hillis-Steele: lanes below the offset sit a step
// out), then every lane reads its warp's total from the last lane's slot.
extern "C" __global__ void warp_scan(const int* in, int* scan, int* totals) {
    __shared__ int slots[256];
    volatile int* s = slots;
    const unsigned tid = threadIdx.x, lane = tid & 31, i = blockIdx.x * blockDim.x + tid;
    int v = in[i];
    s[tid] = v;
    if (lane >= 1) s[tid] = v = v + s[tid - 1];
    if (lane >= 2) s[tid] = v = v + s[tid - 2];
    if (lane >= 4) s[tid] = v = v + s[tid - 4];
    if (lane >= 8) s[tid] = v = v + s[tid - 8];
    if (lane >= 16) s[tid] = v = v + s[tid - 16];
    scan[i] = v;
    totals[i] = s[tid - lane + 31];
}

// An 8-point integer butterfly (a Walsh-Hadamard transform, the shape of a fast DCT's stages).
__device__ __forceinline__ void butterfly8(int x[8]) {
    for (int half = 4; half > 0; half >>= 1)
        for (int i = 0; i < 8; ++i)
            if (!(i & half)) {
                const int a = x[i], b = x[i + half];
                x[i] = a + b;
                x[i + half] = a - b;
            }
}

// Eight lanes per 8x8 tile: lane r transforms row r, puts it in the tile, then reads column r
// (what the other seven lanes wrote) and transforms it: the output's row r is that column.
extern "C" __global__ void tile_transform8(const int* in, int* out) {
    __shared__ int tiles[8][8][9];  // a tile per eight lanes, rows padded
    const unsigned tid = threadIdx.x, tile = tid / 8, r = tid % 8;
    volatile int(*t)[9] = tiles[tile];
    const int* src = in + (blockIdx.x * 8 + tile) * 64;
    int x[8];
    for (int c = 0; c < 8; ++c) x[c] = src[r * 8 + c] * (r + 1);
    butterfly8(x);
    for (int c = 0; c < 8; ++c) t[r][c] = x[c];
    for (int c = 0; c < 8; ++c) x[c] = t[c][r];
    butterfly8(x);
    int* dst = out + (blockIdx.x * 8 + tile) * 64;
    for (int c = 0; c < 8; ++c) dst[r * 8 + c] = x[c];
}

// A sum per block: a tree with barriers down to 64 values, then the first warp unrolls the rest
// through volatile shared memory without barriers.
extern "C" __global__ void reduce_last_warp(const int* in, int* sums, unsigned n) {
    __shared__ int sdata[256];
    const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + tid;
    int sum = i < n ? in[i] : 0;
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        volatile int* v = sdata;
        v[tid] += v[tid + 32];
        v[tid] += v[tid + 16];
        v[tid] += v[tid + 8];
        v[tid] += v[tid + 4];
        v[tid] += v[tid + 2];
        v[tid] += v[tid + 1];
    }
    if (tid == 0) sums[blockIdx.x] = sdata[0];
}

// Lanes take different paths: the low half swaps with a neighbour through volatile shared
// memory, then counts up its own slot a lane-dependent number of times and reads a neighbour's
// count once every lane's loop is done; lanes 16..23 only wait at the barrier; lanes 24..31
// leave at once. Lanes that skip a volatile step must neither hang nor let the others hang.
extern "C" __global__ void divergent_exchange(int* out, int* counts) {
    __shared__ int slots[256];
    volatile int* s = slots;
    const unsigned tid = threadIdx.x, lane = tid & 31;
    if (lane >= 24) return;
    slots[tid] = -1;
    __syncthreads();
    if (lane < 16) {
        s[tid] = lane + 1;
        const int mine = s[tid], other = s[tid ^ 1];
        s[tid] = mine * 10 + other;
        for (unsigned k = 0; k < (lane & 3) + tid / 32; ++k) s[tid] = s[tid] + 1;
        counts[tid] = s[tid ^ 2];
    }
    __syncthreads();
    out[tid] = slots[tid];
}

// A loop of exchange steps (its trip count a parameter, so it stays a loop): every lane reads a
// partner's slot, then only some lanes write theirs. Lanes that skip the write must not run
// ahead into the next step's read while the writers of this step have not written.
extern "C" __global__ void loop_exchange(const int* in, int* out, int rounds) {
    __shared__ int slots[256];
    volatile int* s = slots;
    const unsigned tid = threadIdx.x, lane = tid & 31, i = blockIdx.x * blockDim.x + tid;
    int v = in[i];
    s[tid] = v;
    for (int k = 0; k < rounds; ++k) {
        const unsigned mask = 1u << (k % 5);
        const int other = s[tid ^ mask];
        if ((lane & mask) == 0) s[tid] = v = v * 3 + other;
    }
    out[i] = v * 7 + s[tid ^ 1];
}

// Lane 1 spins on a flag lane 0 of its warp sets after it (Volta's independent thread scheduling
// lets lane 0 go on while lane 1 waits): lane 0 must not be held back for ever.
extern "C" __global__ void lane_waits_for_lane(int* out) {
    __shared__ int flag;
    volatile int* f = &flag;
    if (threadIdx.x == 0) *f = 0;
    __syncthreads();
    if (threadIdx.x == 1) {
        while (*f == 0) {
        }
        out[0] = *f;
    } else if (threadIdx.x == 0) {
        out[1] = 1;
        *f = 42;
    }
}
