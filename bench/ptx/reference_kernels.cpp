#include "reference_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace cudabridge::bench {

void saxpy(int n, float a, const float* x, float* y, engine& e) {
    e.parallel_for(n, 65536, [&](int64_t b, int64_t end) {
        for (int64_t i = b; i < end; ++i) y[i] = std::fma(a, x[i], y[i]);
    });
}

void reduce_blocks(int n, const float* in, float* partial, engine& e) {
    const int blocks = (n + 255) / 256;
    e.parallel_for(blocks, 64, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
            float s[256];
            for (int t = 0; t < 256; ++t) s[t] = b * 256 + t < n ? in[b * 256 + t] : 0.0f;
            for (int stride = 128; stride > 0; stride >>= 1)
                for (int t = 0; t < stride; ++t) s[t] += s[t + stride];
            partial[b] = s[0];
        }
    });
}

// A running sum per block: integer addition, so any order gives the kernel's result.
void scan_blocks(int n, const int* in, int* out, int* block_totals, engine& e) {
    const int blocks = (n + 255) / 256;
    e.parallel_for(blocks, 64, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
            int sum = 0;
            const int64_t end = std::min<int64_t>(n, (b + 1) * 256);
            for (int64_t i = b * 256; i < end; ++i) out[i] = sum += in[i];
            block_totals[b] = sum;
        }
    });
}

// Each thread counts its part into its own bins, then the bins are summed.
void histogram256(int n, const unsigned char* data, unsigned* bins, engine& e) {
    const int parts = static_cast<int>(e.threads());
    std::vector<std::vector<unsigned>> local(static_cast<size_t>(parts), std::vector<unsigned>(256, 0));
    const int64_t per = (int64_t(n) + parts - 1) / parts;
    e.parallel_for(parts, 1, [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) {
            unsigned* mine = local[static_cast<size_t>(p)].data();
            const int64_t end = std::min<int64_t>(n, (p + 1) * per);
            for (int64_t i = p * per; i < end; ++i) ++mine[data[i]];
        }
    });
    for (const auto& l : local)
        for (int b = 0; b < 256; ++b) bins[b] += l[static_cast<size_t>(b)];
}

void stencil5(int width, int height, float center, float side, const float* in, float* out, engine& e) {
    e.parallel_for(height, 8, [&](int64_t y0, int64_t y1) {
        for (int64_t y = y0; y < y1; ++y) {
            const float* row = in + y * width;
            float* o = out + y * width;
            if (y == 0 || y == height - 1) {
                std::copy(row, row + width, o);
                continue;
            }
            o[0] = row[0];
            for (int x = 1; x < width - 1; ++x)
                o[x] = std::fma(center, row[x], side * (((row[x - 1] + row[x + 1]) + row[x - width]) + row[x + width]));
            o[width - 1] = row[width - 1];
        }
    });
}

void sgemm_tiled(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C, engine& e) {
    constexpr int T = 16;
    const int tiles_x = (N + T - 1) / T, tiles_y = (M + T - 1) / T;
    e.parallel_for(int64_t(tiles_x) * tiles_y, 1, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
            const int by = int(t / tiles_x), bx = int(t % tiles_x);
            float acc[T][T] = {}, As[T][T], Bs[T][T];
            for (int k0 = 0; k0 < K; k0 += T) {
                for (int ty = 0; ty < T; ++ty)
                    for (int tx = 0; tx < T; ++tx) {
                        const int row = by * T + ty, col = bx * T + tx, ak = k0 + tx, bk = k0 + ty;
                        As[ty][tx] = row < M && ak < K ? A[row * K + ak] : 0.0f;
                        Bs[ty][tx] = bk < K && col < N ? B[bk * N + col] : 0.0f;
                    }
                for (int ty = 0; ty < T; ++ty) {
                    float row[T];  // one row of acc in a local array: the compiler keeps it in a vector
                    std::copy(acc[ty], acc[ty] + T, row);
                    for (int k = 0; k < T; ++k) {
                        const float a = As[ty][k];
                        for (int tx = 0; tx < T; ++tx) row[tx] = std::fma(a, Bs[k][tx], row[tx]);
                    }
                    std::copy(row, row + T, acc[ty]);
                }
            }
            for (int ty = 0; ty < T; ++ty)
                for (int tx = 0; tx < T; ++tx) {
                    const int row = by * T + ty, col = bx * T + tx;
                    if (row < M && col < N) C[row * N + col] = alpha * acc[ty][tx] + beta * C[row * N + col];
                }
        }
    });
}

}  // namespace cudabridge::bench
