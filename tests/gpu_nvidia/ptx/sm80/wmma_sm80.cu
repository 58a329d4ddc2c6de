// nvcuda::wmma of sm_80's types: bf16 (m16n16k16) and tf32 (m16n16k8) into f32, f64 (m8n8k4);
// mma.sync of f64. Regenerate with
//   nvcc -ptx -arch=compute_80 -O3 -o wmma_sm80.ptx wmma_sm80.cu   (from this folder)
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

// D = A (16x16 bf16, row-major) * B (16x16 bf16, row-major) + C (16x16 f32, row-major).
extern "C" __global__ void wmma_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, const float* c, float* d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(acc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

// D = A (16x8, row-major) * B (8x16, column-major) + C, the inputs rounded to tf32 in the
// fragments first, as CUDA asks.
extern "C" __global__ void wmma_tf32(const float* a, const float* b, const float* c, float* d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 8);
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::load_matrix_sync(acc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

// D = A (8x8 f64, row-major) * B (8x8 f64, column-major) + C (8x8 f64, row-major): two m8n8k4
// products, k after k.
extern "C" __global__ void wmma_f64(const double* a, const double* b, const double* c, double* d) {
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
    wmma::load_matrix_sync(acc, c, 8, wmma::mem_row_major);
    for (int k = 0; k < 8; k += 4) {
        wmma::load_matrix_sync(fa, a + k, 8);
        wmma::load_matrix_sync(fb, b + k, 8);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d, acc, 8, wmma::mem_row_major);
}

// mma.sync.m8n8k4 of f64 with the PTX ISA's fragments: lane l holds A[l/4][l%4], B[l%4][l/4]
// and C, D [l/4][2(l%4)], [l/4][2(l%4)+1]. A row-major 8x4, B column-major (4x8), C and D 8x8.
extern "C" __global__ void mma_f64(const double* a, const double* b, const double* c, double* d) {
    const int lane = threadIdx.x, group = lane / 4, in_group = lane % 4;
    const double x = a[group * 4 + in_group], y = b[group * 4 + in_group];
    double d0, d1;
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};"
        : "=d"(d0), "=d"(d1)
        : "d"(x), "d"(y), "d"(c[group * 8 + in_group * 2]), "d"(c[group * 8 + in_group * 2 + 1]));
    d[group * 8 + in_group * 2] = d0;
    d[group * 8 + in_group * 2 + 1] = d1;
}
