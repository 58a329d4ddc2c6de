// CUDA arrays, texture objects and surface objects on the simulated GPU, against a host reference
// that follows the CUDA C++ Programming Guide's texture-fetching rules (the same rules the engine
// implements): point sampling and linear filtering with 1.8 fixed-point weights in 1D, 2D and 3D;
// every address mode with normalized and unnormalized coordinates; read modes; sRGB; half floats;
// layered and cubemap textures; tex2Dgather; tex1Dfetch on linear memory; pitched 2D memory;
// surface reads and writes with each boundary mode; the array copies and queries.
#include "expect.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <vector>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // cudaMemcpyToArray and cudaMemcpyFromArray

// ---- the host reference ----------------------------------------------------------------------

struct ref_texture {
    const float* data;  // one float channel per texel, x fastest, then y, then z (or slice)
    int n[3];
    int dims;
    int mode[3];  // cudaTextureAddressMode
    bool linear, normalized;
    float border;
};

static bool ref_index(long long& i, long long n, int m) {
    switch (m) {
    case cudaAddressModeWrap:
        i = ((i % n) + n) % n;
        return true;
    case cudaAddressModeMirror: {
        long long k = ((i % (2 * n)) + 2 * n) % (2 * n);
        i = k < n ? k : 2 * n - 1 - k;
        return true;
    }
    case cudaAddressModeBorder:
        return i >= 0 && i < n;
    default:
        i = i < 0 ? 0 : i >= n ? n - 1 : i;
        return true;
    }
}

static int effective_mode(const ref_texture& t, int axis) {
    const int m = t.mode[axis];
    if (!t.normalized && (m == cudaAddressModeWrap || m == cudaAddressModeMirror)) return cudaAddressModeClamp;
    return m;
}

static float ref_read(const ref_texture& t, const long long* i) {
    long long at = i[0];
    if (t.dims > 1) at += i[1] * t.n[0];
    if (t.dims > 2) at += i[2] * t.n[0] * t.n[1];
    return t.data[at];
}

static float ref_fetch(const ref_texture& t, const float* xyz) {
    if (!t.linear) {
        long long i[3];
        for (int a = 0; a < t.dims; ++a) {
            float x = xyz[a];
            const int m = effective_mode(t, a);
            if (t.normalized) {
                if (m == cudaAddressModeWrap) x -= std::floor(x);
                if (m == cudaAddressModeMirror) {
                    const float f = std::floor(x), frac = x - f;
                    x = static_cast<long long>(f) % 2 == 0 ? frac : 1.0f - frac;
                }
                x *= static_cast<float>(t.n[a]);
            }
            i[a] = static_cast<long long>(std::floor(static_cast<double>(x)));
            if (m == cudaAddressModeWrap || m == cudaAddressModeMirror) {
                i[a] = i[a] < 0 ? 0 : i[a] >= t.n[a] ? t.n[a] - 1 : i[a];
            } else if (!ref_index(i[a], t.n[a], m)) {
                return t.border;
            }
        }
        return ref_read(t, i);
    }
    long long base[3];
    float w[3];
    for (int a = 0; a < t.dims; ++a) {
        float x = t.normalized ? xyz[a] * static_cast<float>(t.n[a]) : xyz[a];
        const float xb = x - 0.5f, fl = std::floor(xb);
        base[a] = static_cast<long long>(fl);
        w[a] = std::round((xb - fl) * 256.0f) / 256.0f;  // 9-bit fixed point, 8 fraction bits
    }
    float sum = 0;
    for (int k = 0; k < (1 << t.dims); ++k) {
        float weight = 1;
        long long i[3];
        bool border = false;
        for (int a = 0; a < t.dims; ++a) {
            const int d = k >> a & 1;
            weight *= d ? w[a] : 1.0f - w[a];
            i[a] = base[a] + d;
            if (!ref_index(i[a], t.n[a], effective_mode(t, a))) border = true;
        }
        sum += weight * (border ? t.border : ref_read(t, i));
    }
    return sum;
}

static bool near(float a, float b) { return std::fabs(a - b) <= 1e-5f * (1.0f + std::fabs(b)); }

// ---- kernels ---------------------------------------------------------------------------------

__global__ void fetch1d(cudaTextureObject_t t, const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float>(t, x[i]);
}
__global__ void fetch2d(cudaTextureObject_t t, const float2* c, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(t, c[i].x, c[i].y);
}
__global__ void fetch3d(cudaTextureObject_t t, const float4* c, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float>(t, c[i].x, c[i].y, c[i].z);
}
__global__ void fetch2d_rgba(cudaTextureObject_t t, const float2* c, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(t, c[i].x, c[i].y);
}
__global__ void fetch2d_int4(cudaTextureObject_t t, const float2* c, int4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<int4>(t, c[i].x, c[i].y);
}
__global__ void fetch_linear_memory(cudaTextureObject_t t, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(t, i - 2);  // two below the start, the rest past the end
}
__global__ void fetch_layered(cudaTextureObject_t t, const float2* c, float* out, int n, int layers) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLayered<float>(t, c[i].x, c[i].y, i % layers);
}
__global__ void fetch_cube(cudaTextureObject_t t, const float4* c, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = texCubemap<float>(t, c[i].x, c[i].y, c[i].z);
}
__global__ void fetch_cube_layered(cudaTextureObject_t t, const float4* c, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = texCubemapLayered<float>(t, c[i].x, c[i].y, c[i].z, 1);
}
__global__ void layered_across_barrier(cudaTextureObject_t t, float* out, int w) {
    __shared__ float tile[64];
    const int x = threadIdx.x;
    const float u = static_cast<float>(x) + 0.5f;
    tile[x] = tex1DLayered<float>(t, u, 1);
    __syncthreads();
    out[x] = tile[(x + 1) % w] + tex1DLayered<float>(t, u, 0);  // u and the handle live across it
}
__global__ void gather(cudaTextureObject_t t, const float2* c, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2Dgather<float4>(t, c[i].x, c[i].y, 0);
}
__global__ void surface_write2d(cudaSurfaceObject_t s, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) surf2Dwrite(float(x + 1000 * y), s, x * 4, y);
    if (x == 0 && y == 0) surf2Dwrite(-1.0f, s, w * 4, 0, cudaBoundaryModeZero);  // dropped
}
__global__ void surface_read2d(cudaSurfaceObject_t s, float* out, int w) {
    int x = threadIdx.x;  // 0..w+1: the last two are past the row
    out[3 * x] = surf2Dread<float>(s, x * 4, 1, cudaBoundaryModeZero);
    out[3 * x + 1] = surf2Dread<float>(s, x * 4, 1, cudaBoundaryModeClamp);
    out[3 * x + 2] = x < w ? surf2Dread<float>(s, x * 4, 1) + 0.5f : 0;
}
__global__ void surface_rgba(cudaSurfaceObject_t s, int w) {
    int x = threadIdx.x;
    if (x >= w) return;
    uchar4 v = surf1Dread<uchar4>(s, x * 4);
    surf1Dwrite(make_uchar4(v.w, v.z, v.y, v.x), s, x * 4);
}
__global__ void surface_3d_and_layered(cudaSurfaceObject_t volume, cudaSurfaceObject_t layers, int w, int h, int d) {
    int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
    if (x >= w || y >= h || z >= d) return;
    short v = surf3Dread<short>(volume, x * 2, y, z);
    surf3Dwrite(short(v * 2), volume, x * 2, y, z);
    int u = surf2DLayeredread<int>(layers, x * 4, y, z);
    surf2DLayeredwrite(u + z, layers, x * 4, y, z);
}
__global__ void surface_cube(cudaSurfaceObject_t s, int side) {
    int x = threadIdx.x, y = threadIdx.y, face = threadIdx.z;
    if (x < side && y < side) surfCubemapwrite(float(100 * face + 10 * y + x), s, x * 4, y, face);
}
__global__ void surface_trap(cudaSurfaceObject_t s, int w) { surf2Dwrite(1.0f, s, (w + 5) * 4, 0); }

// ---- helpers ---------------------------------------------------------------------------------

template <typename T>
static T* device_copy(const std::vector<T>& v) {
    T* p = nullptr;
    cudaMalloc(&p, v.size() * sizeof(T));
    cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
    return p;
}

template <typename T>
static std::vector<T> host_copy(const T* p, size_t n) {
    std::vector<T> v(n);
    cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
    return v;
}

static cudaTextureObject_t array_texture(cudaArray_t a, int mode, bool linear, bool normalized, float border = 0,
                                         cudaTextureReadMode read = cudaReadModeElementType) {
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaTextureDesc d{};
    d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = static_cast<cudaTextureAddressMode>(mode);
    d.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
    d.normalizedCoords = normalized;
    d.readMode = read;
    for (float& b : d.borderColor) b = border;
    cudaTextureObject_t t = 0;
    EXPECT(cudaCreateTextureObject(&t, &r, &d, nullptr) == cudaSuccess);
    return t;
}

static float pattern(int i) { return std::sin(0.7f * i) * 10.0f + static_cast<float>(i % 7); }

// Coordinates along one axis of `n` texels: across the texture and beyond it on both sides.
static std::vector<float> axis_coords(int n, bool normalized) {
    std::vector<float> c;
    for (int k = -40; k <= 40; ++k) {
        const float u = -1.3f + 3.6f * static_cast<float>(k + 40) / 80.0f + 0.0137f * (k % 3);
        c.push_back(normalized ? u : u * static_cast<float>(n));
    }
    c.push_back(normalized ? 0.5f / n : 0.5f);  // exactly a texel's center
    c.push_back(normalized ? 1.0f : static_cast<float>(n));
    return c;
}

// ---- the checks ------------------------------------------------------------------------------

static void check_1d_and_2d_modes() {
    const int w = 13, h = 7;
    std::vector<float> texels(w * h);
    for (int i = 0; i < w * h; ++i) texels[i] = pattern(i);
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t a2 = nullptr, a1 = nullptr;
    EXPECT(cudaMallocArray(&a2, &f, w, h) == cudaSuccess);
    EXPECT(cudaMallocArray(&a1, &f, w) == cudaSuccess);
    EXPECT(cudaMemcpy2DToArray(a2, 0, 0, texels.data(), w * sizeof(float), w * sizeof(float), h,
                               cudaMemcpyHostToDevice) == cudaSuccess);
    EXPECT(cudaMemcpyToArray(a1, 0, 0, texels.data(), w * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);

    for (int normalized = 0; normalized < 2; ++normalized) {
        const std::vector<float> xs = axis_coords(w, normalized), ys = axis_coords(h, normalized);
        std::vector<float2> c2;
        for (size_t i = 0; i < xs.size(); ++i)
            for (size_t j = 0; j < ys.size(); j += 7) c2.push_back(make_float2(xs[i], ys[(j + i) % ys.size()]));
        float* dx = device_copy(xs);
        float2* dc = device_copy(c2);
        float *out1 = nullptr, *out2 = nullptr;
        cudaMalloc(&out1, xs.size() * sizeof(float));
        cudaMalloc(&out2, c2.size() * sizeof(float));
        for (int mode = 0; mode < 4; ++mode)
            for (int linear = 0; linear < 2; ++linear) {
                cudaTextureObject_t t1 = array_texture(a1, mode, linear, normalized, -5.5f);
                cudaTextureObject_t t2 = array_texture(a2, mode, linear, normalized, 2.25f);
                fetch1d<<<1, 128>>>(t1, dx, out1, static_cast<int>(xs.size()));
                fetch2d<<<(c2.size() + 127) / 128, 128>>>(t2, dc, out2, static_cast<int>(c2.size()));
                EXPECT(cudaDeviceSynchronize() == cudaSuccess);
                const std::vector<float> got1 = host_copy(out1, xs.size()), got2 = host_copy(out2, c2.size());
                ref_texture r1{texels.data(), {w, 1, 1}, 1, {mode, mode, mode}, bool(linear), bool(normalized), -5.5f};
                ref_texture r2{texels.data(), {w, h, 1}, 2, {mode, mode, mode}, bool(linear), bool(normalized), 2.25f};
                int bad1 = 0, bad2 = 0;
                for (size_t i = 0; i < xs.size(); ++i)
                    if (!near(got1[i], ref_fetch(r1, &xs[i]))) {
                        if (!bad1++)
                            std::printf("1D mode %d linear %d normalized %d x=%g: got %g, want %g\n", mode, linear,
                                        normalized, xs[i], got1[i], ref_fetch(r1, &xs[i]));
                    }
                for (size_t i = 0; i < c2.size(); ++i) {
                    const float xy[2] = {c2[i].x, c2[i].y};
                    if (!near(got2[i], ref_fetch(r2, xy)) && !bad2++)
                        std::printf("2D mode %d linear %d normalized %d (%g, %g): got %g, want %g\n", mode, linear,
                                    normalized, xy[0], xy[1], got2[i], ref_fetch(r2, xy));
                }
                EXPECT(bad1 == 0);
                EXPECT(bad2 == 0);
                EXPECT(cudaDestroyTextureObject(t1) == cudaSuccess);
                EXPECT(cudaDestroyTextureObject(t2) == cudaSuccess);
            }
        cudaFree(dx);
        cudaFree(dc);
        cudaFree(out1);
        cudaFree(out2);
    }
    // The queries give back what was created.
    cudaChannelFormatDesc got{};
    cudaExtent extent{};
    unsigned flags = 99;
    EXPECT(cudaArrayGetInfo(&got, &extent, &flags, a2) == cudaSuccess);
    EXPECT(got.x == 32 && got.y == 0 && got.f == cudaChannelFormatKindFloat);
    EXPECT(extent.width == w && extent.height == h && extent.depth == 0 && flags == 0);
    EXPECT(cudaGetChannelDesc(&got, a1) == cudaSuccess && got.x == 32);
    cudaTextureObject_t t = array_texture(a2, cudaAddressModeBorder, true, false, 3.0f);
    cudaResourceDesc rd{};
    cudaTextureDesc td{};
    EXPECT(cudaGetTextureObjectResourceDesc(&rd, t) == cudaSuccess && rd.res.array.array == a2);
    EXPECT(cudaGetTextureObjectTextureDesc(&td, t) == cudaSuccess && td.filterMode == cudaFilterModeLinear &&
           td.borderColor[2] == 3.0f);
    EXPECT(cudaDestroyTextureObject(t) == cudaSuccess);
    // Copies back out of the array, whole and in part, and between arrays.
    std::vector<float> back(w * h, 0);
    EXPECT(cudaMemcpy2DFromArray(back.data(), w * sizeof(float), a2, 0, 0, w * sizeof(float), h,
                                 cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(back == texels);
    float corner[2] = {0, 0};
    EXPECT(cudaMemcpy2DFromArray(corner, sizeof corner, a2, (w - 2) * sizeof(float), h - 1, sizeof corner, 1,
                                 cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(corner[0] == texels[w * h - 2] && corner[1] == texels[w * h - 1]);
    cudaArray_t copy = nullptr;
    EXPECT(cudaMallocArray(&copy, &f, w, h) == cudaSuccess);
    EXPECT(cudaMemcpy2DArrayToArray(copy, 0, 0, a2, 0, 0, w * sizeof(float), h) == cudaSuccess);
    std::vector<float> again(w * h, 0);
    EXPECT(cudaMemcpyFromArray(again.data(), copy, 0, 0, again.size() * sizeof(float), cudaMemcpyDeviceToHost) ==
           cudaSuccess);
    EXPECT(again == texels);
    // Out of range and unknown arrays.
    EXPECT(cudaMemcpy2DToArray(a2, 4, 0, texels.data(), w * sizeof(float), w * sizeof(float), h,
                               cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    int not_an_array = 0;
    EXPECT(cudaArrayGetInfo(&got, &extent, &flags, reinterpret_cast<cudaArray_t>(&not_an_array)) != cudaSuccess);
    EXPECT(cudaFreeArray(copy) == cudaSuccess);
    EXPECT(cudaFreeArray(a1) == cudaSuccess);
    EXPECT(cudaFreeArray(a2) == cudaSuccess);
    cudaGetLastError();
}

static void check_3d() {
    const int w = 6, h = 5, d = 4;
    std::vector<float> texels(w * h * d);
    for (size_t i = 0; i < texels.size(); ++i) texels[i] = pattern(static_cast<int>(i) * 3);
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t a = nullptr;
    EXPECT(cudaMalloc3DArray(&a, &f, make_cudaExtent(w, h, d)) == cudaSuccess);
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(texels.data(), w * sizeof(float), w, h);
    p.dstArray = a;
    p.extent = make_cudaExtent(w, h, d);
    p.kind = cudaMemcpyHostToDevice;
    EXPECT(cudaMemcpy3D(&p) == cudaSuccess);
    std::vector<float4> c;
    for (int k = 0; k < 300; ++k)
        c.push_back(make_float4(-0.2f + 1.4f * (k % 17) / 16.0f, -0.2f + 1.4f * (k % 13) / 12.0f,
                                -0.2f + 1.4f * (k % 11) / 10.0f, 0));
    float4* dc = device_copy(c);
    float* out = nullptr;
    cudaMalloc(&out, c.size() * sizeof(float));
    for (int mode = 0; mode < 4; ++mode)
        for (int linear = 0; linear < 2; ++linear) {
            cudaTextureObject_t t = array_texture(a, mode, linear, true, 0.75f);
            fetch3d<<<3, 128>>>(t, dc, out, static_cast<int>(c.size()));
            EXPECT(cudaDeviceSynchronize() == cudaSuccess);
            const std::vector<float> got = host_copy(out, c.size());
            ref_texture r{texels.data(), {w, h, d}, 3, {mode, mode, mode}, bool(linear), true, 0.75f};
            int bad = 0;
            for (size_t i = 0; i < c.size(); ++i) {
                const float xyz[3] = {c[i].x, c[i].y, c[i].z};
                if (!near(got[i], ref_fetch(r, xyz)) && !bad++)
                    std::printf("3D mode %d linear %d (%g %g %g): got %g, want %g\n", mode, linear, xyz[0], xyz[1],
                                xyz[2], got[i], ref_fetch(r, xyz));
            }
            EXPECT(bad == 0);
            cudaDestroyTextureObject(t);
        }
    // cudaMemcpy3D back out of the array, a sub-box of it.
    std::vector<float> box(2 * 2 * 2, 0);
    cudaMemcpy3DParms q{};
    q.srcArray = a;
    q.srcPos = make_cudaPos(3, 2, 1);
    q.dstPtr = make_cudaPitchedPtr(box.data(), 2 * sizeof(float), 2, 2);
    q.extent = make_cudaExtent(2, 2, 2);
    q.kind = cudaMemcpyDeviceToHost;
    EXPECT(cudaMemcpy3D(&q) == cudaSuccess);
    for (int z = 0; z < 2; ++z)
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 2; ++x) EXPECT(box[(z * 2 + y) * 2 + x] == texels[((z + 1) * h + y + 2) * w + x + 3]);
    cudaFree(dc);
    cudaFree(out);
    EXPECT(cudaFreeArray(a) == cudaSuccess);
}

static void check_read_modes_and_formats() {
    // uchar4 read as normalized floats, filtered; the same texels read as integers (int4 from a
    // signed char4 texture); 16-bit signed normalized; half floats.
    const int w = 9, h = 4, n = w * h;
    std::vector<uchar4> rgba(n);
    std::vector<char4> signed_rgba(n);
    std::vector<short> shorts(n);
    std::vector<__half> halves(n);
    for (int i = 0; i < n; ++i) {
        rgba[i] = make_uchar4(i * 7 % 256, i * 31 % 256, 255 - i, i % 2 ? 255 : 0);
        signed_rgba[i] = make_char4(static_cast<signed char>(i * 9 - 128), -i, i, -128);
        shorts[i] = static_cast<short>(i * 1999 - 32768);
        halves[i] = __float2half(pattern(i));
    }
    cudaChannelFormatDesc f_rgba = cudaCreateChannelDesc<uchar4>(), f_s = cudaCreateChannelDesc<char4>(),
                          f_short = cudaCreateChannelDesc<short>(), f_half = cudaCreateChannelDescHalf();
    cudaArray_t a_rgba, a_s, a_short, a_half;
    EXPECT(cudaMallocArray(&a_rgba, &f_rgba, w, h) == cudaSuccess);
    EXPECT(cudaMallocArray(&a_s, &f_s, w, h) == cudaSuccess);
    EXPECT(cudaMallocArray(&a_short, &f_short, w, h) == cudaSuccess);
    EXPECT(cudaMallocArray(&a_half, &f_half, w, h) == cudaSuccess);
    cudaMemcpy2DToArray(a_rgba, 0, 0, rgba.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice);
    cudaMemcpy2DToArray(a_s, 0, 0, signed_rgba.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice);
    cudaMemcpy2DToArray(a_short, 0, 0, shorts.data(), w * 2, w * 2, h, cudaMemcpyHostToDevice);
    cudaMemcpy2DToArray(a_half, 0, 0, halves.data(), w * 2, w * 2, h, cudaMemcpyHostToDevice);

    std::vector<float2> c;
    for (int k = 0; k < 200; ++k)
        c.push_back(make_float2(-1.0f + 11.0f * (k % 23) / 22.0f, -1.0f + 6.0f * (k / 23) / 8.0f));
    float2* dc = device_copy(c);
    float4* out4 = nullptr;
    int4* outi = nullptr;
    float* out1 = nullptr;
    cudaMalloc(&out4, c.size() * sizeof(float4));
    cudaMalloc(&outi, c.size() * sizeof(int4));
    cudaMalloc(&out1, c.size() * sizeof(float));

    cudaTextureObject_t t_rgba =
        array_texture(a_rgba, cudaAddressModeClamp, true, false, 0, cudaReadModeNormalizedFloat);
    cudaTextureObject_t t_s = array_texture(a_s, cudaAddressModeBorder, false, false, 7);
    cudaTextureObject_t t_short =
        array_texture(a_short, cudaAddressModeClamp, true, false, 0, cudaReadModeNormalizedFloat);
    cudaTextureObject_t t_half = array_texture(a_half, cudaAddressModeMirror, true, true);
    fetch2d_rgba<<<2, 128>>>(t_rgba, dc, out4, static_cast<int>(c.size()));
    fetch2d_int4<<<2, 128>>>(t_s, dc, outi, static_cast<int>(c.size()));
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float4> got4 = host_copy(out4, c.size());
    const std::vector<int4> goti = host_copy(outi, c.size());
    std::vector<float> channel(n);
    int bad = 0;
    for (int ch = 0; ch < 4; ++ch) {
        for (int i = 0; i < n; ++i) {
            const unsigned char* v = &rgba[i].x;
            channel[i] = v[ch] / 255.0f;
        }
        ref_texture r{channel.data(), {w, h, 1}, 2, {1, 1, 1}, true, false, 0};
        for (size_t i = 0; i < c.size(); ++i) {
            const float xy[2] = {c[i].x, c[i].y};
            const float g = (&got4[i].x)[ch];
            if (!near(g, ref_fetch(r, xy)) && !bad++)
                std::printf("uchar4 channel %d (%g, %g): got %g, want %g\n", ch, xy[0], xy[1], g, ref_fetch(r, xy));
        }
    }
    for (size_t i = 0; i < c.size(); ++i) {
        const long long x = static_cast<long long>(std::floor(c[i].x)), y = static_cast<long long>(std::floor(c[i].y));
        const bool inside = x >= 0 && x < w && y >= 0 && y < h;
        const char4 want = inside ? signed_rgba[y * w + x] : make_char4(7, 7, 7, 7);
        if ((goti[i].x != want.x || goti[i].y != want.y || goti[i].z != want.z || goti[i].w != want.w) && !bad++)
            std::printf("char4 (%g, %g): got %d %d %d %d\n", c[i].x, c[i].y, goti[i].x, goti[i].y, goti[i].z,
                        goti[i].w);
    }
    fetch2d<<<2, 128>>>(t_short, dc, out1, static_cast<int>(c.size()));
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<float> got1 = host_copy(out1, c.size());
    for (int i = 0; i < n; ++i) channel[i] = std::fmax(shorts[i] / 32767.0f, -1.0f);
    ref_texture rs{channel.data(), {w, h, 1}, 2, {1, 1, 1}, true, false, 0};
    for (size_t i = 0; i < c.size(); ++i) {
        const float xy[2] = {c[i].x, c[i].y};
        if (!near(got1[i], ref_fetch(rs, xy)) && !bad++)
            std::printf("short (%g, %g): got %g, want %g\n", xy[0], xy[1], got1[i], ref_fetch(rs, xy));
    }
    std::vector<float2> cn;
    for (const float2& p : c) cn.push_back(make_float2(p.x / w, p.y / h));
    cudaMemcpy(dc, cn.data(), cn.size() * sizeof(float2), cudaMemcpyHostToDevice);
    fetch2d<<<2, 128>>>(t_half, dc, out1, static_cast<int>(c.size()));
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    got1 = host_copy(out1, c.size());
    for (int i = 0; i < n; ++i) channel[i] = __half2float(halves[i]);
    ref_texture rh{channel.data(), {w, h, 1}, 2, {2, 2, 2}, true, true, 0};
    for (size_t i = 0; i < cn.size(); ++i) {
        const float xy[2] = {cn[i].x, cn[i].y};
        if (!near(got1[i], ref_fetch(rh, xy)) && !bad++)
            std::printf("half (%g, %g): got %g, want %g\n", xy[0], xy[1], got1[i], ref_fetch(rh, xy));
    }
    EXPECT(bad == 0);
    for (cudaTextureObject_t t : {t_rgba, t_s, t_short, t_half}) EXPECT(cudaDestroyTextureObject(t) == cudaSuccess);
    for (cudaArray_t a : {a_rgba, a_s, a_short, a_half}) EXPECT(cudaFreeArray(a) == cudaSuccess);
    cudaFree(dc);
    cudaFree(out4);
    cudaFree(outi);
    cudaFree(out1);
}

static void check_1d_layered_across_a_barrier() {
    const int w = 32, layers = 2;
    std::vector<float> texels(w * layers);
    for (int i = 0; i < w * layers; ++i) texels[i] = pattern(i + 11);
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t a = nullptr;
    EXPECT(cudaMalloc3DArray(&a, &f, make_cudaExtent(w, 0, layers), cudaArrayLayered) == cudaSuccess);
    cudaExtent extent{};
    EXPECT(cudaArrayGetInfo(nullptr, &extent, nullptr, a) == cudaSuccess);
    EXPECT(extent.width == w && extent.height == 0 && extent.depth == layers);
    EXPECT(cudaMemcpyToArray(a, 0, 0, texels.data(), texels.size() * sizeof(float), cudaMemcpyHostToDevice) ==
           cudaSuccess);
    cudaTextureObject_t t = array_texture(a, cudaAddressModeClamp, false, false);
    float* out = nullptr;
    cudaMalloc(&out, w * sizeof(float));
    layered_across_barrier<<<1, w>>>(t, out, w);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float> got = host_copy(out, w);
    for (int x = 0; x < w; ++x) EXPECT(got[x] == texels[w + (x + 1) % w] + texels[x]);
    cudaDestroyTextureObject(t);
    cudaFreeArray(a);
    cudaFree(out);
}

static void check_graph_memcpy_nodes_on_arrays() {
    // A graph's memcpy nodes into an array and back out of it.
    const int w = 7, h = 3;
    std::vector<float> in(w * h), out(w * h, 0);
    for (int i = 0; i < w * h; ++i) in[i] = pattern(i + 3);
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t a = nullptr;
    EXPECT(cudaMallocArray(&a, &f, w, h) == cudaSuccess);
    cudaGraph_t g = nullptr;
    EXPECT(cudaGraphCreate(&g, 0) == cudaSuccess);
    cudaMemcpy3DParms to{}, from{};
    to.srcPtr = make_cudaPitchedPtr(in.data(), w * sizeof(float), w, h);
    to.dstArray = a;
    to.extent = make_cudaExtent(w, h, 1);
    to.kind = cudaMemcpyHostToDevice;
    from.srcArray = a;
    from.dstPtr = make_cudaPitchedPtr(out.data(), w * sizeof(float), w, h);
    from.extent = make_cudaExtent(w, h, 1);
    from.kind = cudaMemcpyDeviceToHost;
    cudaGraphNode_t first = nullptr, second = nullptr;
    EXPECT(cudaGraphAddMemcpyNode(&first, g, nullptr, 0, &to) == cudaSuccess);
    EXPECT(cudaGraphAddMemcpyNode(&second, g, &first, 1, &from) == cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    EXPECT(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
    EXPECT(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(nullptr) == cudaSuccess);
    EXPECT(out == in);
    from.extent = make_cudaExtent(w + 1, h, 1);  // past the array's row
    EXPECT(cudaGraphAddMemcpyNode(&second, g, nullptr, 0, &from) == cudaErrorInvalidValue);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(g);
    EXPECT(cudaFreeArray(a) == cudaSuccess);
    cudaGetLastError();
}

static void check_srgb() {
    // An sRGB texture: 8-bit color channels read through the sRGB curve to linear, alpha not.
    const int w = 64;
    std::vector<uchar4> px(w);
    for (int i = 0; i < w; ++i) px[i] = make_uchar4(i * 4, 255 - i * 4, i * 3, i * 2);
    cudaChannelFormatDesc f = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a = nullptr;
    EXPECT(cudaMallocArray(&a, &f, w, 1) == cudaSuccess);
    cudaMemcpy2DToArray(a, 0, 0, px.data(), w * 4, w * 4, 1, cudaMemcpyHostToDevice);
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaTextureDesc d{};
    d.readMode = cudaReadModeNormalizedFloat;
    d.sRGB = 1;
    cudaTextureObject_t t = 0;
    EXPECT(cudaCreateTextureObject(&t, &r, &d, nullptr) == cudaSuccess);
    std::vector<float2> c;
    for (int i = 0; i < w; ++i) c.push_back(make_float2(i + 0.5f, 0.5f));
    float2* dc = device_copy(c);
    float4* out = nullptr;
    cudaMalloc(&out, w * sizeof(float4));
    fetch2d_rgba<<<1, w>>>(t, dc, out, w);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float4> got = host_copy(out, w);
    auto linear = [](unsigned char v) {
        const float x = v / 255.0f;
        return x <= 0.04045f ? x / 12.92f : std::pow((x + 0.055f) / 1.055f, 2.4f);
    };
    int bad = 0;
    for (int i = 0; i < w; ++i)
        if (!(near(got[i].x, linear(px[i].x)) && near(got[i].y, linear(px[i].y)) && near(got[i].z, linear(px[i].z)) &&
              near(got[i].w, px[i].w / 255.0f)) &&
            !bad++)
            std::printf("sRGB texel %d: got %g %g %g %g\n", i, got[i].x, got[i].y, got[i].z, got[i].w);
    EXPECT(bad == 0);
    cudaDestroyTextureObject(t);
    cudaFreeArray(a);
    cudaFree(dc);
    cudaFree(out);
}

static void check_linear_and_pitched_memory() {
    // tex1Dfetch on linear memory: zeros outside it. tex2D on pitched memory.
    const int n = 20;
    std::vector<float> v(n);
    for (int i = 0; i < n; ++i) v[i] = pattern(i);
    float* dv = device_copy(v);
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeLinear;
    r.res.linear.devPtr = dv;
    r.res.linear.desc = cudaCreateChannelDesc<float>();
    r.res.linear.sizeInBytes = n * sizeof(float);
    cudaTextureDesc d{};
    cudaTextureObject_t t = 0;
    EXPECT(cudaCreateTextureObject(&t, &r, &d, nullptr) == cudaSuccess);
    float* out = nullptr;
    cudaMalloc(&out, (n + 4) * sizeof(float));
    fetch_linear_memory<<<1, n + 4>>>(t, out, n + 4);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float> got = host_copy(out, n + 4);
    for (int i = 0; i < n + 4; ++i) EXPECT(got[i] == (i - 2 >= 0 && i - 2 < n ? v[i - 2] : 0.0f));
    cudaDestroyTextureObject(t);

    const int w = 5, h = 4;
    float* pitched = nullptr;
    size_t pitch = 0;
    EXPECT(cudaMallocPitch(&pitched, &pitch, w * sizeof(float), h) == cudaSuccess);
    EXPECT(cudaMemcpy2D(pitched, pitch, v.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice) ==
           cudaSuccess);
    cudaResourceDesc p{};
    p.resType = cudaResourceTypePitch2D;
    p.res.pitch2D.devPtr = pitched;
    p.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    p.res.pitch2D.width = w;
    p.res.pitch2D.height = h;
    p.res.pitch2D.pitchInBytes = pitch;
    d.filterMode = cudaFilterModeLinear;
    EXPECT(cudaCreateTextureObject(&t, &p, &d, nullptr) == cudaSuccess);
    std::vector<float2> c = {{0.5f, 0.5f}, {1.25f, 2.75f}, {4.9f, 3.1f}, {-3, 9}};
    float2* dc = device_copy(c);
    fetch2d<<<1, 4>>>(t, dc, out, 4);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float> g2 = host_copy(out, 4);
    ref_texture rr{v.data(), {w, h, 1}, 2, {1, 1, 1}, true, false, 0};
    for (int i = 0; i < 4; ++i) {
        const float xy[2] = {c[i].x, c[i].y};
        EXPECT(near(g2[i], ref_fetch(rr, xy)));
    }
    cudaDestroyTextureObject(t);
    cudaFree(dc);
    cudaFree(pitched);
    cudaFree(out);
    cudaFree(dv);
}

static void check_layered_cubemap_and_gather() {
    const int w = 4, h = 3, layers = 3;
    std::vector<float> texels(w * h * layers);
    for (size_t i = 0; i < texels.size(); ++i) texels[i] = pattern(static_cast<int>(i) + 5);
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t layered = nullptr;
    EXPECT(cudaMalloc3DArray(&layered, &f, make_cudaExtent(w, h, layers), cudaArrayLayered) == cudaSuccess);
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(texels.data(), w * sizeof(float), w, h);
    p.dstArray = layered;
    p.extent = make_cudaExtent(w, h, layers);
    p.kind = cudaMemcpyHostToDevice;
    EXPECT(cudaMemcpy3D(&p) == cudaSuccess);
    std::vector<float2> c;
    for (int k = 0; k < 60; ++k)
        c.push_back(make_float2(-0.5f + 5.0f * (k % 10) / 9.0f, -0.5f + 4.0f * (k / 10) / 5.0f));
    float2* dc = device_copy(c);
    float* out = nullptr;
    cudaMalloc(&out, 256 * sizeof(float4));
    cudaTextureObject_t t = array_texture(layered, cudaAddressModeClamp, true, false);
    fetch_layered<<<1, 64>>>(t, dc, out, static_cast<int>(c.size()), layers);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<float> got = host_copy(out, c.size());
    int bad = 0;
    for (size_t i = 0; i < c.size(); ++i) {
        const int layer = static_cast<int>(i % layers);
        ref_texture r{texels.data() + layer * w * h, {w, h, 1}, 2, {1, 1, 1}, true, false, 0};
        const float xy[2] = {c[i].x, c[i].y};
        if (!near(got[i], ref_fetch(r, xy)) && !bad++)
            std::printf("layer %d (%g, %g): got %g, want %g\n", layer, xy[0], xy[1], got[i], ref_fetch(r, xy));
    }
    cudaDestroyTextureObject(t);

    // tex2Dgather of a 2D texture: the four texels of the bilinear footprint.
    cudaArray_t flat = nullptr;
    EXPECT(cudaMallocArray(&flat, &f, w, h, cudaArrayTextureGather) == cudaSuccess);
    cudaMemcpy2DToArray(flat, 0, 0, texels.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice);
    t = array_texture(flat, cudaAddressModeClamp, false, false);
    gather<<<1, 64>>>(t, dc, reinterpret_cast<float4*>(out), static_cast<int>(c.size()));
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float4> g = host_copy(reinterpret_cast<float4*>(out), c.size());
    auto texel = [&](long long x, long long y) {
        x = x < 0 ? 0 : x >= w ? w - 1 : x;
        y = y < 0 ? 0 : y >= h ? h - 1 : y;
        return texels[y * w + x];
    };
    for (size_t i = 0; i < c.size(); ++i) {
        const long long x = static_cast<long long>(std::floor(c[i].x - 0.5f)),
                        y = static_cast<long long>(std::floor(c[i].y - 0.5f));
        const float want[4] = {texel(x, y + 1), texel(x + 1, y + 1), texel(x + 1, y), texel(x, y)};
        if ((g[i].x != want[0] || g[i].y != want[1] || g[i].z != want[2] || g[i].w != want[3]) && !bad++)
            std::printf("gather (%g, %g): got %g %g %g %g\n", c[i].x, c[i].y, g[i].x, g[i].y, g[i].z, g[i].w);
    }
    cudaDestroyTextureObject(t);

    // Cubemaps: each face a constant 10 * face + its texel's index; directions that hit each
    // face's center and corners, and a layered cubemap's second layer.
    const int side = 2;
    std::vector<float> faces(side * side * 6 * 2);
    for (size_t i = 0; i < faces.size(); ++i) faces[i] = static_cast<float>(i);
    cudaArray_t cube = nullptr, cubes = nullptr;
    EXPECT(cudaMalloc3DArray(&cube, &f, make_cudaExtent(side, side, 6), cudaArrayCubemap) == cudaSuccess);
    EXPECT(cudaMalloc3DArray(&cubes, &f, make_cudaExtent(side, side, 12), cudaArrayCubemap | cudaArrayLayered) ==
           cudaSuccess);
    p = cudaMemcpy3DParms{};
    p.srcPtr = make_cudaPitchedPtr(faces.data(), side * sizeof(float), side, side);
    p.dstArray = cube;
    p.extent = make_cudaExtent(side, side, 6);
    p.kind = cudaMemcpyHostToDevice;
    EXPECT(cudaMemcpy3D(&p) == cudaSuccess);
    p.dstArray = cubes;
    p.extent = make_cudaExtent(side, side, 12);
    EXPECT(cudaMemcpy3D(&p) == cudaSuccess);
    // The guide's table: face, then (s, t) from the major axis m: +X (-z, -y), -X (z, -y), +Y (x, z),
    // -Y (x, -z), +Z (x, -y), -Z (-x, -y); texel (floor((s/|m| + 1) / 2 * side), likewise t).
    std::vector<float4> dirs;
    std::vector<float> want;
    const float q = 0.5f;  // a quarter of the way into the face from its center
    for (int face = 0; face < 6; ++face)
        for (int sx = 0; sx < 2; ++sx)
            for (int ty = 0; ty < 2; ++ty) {
                const float s = sx ? q : -q, tt = ty ? q : -q;
                float x = 0, y = 0, z = 0;
                switch (face) {
                case 0:
                    x = 1, z = -s, y = -tt;
                    break;
                case 1:
                    x = -1, z = s, y = -tt;
                    break;
                case 2:
                    y = 1, x = s, z = tt;
                    break;
                case 3:
                    y = -1, x = s, z = -tt;
                    break;
                case 4:
                    z = 1, x = s, y = -tt;
                    break;
                default:
                    z = -1, x = -s, y = -tt;
                    break;
                }
                dirs.push_back(make_float4(x, y, z, 0));
                want.push_back(static_cast<float>(face * side * side + ty * side + sx));
            }
    float4* dd = device_copy(dirs);
    t = array_texture(cube, cudaAddressModeClamp, false, true);
    fetch_cube<<<1, 64>>>(t, dd, out, static_cast<int>(dirs.size()));
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    got = host_copy(out, dirs.size());
    for (size_t i = 0; i < dirs.size(); ++i)
        if (got[i] != want[i] && !bad++)
            std::printf("cube (%g %g %g): got %g, want %g\n", dirs[i].x, dirs[i].y, dirs[i].z, got[i], want[i]);
    cudaDestroyTextureObject(t);
    t = array_texture(cubes, cudaAddressModeClamp, false, true);
    fetch_cube_layered<<<1, 64>>>(t, dd, out, static_cast<int>(dirs.size()));
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    got = host_copy(out, dirs.size());
    for (size_t i = 0; i < dirs.size(); ++i)
        if (got[i] != want[i] + 6 * side * side && !bad++)
            std::printf("cube layer 1 (%g %g %g): got %g\n", dirs[i].x, dirs[i].y, dirs[i].z, got[i]);
    EXPECT(bad == 0);
    cudaDestroyTextureObject(t);
    for (cudaArray_t a : {layered, flat, cube, cubes}) EXPECT(cudaFreeArray(a) == cudaSuccess);
    cudaFree(dd);
    cudaFree(dc);
    cudaFree(out);
}

static void check_surfaces() {
    const int w = 10, h = 3;
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t a = nullptr;
    EXPECT(cudaMallocArray(&a, &f, w, h, cudaArraySurfaceLoadStore) == cudaSuccess);
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaSurfaceObject_t s = 0;
    EXPECT(cudaCreateSurfaceObject(&s, &r) == cudaSuccess);
    surface_write2d<<<dim3(1, h), 32>>>(s, w, h);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<float> back(w * h);
    EXPECT(cudaMemcpy2DFromArray(back.data(), w * 4, a, 0, 0, w * 4, h, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) EXPECT(back[y * w + x] == float(x + 1000 * y));
    float* out = nullptr;
    cudaMalloc(&out, 3 * (w + 2) * sizeof(float));
    surface_read2d<<<1, w + 2>>>(s, out, w);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<float> got = host_copy(out, 3 * (w + 2));
    for (int x = 0; x < w + 2; ++x) {
        EXPECT(got[3 * x] == (x < w ? float(x + 1000) : 0.0f));
        EXPECT(got[3 * x + 1] == float((x < w ? x : w - 1) + 1000));
        if (x < w) EXPECT(got[3 * x + 2] == float(x + 1000) + 0.5f);
    }
    cudaResourceDesc rd{};
    EXPECT(cudaGetSurfaceObjectResourceDesc(&rd, s) == cudaSuccess && rd.res.array.array == a);
    // A trapping access out of range fails the launch.
    surface_trap<<<1, 1>>>(s, w);
    EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);  // sticky: the objects go with the process
}

static void check_surfaces_1d_3d_layered() {
    // uchar4 in 1D, short in 3D, int in a layered 2D array.
    const int w = 5, h = 3, d = 2;
    std::vector<uchar4> px(w);
    for (int i = 0; i < w; ++i) px[i] = make_uchar4(i, 2 * i, 3 * i, 4 * i);
    std::vector<short> vol(w * h * d);
    std::vector<int> lay(w * h * d);
    for (int i = 0; i < w * h * d; ++i) vol[i] = static_cast<short>(i - 7), lay[i] = i * 11;
    cudaChannelFormatDesc f4 = cudaCreateChannelDesc<uchar4>(), fs = cudaCreateChannelDesc<short>(),
                          fi = cudaCreateChannelDesc<int>();
    cudaArray_t a1, a3, al;
    EXPECT(cudaMallocArray(&a1, &f4, w, 0, cudaArraySurfaceLoadStore) == cudaSuccess);
    EXPECT(cudaMalloc3DArray(&a3, &fs, make_cudaExtent(w, h, d), cudaArraySurfaceLoadStore) == cudaSuccess);
    EXPECT(cudaMalloc3DArray(&al, &fi, make_cudaExtent(w, h, d), cudaArraySurfaceLoadStore | cudaArrayLayered) ==
           cudaSuccess);
    EXPECT(cudaMemcpyToArray(a1, 0, 0, px.data(), w * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    EXPECT(cudaMemcpyToArray(a3, 0, 0, vol.data(), vol.size() * 2, cudaMemcpyHostToDevice) == cudaSuccess);
    EXPECT(cudaMemcpyToArray(al, 0, 0, lay.data(), lay.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeArray;
    cudaSurfaceObject_t s1, s3, sl;
    r.res.array.array = a1;
    EXPECT(cudaCreateSurfaceObject(&s1, &r) == cudaSuccess);
    r.res.array.array = a3;
    EXPECT(cudaCreateSurfaceObject(&s3, &r) == cudaSuccess);
    r.res.array.array = al;
    EXPECT(cudaCreateSurfaceObject(&sl, &r) == cudaSuccess);
    surface_rgba<<<1, 32>>>(s1, w);
    surface_3d_and_layered<<<1, dim3(w, h, d)>>>(s3, sl, w, h, d);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<uchar4> px2(w);
    std::vector<short> vol2(vol.size());
    std::vector<int> lay2(lay.size());
    EXPECT(cudaMemcpyFromArray(px2.data(), a1, 0, 0, w * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(cudaMemcpyFromArray(vol2.data(), a3, 0, 0, vol.size() * 2, cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(cudaMemcpyFromArray(lay2.data(), al, 0, 0, lay.size() * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < w; ++i)
        EXPECT(px2[i].x == px[i].w && px2[i].y == px[i].z && px2[i].z == px[i].y && px2[i].w == px[i].x);
    for (int i = 0; i < w * h * d; ++i) {
        EXPECT(vol2[i] == static_cast<short>(vol[i] * 2));
        EXPECT(lay2[i] == lay[i] + i / (w * h));
    }
    // A cubemap surface: face f is layer f.
    const int side = 3;
    cudaChannelFormatDesc ff = cudaCreateChannelDesc<float>();
    cudaArray_t ac = nullptr;
    EXPECT(cudaMalloc3DArray(&ac, &ff, make_cudaExtent(side, side, 6), cudaArrayCubemap | cudaArraySurfaceLoadStore) ==
           cudaSuccess);
    cudaSurfaceObject_t sc = 0;
    r.res.array.array = ac;
    EXPECT(cudaCreateSurfaceObject(&sc, &r) == cudaSuccess);
    surface_cube<<<1, dim3(side, side, 6)>>>(sc, side);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<float> faces(side * side * 6);
    cudaMemcpy3DParms p{};
    p.srcArray = ac;
    p.dstPtr = make_cudaPitchedPtr(faces.data(), side * sizeof(float), side, side);
    p.extent = make_cudaExtent(side, side, 6);
    p.kind = cudaMemcpyDeviceToHost;
    EXPECT(cudaMemcpy3D(&p) == cudaSuccess);
    for (int f = 0; f < 6; ++f)
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x) EXPECT(faces[(f * side + y) * side + x] == float(100 * f + 10 * y + x));
    EXPECT(cudaDestroySurfaceObject(sc) == cudaSuccess);
    EXPECT(cudaFreeArray(ac) == cudaSuccess);
    for (cudaSurfaceObject_t s : {s1, s3, sl}) EXPECT(cudaDestroySurfaceObject(s) == cudaSuccess);
    for (cudaArray_t a : {a1, a3, al}) EXPECT(cudaFreeArray(a) == cudaSuccess);
}

int main() {
    check_1d_and_2d_modes();
    check_3d();
    check_read_modes_and_formats();
    check_srgb();
    check_graph_memcpy_nodes_on_arrays();
    check_1d_layered_across_a_barrier();
    check_linear_and_pitched_memory();
    check_layered_cubemap_and_gather();
    check_surfaces_1d_3d_layered();
    check_surfaces();  // last: its trapping launch leaves the context failed
    return verdict("textures");
}
