// Asynchronous copies as CUDA 11+'s C++ APIs emit them at compute_80 (cp.async, mbarrier):
// the engine's sm_80 kernels, which tests/ptx_corpus (compute_75) cannot hold. Regenerate with
//   nvcc -ptx -arch=compute_80 -O3 -o async_copies.ptx async_copies.cu   (from this folder)
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline_primitives.h>

namespace cg = cooperative_groups;

// A thread-scope pipeline two stages deep: each thread copies its float, float2 and float4 of
// a tile into shared memory while it works on the tile before. out = 2 * in, tile by tile.
extern "C" __global__ void pipeline_stages(const float* in, const float2* in2, const float4* in4, float* out,
                                           float2* out2, float4* out4, int tiles) {
    __shared__ float s1[2][64];
    __shared__ float2 s2[2][64];
    __shared__ float4 s4[2][64];
    auto pipe = cuda::make_pipeline();
    const int t = threadIdx.x, base = blockIdx.x * tiles * 64;
    for (int stage = 0; stage < 2 && stage < tiles; ++stage) {
        pipe.producer_acquire();
        cuda::memcpy_async(&s1[stage][t], &in[base + stage * 64 + t], sizeof(float), pipe);
        cuda::memcpy_async(&s2[stage][t], &in2[base + stage * 64 + t], sizeof(float2), pipe);
        cuda::memcpy_async(&s4[stage][t], &in4[base + stage * 64 + t], sizeof(float4), pipe);
        pipe.producer_commit();
    }
    for (int tile = 0; tile < tiles; ++tile) {
        const int stage = tile % 2;
        pipe.consumer_wait();
        const int at = base + tile * 64 + t;
        out[at] = s1[stage][t] * 2.0f;
        out2[at] = make_float2(s2[stage][t].x * 2.0f, s2[stage][t].y * 2.0f);
        out4[at] = make_float4(s4[stage][t].x * 2.0f, s4[stage][t].y * 2.0f, s4[stage][t].z * 2.0f,
                               s4[stage][t].w * 2.0f);
        pipe.consumer_release();
        if (tile + 2 < tiles) {
            pipe.producer_acquire();
            cuda::memcpy_async(&s1[stage][t], &in[at + 128], sizeof(float), pipe);
            cuda::memcpy_async(&s2[stage][t], &in2[at + 128], sizeof(float2), pipe);
            cuda::memcpy_async(&s4[stage][t], &in4[at + 128], sizeof(float4), pipe);
            pipe.producer_commit();
        }
    }
}

// A block copies its tile with one cooperative memcpy_async completed on a cuda::barrier, then
// every thread reads its neighbour's element: out[i] = in[block's (i + 1) mod 128].
extern "C" __global__ void barrier_tile(const float4* in, float4* out) {
    __shared__ float4 tile[128];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, tile, in + blockIdx.x * 128, sizeof(float4) * 128, bar);
    bar.arrive_and_wait();
    out[blockIdx.x * 128 + threadIdx.x] = tile[(threadIdx.x + 1) % 128];
}

// The zero-filling form: each thread copies 16 bytes of which only the first `valid` come from
// memory (the tail of an array), the rest are zeros.
extern "C" __global__ void zero_fill(const int4* in, int4* out, int valid_bytes) {
    __shared__ int4 s[32];
    const int t = threadIdx.x;
    const size_t zfill = t == 31 ? 16 - valid_bytes : 0;
    __pipeline_memcpy_async(&s[t], &in[t], 16, zfill);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[t] = s[t];
}

// A producer warp and a consumer warp through a block-scope pipeline (mbarriers in shared
// memory): warp 0 copies each of `tiles` tiles in, warp 1 adds them up.
extern "C" __global__ void producer_consumer(const int* in, int* sums, int tiles) {
    constexpr int stages = 2;
    __shared__ int buffer[stages][32];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
    auto block = cg::this_thread_block();
    const bool producer = threadIdx.x < 32;
    auto pipe = cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer
                                                           : cuda::pipeline_role::consumer);
    const int lane = threadIdx.x % 32;
    int sum = 0;
    for (int tile = 0; tile < tiles; ++tile) {
        const int stage = tile % stages;
        if (producer) {
            pipe.producer_acquire();
            cuda::memcpy_async(&buffer[stage][lane], &in[(blockIdx.x * tiles + tile) * 32 + lane], sizeof(int), pipe);
            pipe.producer_commit();
        } else {
            pipe.consumer_wait();
            sum += buffer[stage][lane];
            pipe.consumer_release();
        }
    }
    if (!producer) sums[blockIdx.x * 32 + lane] = sum;
}
