// Tensor cores: nvcuda::wmma over f16 with f32 and f16 accumulators (what cudaTensorCoreGemm-style
// code emits at compute_70/75), and mma.sync with fragments from ldmatrix, written as inline PTX
// (nvcc -ptx passes it through; the bf16 and tf32 forms are sm_80's).
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// C (m x n, row-major, f32) = alpha * A (m x k, row-major) * B (k x n, column-major) + beta * C:
// one 16x16 tile of C per warp, four warps per block, K in steps of 16 straight from global
// memory.
extern "C" __global__ void wmma_gemm(const half* a, const half* b, float* c, int m, int n, int k, float alpha,
                                     float beta) {
    const int warp_m = blockIdx.y * 2 + threadIdx.y, warp_n = blockIdx.x * 2 + threadIdx.x / 32;
    if (warp_m * 16 >= m || warp_n * 16 >= n) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc, fc;
    wmma::fill_fragment(acc, 0.0f);
    for (int kk = 0; kk < k; kk += 16) {
        wmma::load_matrix_sync(fa, a + warp_m * 16 * k + kk, k);
        wmma::load_matrix_sync(fb, b + warp_n * 16 * k + kk, k);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    float* tile = c + warp_m * 16 * n + warp_n * 16;
    wmma::load_matrix_sync(fc, tile, n, wmma::mem_row_major);
    for (int i = 0; i < fc.num_elements; ++i) fc.x[i] = alpha * acc.x[i] + beta * fc.x[i];
    wmma::store_matrix_sync(tile, fc, n, wmma::mem_row_major);
}

// One 16x16x16 product per block of one warp, accumulated in f16: A column-major through
// shared memory, B row-major, C row-major; D stored column-major.
extern "C" __global__ void wmma_half_accumulator(const half* a, const half* b, const half* c, half* d) {
    __shared__ half sa[256];
    const int tile = blockIdx.x * 256;
    for (int i = threadIdx.x; i < 256; i += 32) sa[i] = a[tile + i];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> acc;
    wmma::load_matrix_sync(fa, sa, 16);
    wmma::load_matrix_sync(fb, b + tile, 16);
    wmma::load_matrix_sync(acc, c + tile, 16, wmma::mem_row_major);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d + tile, acc, 16, wmma::mem_col_major);
}

// mma.sync.m16n8k16 (f16 in, f32 accumulator) per warp: A (16x16 row-major) with ldmatrix.x4,
// B (16x8, k-major rows as stored) with ldmatrix.x2.trans, C and D in the ISA's fragment layout.
extern "C" __global__ void mma_ldmatrix_f16(const half* a, const half* b, const float* c, float* d) {
    __shared__ half sa[16 * 16], sb[16 * 8];
    const unsigned lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) sa[i] = a[blockIdx.x * 256 + i];
    for (int i = lane; i < 128; i += 32) sb[i] = b[blockIdx.x * 128 + i];
    __syncwarp();
    unsigned ra[4], rb[2];
    // x4: matrices (rows 0-7, cols 0-7), (rows 8-15, cols 0-7), (rows 0-7, cols 8-15), (8-15, 8-15).
    const unsigned a_row = (lane % 16), a_col = (lane / 16) * 8;
    const unsigned a_addr = static_cast<unsigned>(__cvta_generic_to_shared(&sa[a_row * 16 + a_col]));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3])
                 : "r"(a_addr));
    // B is 16 (k) x 8 (n) row-major: two 8x8 matrices (k 0-7, k 8-15), transposed on the way.
    const unsigned b_addr = static_cast<unsigned>(__cvta_generic_to_shared(&sb[(lane % 16) * 8]));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(rb[0]), "=r"(rb[1])
                 : "r"(b_addr));
    const unsigned group = lane / 4, pair = (lane % 4) * 2;
    const float* ct = c + blockIdx.x * 128;
    float acc[4] = {ct[group * 8 + pair], ct[group * 8 + pair + 1], ct[(group + 8) * 8 + pair],
                    ct[(group + 8) * 8 + pair + 1]};
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
    float* dt = d + blockIdx.x * 128;
    dt[group * 8 + pair] = acc[0];
    dt[group * 8 + pair + 1] = acc[1];
    dt[(group + 8) * 8 + pair] = acc[2];
    dt[(group + 8) * 8 + pair + 1] = acc[3];
}

// mma.sync.m16n8k8 with f16 accumulators, its fragments gathered by hand from global memory:
// A 16x8 row-major, B 8x8 (k x n) row-major, C and D 16x8 row-major, all f16.
extern "C" __global__ void mma_m16n8k8_half(const half* a, const half* b, const half* c, half* d) {
    const unsigned lane = threadIdx.x, group = lane / 4, pair = (lane % 4) * 2;
    auto two = [](half lo, half hi) {
        return static_cast<unsigned>(__half_as_ushort(lo)) | static_cast<unsigned>(__half_as_ushort(hi)) << 16;
    };
    const unsigned a0 = two(a[group * 8 + pair], a[group * 8 + pair + 1]);
    const unsigned a1 = two(a[(group + 8) * 8 + pair], a[(group + 8) * 8 + pair + 1]);
    const unsigned b0 = two(b[pair * 8 + group], b[(pair + 1) * 8 + group]);
    unsigned c0 = two(c[group * 8 + pair], c[group * 8 + pair + 1]);
    unsigned c1 = two(c[(group + 8) * 8 + pair], c[(group + 8) * 8 + pair + 1]);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%0, %1};"
                 : "+r"(c0), "+r"(c1)
                 : "r"(a0), "r"(a1), "r"(b0));
    reinterpret_cast<unsigned*>(d)[(group * 8 + pair) / 2] = c0;
    reinterpret_cast<unsigned*>(d)[((group + 8) * 8 + pair) / 2] = c1;
}

// mma.sync.m16n8k8 of tf32 (f32 values; the low 13 mantissa bits are ignored) and m16n8k16 of
// bf16, both into f32: A row-major, B (k x n) row-major, C and D 16x8 row-major.
extern "C" __global__ void mma_tf32_bf16(const float* a32, const float* b32, const unsigned short* a16,
                                         const unsigned short* b16, const float* c, float* d_tf32,
                                         float* d_bf16) {
    const unsigned lane = threadIdx.x, group = lane / 4, tig = lane % 4, pair = tig * 2;
    float acc[4] = {c[group * 8 + pair], c[group * 8 + pair + 1], c[(group + 8) * 8 + pair],
                    c[(group + 8) * 8 + pair + 1]};
    const float ta[4] = {a32[group * 8 + tig], a32[(group + 8) * 8 + tig], a32[group * 8 + tig + 4],
                         a32[(group + 8) * 8 + tig + 4]};
    const float tb[2] = {b32[tig * 8 + group], b32[(tig + 4) * 8 + group]};
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(__float_as_uint(ta[0])), "r"(__float_as_uint(ta[1])), "r"(__float_as_uint(ta[2])),
          "r"(__float_as_uint(ta[3])), "r"(__float_as_uint(tb[0])), "r"(__float_as_uint(tb[1])));
    d_tf32[group * 8 + pair] = acc[0];
    d_tf32[group * 8 + pair + 1] = acc[1];
    d_tf32[(group + 8) * 8 + pair] = acc[2];
    d_tf32[(group + 8) * 8 + pair + 1] = acc[3];

    float acc2[4] = {c[group * 8 + pair], c[group * 8 + pair + 1], c[(group + 8) * 8 + pair],
                     c[(group + 8) * 8 + pair + 1]};
    auto two = [](unsigned short lo, unsigned short hi) { return unsigned(lo) | unsigned(hi) << 16; };
    unsigned ra[4], rb[2];
    for (int i = 0; i < 4; ++i) {
        const unsigned row = group + ((i & 1) ? 8 : 0), col = pair + ((i & 2) ? 8 : 0);
        ra[i] = two(a16[row * 16 + col], a16[row * 16 + col + 1]);
    }
    for (int i = 0; i < 2; ++i) {
        const unsigned row = pair + (i ? 8 : 0);
        rb[i] = two(b16[row * 8 + group], b16[(row + 1) * 8 + group]);
    }
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(acc2[0]), "+f"(acc2[1]), "+f"(acc2[2]), "+f"(acc2[3])
        : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
    d_bf16[group * 8 + pair] = acc2[0];
    d_bf16[group * 8 + pair + 1] = acc2[1];
    d_bf16[(group + 8) * 8 + pair] = acc2[2];
    d_bf16[(group + 8) * 8 + pair + 1] = acc2[3];
}

// wmma of 8-bit integers in the m32n8k16 shape: A (32x16, s8, row-major) times B (16x8, s8,
// column-major) plus C (32x8, s32, row-major), stored column-major.
extern "C" __global__ void wmma_int8(const signed char* a, const signed char* b, const int* c, int* d) {
    wmma::fragment<wmma::matrix_a, 32, 8, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, int> acc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(acc, c, 8, wmma::mem_row_major);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 32, wmma::mem_col_major);
}

// Integer mma.sync of u8 (A) and s8 (B) into s32, fragments gathered by hand as the ISA lays them
// out: m8n8k16 (A 8x16, B 16x8), m16n8k16 and m16n8k32 (.satfinite), each A row-major and B
// (k x n) row-major, C and D row-major.
__device__ __forceinline__ unsigned four(const unsigned char* p, int step) {
    return unsigned(p[0]) | unsigned(p[step]) << 8 | unsigned(p[2 * step]) << 16 | unsigned(p[3 * step]) << 24;
}

extern "C" __global__ void mma_int8(const unsigned char* a, const signed char* b, const int* c, int* d8, int* d16,
                                    int* d32) {
    const unsigned lane = threadIdx.x, g = lane / 4, t = lane % 4;
    const unsigned char* ub = reinterpret_cast<const unsigned char*>(b);
    {  // m8n8k16: A row g, columns 4t..4t+3; B rows 4t..4t+3, column g; C row g, columns 2t, 2t+1
        const unsigned ra = four(a + g * 16 + t * 4, 1), rb = four(ub + (t * 4) * 8 + g, 8);
        int c0 = c[g * 8 + t * 2], c1 = c[g * 8 + t * 2 + 1];
        asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.u8.s8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};"
                     : "+r"(c0), "+r"(c1)
                     : "r"(ra), "r"(rb));
        d8[g * 8 + t * 2] = c0;
        d8[g * 8 + t * 2 + 1] = c1;
    }
    int acc[4] = {c[g * 8 + t * 2], c[g * 8 + t * 2 + 1], c[(g + 8) * 8 + t * 2], c[(g + 8) * 8 + t * 2 + 1]};
    {  // m16n8k16: A rows g and g+8, columns 4t..4t+3; B rows 4t..4t+3, column g
        const unsigned ra0 = four(a + g * 16 + t * 4, 1), ra1 = four(a + (g + 8) * 16 + t * 4, 1);
        const unsigned rb = four(ub + (t * 4) * 8 + g, 8);
        int r[4] = {acc[0], acc[1], acc[2], acc[3]};
        asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                     "{%0, %1, %2, %3};"
                     : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3])
                     : "r"(ra0), "r"(ra1), "r"(rb));
        d16[g * 8 + t * 2] = r[0], d16[g * 8 + t * 2 + 1] = r[1];
        d16[(g + 8) * 8 + t * 2] = r[2], d16[(g + 8) * 8 + t * 2 + 1] = r[3];
    }
    {  // m16n8k32 (A 16x32): A registers rows g, g+8, g, g+8 at columns 4t and 4t+16; B rows 4t
       // and 4t+16
        const unsigned char* a32 = a + 256;
        const unsigned ra[4] = {four(a32 + g * 32 + t * 4, 1), four(a32 + (g + 8) * 32 + t * 4, 1),
                                four(a32 + g * 32 + t * 4 + 16, 1), four(a32 + (g + 8) * 32 + t * 4 + 16, 1)};
        const unsigned char* b32 = ub + 128;
        const unsigned rb[2] = {four(b32 + (t * 4) * 8 + g, 8), four(b32 + (t * 4 + 16) * 8 + g, 8)};
        asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
        d32[g * 8 + t * 2] = acc[0], d32[g * 8 + t * 2 + 1] = acc[1];
        d32[(g + 8) * 8 + t * 2] = acc[2], d32[(g + 8) * 8 + t * 2 + 1] = acc[3];
    }
}

// wmma in the m8n32k16 shape with f16 multiplicands into f32: A (8x16) column-major, B (16x32)
// row-major, C zero, D (8x32) stored row-major with a padded stride of 40.
extern "C" __global__ void wmma_m8n32k16(const half* a, const half* b, float* d) {
    wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 8, 32, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 32);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 40, wmma::mem_row_major);
}

// A 16x16 tile through ldmatrix.x4, movmatrix.trans of its first 8x8 quarter (each lane's
// register to out_move), and stmatrix.x4.trans into a second tile (each 8x8 quarter
// transposed in place), copied to out_store. stmatrix is sm_90's.
extern "C" __global__ void matrix_moves(const half* in, half* out_store, unsigned* out_move) {
    __shared__ __align__(16) half src[256];
    __shared__ __align__(16) half dst[256];
    const unsigned lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) src[i] = in[i];
    __syncwarp();
    const unsigned at = (lane % 16) * 16 + (lane / 16) * 8;
    const unsigned from = static_cast<unsigned>(__cvta_generic_to_shared(&src[at]));
    const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(&dst[at]));
    unsigned r[4], moved;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(from));
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(moved) : "r"(r[0]));
    out_move[lane] = moved;
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(to), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
    __syncwarp();
    for (int i = lane; i < 256; i += 32) out_store[i] = dst[i];
}
