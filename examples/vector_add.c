/* vector_add: the original CudaBridge README's C example (c = a + b) done for real.
 * Usage: vector_add [N]        (N floats per vector, default 1048576)
 *
 * 1. c = a + b with the built-in "add" kernel on a stream: upload, launch, download, each timed
 *    by events, then every element checked against the sum computed here on the CPU.
 * 2. A user kernel, "scale" (c *= 3): one CUDA kernel (kernels/scale.cu), loaded as the PTX nvcc
 *    emitted for it (kernels/scale.ptx, embedded at build time) with cbModuleLoadData(...,
 *    CB_MODULE_PTX) and launched over a grid of 256-thread blocks. The same PTX runs on the
 *    simulated GPU's PTX engine and on a real NVIDIA GPU.
 */
#include "example_check.h"
#include "scale_ptx.h" /* scale_ptx[]: kernels/scale.ptx as text */

#include <cudabridge.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_N (1u << 20)
#define MAX_N (1u << 28)
#define SCALE_BLOCK 256u
#define SCALE_FACTOR 3.0

/* ---- helpers -------------------------------------------------------------------------------- */

static unsigned parse_count(int argc, char** argv) {
    if (argc < 2) return DEFAULT_N;
    char* end = NULL;
    errno = 0;
    const unsigned long n = strtoul(argv[1], &end, 10);
    if (errno || end == argv[1] || *end || n == 0 || n > MAX_N || argv[1][0] == '-') {
        fprintf(stderr, "usage: %s [N]   (1 <= N <= %u floats per vector)\n", argv[0], MAX_N);
        exit(2);
    }
    return (unsigned)n;
}

static void* host_alloc(size_t bytes) {
    void* p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "error: out of host memory (%zu bytes)\n", bytes);
        cbShutdown();
        exit(EXIT_FAILURE);
    }
    return p;
}

static float elapsed_ms(cbEvent_t from, cbEvent_t to) {
    float ms = 0.0f;
    CB_CHECK(cbEventElapsedTime(&ms, from, to));
    return ms;
}

/* Elements where got differs from want (bit-exact: both sides round one IEEE operation). */
static size_t count_mismatches(const float* got, const float* want, size_t n, size_t* first_bad) {
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (got[i] != want[i]) {
            if (bad == 0) *first_bad = i;
            ++bad;
        }
    }
    return bad;
}

static int report(const char* what, const float* got, const float* want, size_t n) {
    size_t first = 0;
    const size_t bad = count_mismatches(got, want, n, &first);
    if (bad == 0) {
        printf("%s: PASS (%zu elements match the CPU result)\n", what, n);
        return 1;
    }
    printf("%s: FAIL (%zu of %zu elements differ; first at [%zu]: got %.9g, expected %.9g)\n", what, bad, n, first,
           (double)got[first], (double)want[first]);
    return 0;
}

/* ---- part 1: the built-in add --------------------------------------------------------------- */

static int run_builtin_add(const cbDeviceProp* prop, unsigned n, float* d_a, float* d_b, float* d_c, float* h_c,
                           const float* h_a, const float* h_b, const float* expected, cbStream_t stream) {
    const size_t bytes = (size_t)n * sizeof(float);
    cbEvent_t ev[4];
    for (int i = 0; i < 4; ++i) CB_CHECK(cbEventCreate(&ev[i]));

    const cbTensor a = cbTensor1D(d_a, CB_DTYPE_FLOAT32, n);
    const cbTensor b = cbTensor1D(d_b, CB_DTYPE_FLOAT32, n);
    const cbTensor c = cbTensor1D(d_c, CB_DTYPE_FLOAT32, n);
    const cbKernelArg args[3] = {cbArgTensor(&a), cbArgTensor(&b), cbArgTensor(&c)};

    CB_CHECK(cbEventRecord(ev[0], stream));
    CB_CHECK(cbMemcpyAsync(d_a, h_a, bytes, cbMemcpyHostToDevice, stream));
    CB_CHECK(cbMemcpyAsync(d_b, h_b, bytes, cbMemcpyHostToDevice, stream));
    CB_CHECK(cbEventRecord(ev[1], stream));
    CB_CHECK(cbLaunchBuiltin("add", CB_DTYPE_FLOAT32, args, 3, stream));
    CB_CHECK(cbEventRecord(ev[2], stream));
    CB_CHECK(cbMemcpyAsync(h_c, d_c, bytes, cbMemcpyDeviceToHost, stream));
    CB_CHECK(cbEventRecord(ev[3], stream));
    CB_CHECK(cbStreamSynchronize(stream));

    printf("Times (%s, from cbEvent timing):\n", example_figures_label(prop));
    printf("  upload a and b:   %9.3f ms\n", (double)elapsed_ms(ev[0], ev[1]));
    printf("  add kernel:       %9.3f ms\n", (double)elapsed_ms(ev[1], ev[2]));
    printf("  download c:       %9.3f ms\n", (double)elapsed_ms(ev[2], ev[3]));
    printf("  total:            %9.3f ms\n", (double)elapsed_ms(ev[0], ev[3]));
    for (int i = 0; i < 4; ++i) CB_CHECK(cbEventDestroy(ev[i]));
    return report("vector add (built-in \"add\")", h_c, expected, n);
}

/* ---- part 2: a user kernel ------------------------------------------------------------------ */

/* Returns 1 when it passed or could not run here (said why), 0 when the result was wrong. */
static int run_user_kernel(const cbDeviceProp* prop, unsigned n, float* d_c, float* h_c, float* expected,
                           cbStream_t stream) {
    cbModule_t m = NULL;
    const cbError_t loaded = cbModuleLoadData(&m, scale_ptx, sizeof scale_ptx, CB_MODULE_PTX);
    if (loaded == cbErrorNotSupported) {
        /* The userspace driver on real hardware runs built-in kernels only. */
        printf("user kernel: not available on this %s GPU (%s)\n", prop->backend, cbGetLastErrorMessage());
        (void)cbGetLastError(); /* handled: clear it */
        return 1;
    }
    CB_CHECK(loaded);

    const cbDim3 block = {SCALE_BLOCK, 1, 1};
    const cbDim3 grid = {(n + SCALE_BLOCK - 1) / SCALE_BLOCK, 1, 1};
    /* scale(float* x, unsigned int n, double factor) */
    const cbKernelArg args[3] = {cbArgPointer(d_c), cbArgUInt(n), cbArgDouble(SCALE_FACTOR)};
    cbEvent_t start, stop;
    CB_CHECK(cbEventCreate(&start));
    CB_CHECK(cbEventCreate(&stop));
    CB_CHECK(cbEventRecord(start, stream));
    CB_CHECK(cbLaunchKernel("scale", grid, block, args, 3, 0, stream));
    CB_CHECK(cbEventRecord(stop, stream));
    CB_CHECK(cbMemcpyAsync(h_c, d_c, (size_t)n * sizeof(float), cbMemcpyDeviceToHost, stream));
    CB_CHECK(cbStreamSynchronize(stream));
    printf("user kernel \"scale\" (%u blocks x %u threads): %.3f ms (%s)\n", grid.x, block.x,
           (double)elapsed_ms(start, stop), example_figures_label(prop));
    CB_CHECK(cbEventDestroy(start));
    CB_CHECK(cbEventDestroy(stop));
    CB_CHECK(cbModuleUnload(m));

    for (unsigned i = 0; i < n; ++i) expected[i] = (float)(expected[i] * SCALE_FACTOR);
    return report("user kernel (c *= 3)", h_c, expected, n);
}

int main(int argc, char** argv) {
    const unsigned n = parse_count(argc, argv);
    const size_t bytes = (size_t)n * sizeof(float);

    CB_CHECK(cbInit());
    int count = 0;
    CB_CHECK(cbGetDeviceCount(&count));
    CB_CHECK(cbSetDevice(0));
    cbDeviceProp prop;
    CB_CHECK(cbGetDeviceProperties(&prop, 0));
    printf("Device 0: %s over %s (%s)\n", prop.name, prop.linkName,
           prop.isSimulated ? "simulated: times are modeled" : "hardware: times are measured");
    printf("Vectors: %u float32 elements (%.2f MiB each)\n", n, (double)bytes / (1024.0 * 1024.0));

    float* h_a = host_alloc(bytes);
    float* h_b = host_alloc(bytes);
    float* h_c = host_alloc(bytes);
    float* expected = host_alloc(bytes);
    for (unsigned i = 0; i < n; ++i) {
        h_a[i] = (float)(i % 1000) * 0.5f;
        h_b[i] = 1.0f / (float)(1 + i % 7);
        expected[i] = h_a[i] + h_b[i];
    }
    memset(h_c, 0, bytes);

    float *d_a = NULL, *d_b = NULL, *d_c = NULL;
    CB_CHECK(cbMalloc((void**)&d_a, bytes));
    CB_CHECK(cbMalloc((void**)&d_b, bytes));
    CB_CHECK(cbMalloc((void**)&d_c, bytes));
    cbStream_t stream;
    CB_CHECK(cbStreamCreate(&stream));

    int ok = run_builtin_add(&prop, n, d_a, d_b, d_c, h_c, h_a, h_b, expected, stream);
    if (ok) ok = run_user_kernel(&prop, n, d_c, h_c, expected, stream);

    CB_CHECK(cbStreamDestroy(stream));
    CB_CHECK(cbFree(d_a));
    CB_CHECK(cbFree(d_b));
    CB_CHECK(cbFree(d_c));
    free(h_a);
    free(h_b);
    free(h_c);
    free(expected);
    CB_CHECK(cbShutdown());
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
