/* A fake libcuda for the loader tests: exports chosen cu* symbols returning chosen codes.
 * FAKE_INIT_RESULT: what cuInit returns. FAKE_OMIT_MEMALLOC_V2: leave cuMemAlloc_v2 out (the
 * legacy cuMemAlloc stays, so a loader that falls back to it would wrongly succeed). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#ifndef FAKE_INIT_RESULT
#define FAKE_INIT_RESULT 0
#endif

#define EXPORT __attribute__((visibility("default")))
typedef unsigned long long CUdeviceptr;
typedef struct {
    char bytes[16];
} CUuuid;

/* A log of the calls that matter to the backend tests ("cuMemAlloc_v2(1024);..."), read with
 * fake_cuda_calls() and cleared with fake_cuda_reset(). Not thread safe: tests call from one thread. */
static char g_calls[16384];
static size_t g_calls_len = 0;
static void record(const char* text) {
    size_t n = strlen(text);
    if (g_calls_len + n + 2 >= sizeof g_calls) return;
    memcpy(g_calls + g_calls_len, text, n);
    g_calls_len += n;
    g_calls[g_calls_len++] = ';';
    g_calls[g_calls_len] = '\0';
}
static void recordf(const char* name, unsigned long long a) {
    char buf[160];
    snprintf(buf, sizeof buf, "%s(%llu)", name, a);
    record(buf);
}
EXPORT const char* fake_cuda_calls(void) { return g_calls; }
EXPORT void fake_cuda_reset(void) {
    g_calls_len = 0;
    g_calls[0] = '\0';
}

EXPORT int cuInit(unsigned int flags) {
    (void)flags;
    return FAKE_INIT_RESULT;
}
EXPORT int cuDriverGetVersion(int* v) {
    *v = 13000;
    return 0;
}
EXPORT int cuDeviceGetCount(int* c) {
    *c = 2;
    return 0;
}
EXPORT int cuDeviceGet(int* d, int ordinal) {
    *d = ordinal;
    return 0;
}
EXPORT int cuDeviceGetName(char* name, int len, int dev) {
    (void)dev;
    strncpy(name, "Fake GPU", (size_t)len);
    return 0;
}
EXPORT int cuDeviceTotalMem_v2(size_t* bytes, int dev) {
    (void)dev;
    *bytes = (size_t)1 << 34;
    return 0;
}
EXPORT int cuDeviceTotalMem(unsigned int* bytes, int dev) {
    (void)dev;
    *bytes = 1;
    return 999;
}
/* Every attribute reads as its own number, except the compute capability (8.9). */
EXPORT int cuDeviceGetAttribute(int* pi, int attr, int dev) {
    (void)dev;
    *pi = attr == 75 ? 8 : attr == 76 ? 9 : attr;
    return 0;
}
EXPORT int cuDeviceGetUuid_v2(CUuuid* u, int dev) {
    (void)dev;
    memset(u, 0xab, sizeof *u);
    return 0;
}
EXPORT int cuDevicePrimaryCtxRetain(void** ctx, int dev) {
    (void)dev;
    *ctx = (void*)0x1;
    return 0;
}
EXPORT int cuDevicePrimaryCtxRelease_v2(int dev) {
    (void)dev;
    return 0;
}
EXPORT int cuCtxSetCurrent(void* ctx) {
    (void)ctx;
    return 0;
}
EXPORT int cuCtxSynchronize(void) { return 0; }
#ifndef FAKE_OMIT_MEMALLOC_V2
EXPORT int cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
    if (n > ((size_t)1 << 34)) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    *p = 0xD000;
    recordf("cuMemAlloc_v2", (unsigned long long)n);
    return 0;
}
#endif
EXPORT int cuMemAlloc(unsigned int* p, unsigned int n) {
    (void)n;
    *p = 0xBAD;
    return 999;
}
EXPORT int cuMemFree_v2(CUdeviceptr p) {
    recordf("cuMemFree_v2", p);
    return 0;
}
EXPORT int cuMemcpyHtoD_v2(CUdeviceptr d, const void* s, size_t n) {
    (void)d;
    (void)s;
    recordf("cuMemcpyHtoD_v2", n);
    return 0;
}
EXPORT int cuMemcpyDtoH_v2(void* d, CUdeviceptr s, size_t n) {
    (void)d;
    (void)s;
    recordf("cuMemcpyDtoH_v2", n);
    return 0;
}
EXPORT int cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) {
    (void)d;
    (void)s;
    recordf("cuMemcpyDtoD_v2", n);
    return 0;
}
EXPORT int cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) {
    (void)d;
    (void)v;
    recordf("cuMemsetD8_v2", n);
    return 0;
}
EXPORT int cuMemGetInfo_v2(size_t* f, size_t* t) {
    *f = 100;
    *t = 200;
    return 0;
}
EXPORT int cuStreamCreate(void** s, unsigned int f) {
    (void)f;
    *s = (void*)0x2;
    return 0;
}
EXPORT int cuStreamDestroy_v2(void* s) {
    (void)s;
    return 0;
}
EXPORT int cuStreamSynchronize(void* s) {
    (void)s;
    return 0;
}
EXPORT int cuEventCreate(void** e, unsigned int f) {
    (void)f;
    *e = (void*)0x3;
    return 0;
}
EXPORT int cuEventDestroy_v2(void* e) {
    (void)e;
    return 0;
}
EXPORT int cuEventRecord(void* e, void* s) {
    (void)e;
    (void)s;
    return 0;
}
EXPORT int cuEventSynchronize(void* e) {
    (void)e;
    return 0;
}
/* Only the pre-13 name: the loader must fall back to it (same ABI). */
EXPORT int cuEventElapsedTime(float* ms, void* a, void* b) {
    (void)a;
    (void)b;
    *ms = 1.5f;
    return 0;
}
EXPORT int cuModuleLoadData(void** m, const void* img) {
    (void)img;
    *m = (void*)0x4;
    return 0;
}
EXPORT int cuModuleUnload(void* m) {
    (void)m;
    return 0;
}
EXPORT int cuModuleGetFunction(void** f, void* m, const char* n) {
    char buf[160];
    (void)m;
    snprintf(buf, sizeof buf, "cuModuleGetFunction(%s)", n);
    record(buf);
    *f = (void*)0x5;
    return 0;
}
EXPORT int cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned sm, void* s, void** p, void** e) {
    char buf[160];
    (void)f;
    (void)gy;
    (void)gz;
    (void)by;
    (void)bz;
    (void)sm;
    (void)s;
    (void)p;
    (void)e;
    snprintf(buf, sizeof buf, "cuLaunchKernel(%u,%u)", gx, bx);
    record(buf);
    return 0;
}
EXPORT int cuGetErrorName(int err, const char** s) {
    if (err == 2) {
        *s = "CUDA_ERROR_OUT_OF_MEMORY";
        return 0;
    }
    *s = NULL;
    return 1;
}
EXPORT int cuGetErrorString(int err, const char** s) {
    if (err == 2) {
        *s = "out of memory";
        return 0;
    }
    *s = NULL;
    return 1;
}

/* Entry points added for the kernel-driver backend. */
EXPORT int cuDeviceGetPCIBusId(char* bus, int len, int dev) {
    snprintf(bus, (size_t)len, "0000:%02x:00.0", dev + 1);
    return 0;
}
EXPORT int cuCtxGetDevice(int* dev) {
    *dev = 0;
    return 0;
}
static char g_pinned[4096];
EXPORT int cuMemHostAlloc(void** p, size_t n, unsigned int flags) {
    (void)flags;
    if (n > sizeof g_pinned) return 2;
    *p = g_pinned;
    return 0;
}
EXPORT int cuMemFreeHost(void* p) {
    (void)p;
    return 0;
}
EXPORT int cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void* s, size_t n, void* st) {
    (void)d;
    (void)s;
    (void)st;
    recordf("cuMemcpyHtoDAsync_v2", n);
    return 0;
}
EXPORT int cuMemcpyDtoHAsync_v2(void* d, CUdeviceptr s, size_t n, void* st) {
    (void)d;
    (void)s;
    (void)st;
    recordf("cuMemcpyDtoHAsync_v2", n);
    return 0;
}
EXPORT int cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void* st) {
    (void)d;
    (void)s;
    (void)st;
    recordf("cuMemcpyDtoDAsync_v2", n);
    return 0;
}
/* The legacy (pre-_v2) async copy: a loader that binds it would record the wrong name. */
EXPORT int cuMemcpyHtoDAsync(unsigned int d, const void* s, unsigned int n, void* st) {
    (void)d;
    (void)s;
    (void)st;
    recordf("cuMemcpyHtoDAsync", n);
    return 999;
}
EXPORT int cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void* st) {
    (void)d;
    (void)v;
    (void)st;
    recordf("cuMemsetD8Async", n);
    return 0;
}
/* Every address is inside one huge allocation; the legacy 32-bit export answers wrongly. */
EXPORT int cuMemGetAddressRange_v2(CUdeviceptr* base, size_t* size, CUdeviceptr p) {
    (void)p;
    *base = 0;
    *size = ~(size_t)0;
    return 0;
}
EXPORT int cuMemGetAddressRange(unsigned int* base, unsigned int* size, unsigned int p) {
    (void)p;
    *base = 0;
    *size = 0;
    return 999;
}
EXPORT int cuStreamQuery(void* s) {
    (void)s;
    return 0;
}
EXPORT int cuEventQuery(void* e) {
    (void)e;
    return 600; /* CUDA_ERROR_NOT_READY */
}
EXPORT int cuModuleLoadDataEx(void** m, const void* img, unsigned int n, int* opts, void** vals) {
    (void)img;
    (void)n;
    (void)opts;
    (void)vals;
    record("cuModuleLoadDataEx");
    *m = (void*)0x6;
    return 0;
}
/* Optional (CUDA 12.4): three 8-byte parameters. */
EXPORT int cuFuncGetParamInfo(void* f, size_t index, size_t* offset, size_t* size) {
    (void)f;
    if (index >= 3) return 1;
    *offset = index * 8;
    *size = 8;
    return 0;
}

/* ABI 1.3: pinned host memory and cross-stream waits. One registration at a time is all the tests
 * need: an overlapping one answers CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED (712), an unknown
 * pointer CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED (713). */
static const char* g_registered = NULL;
static size_t g_registered_size = 0;
EXPORT int cuMemHostRegister_v2(void* p, size_t n, unsigned int flags) {
    char buf[160];
    const char* c = (const char*)p;
    snprintf(buf, sizeof buf, "cuMemHostRegister_v2(%zu,%u)", n, flags);
    record(buf);
    if (g_registered != NULL && c < g_registered + g_registered_size && g_registered < c + n) return 712;
    g_registered = c;
    g_registered_size = n;
    return 0;
}
EXPORT int cuMemHostUnregister(void* p) {
    record("cuMemHostUnregister");
    if (p == NULL || (const char*)p != g_registered) return 713;
    g_registered = NULL;
    g_registered_size = 0;
    return 0;
}
#ifndef FAKE_OMIT_MANAGED
/* Managed memory and the device address of registered memory (ABI 1.9): the registered range's
 * device address is its host address (unified addressing); anything else is not registered. */
EXPORT int cuMemAllocManaged(CUdeviceptr* p, size_t n, unsigned int flags) {
    char buf[160];
    snprintf(buf, sizeof buf, "cuMemAllocManaged(%zu,%u)", n, flags);
    record(buf);
    *p = 0xE000;
    return 0;
}
EXPORT int cuMemHostGetDevicePointer_v2(CUdeviceptr* d, void* p, unsigned int flags) {
    recordf("cuMemHostGetDevicePointer_v2", flags);
    const char* c = (const char*)p;
    if (g_registered == NULL || c < g_registered || c >= g_registered + g_registered_size) return 1;
    *d = (CUdeviceptr)(size_t)p;
    return 0;
}
#endif
EXPORT int cuStreamWaitEvent(void* s, void* e, unsigned int flags) {
    (void)s;
    (void)e;
    recordf("cuStreamWaitEvent", flags);
    return 0;
}
