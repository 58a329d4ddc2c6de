/* A fake libcuda for the loader tests: exports chosen cu* symbols returning chosen codes.
 * FAKE_INIT_RESULT: what cuInit returns. FAKE_OMIT_MEMALLOC_V2: leave cuMemAlloc_v2 out (the
 * legacy cuMemAlloc stays, so a loader that falls back to it would wrongly succeed). */
#include <stddef.h>
#include <string.h>

#ifndef FAKE_INIT_RESULT
#define FAKE_INIT_RESULT 0
#endif

#define EXPORT __attribute__((visibility("default")))
typedef unsigned long long CUdeviceptr;
typedef struct { char bytes[16]; } CUuuid;

EXPORT int cuInit(unsigned int flags) { (void)flags; return FAKE_INIT_RESULT; }
EXPORT int cuDriverGetVersion(int* v) { *v = 13000; return 0; }
EXPORT int cuDeviceGetCount(int* c) { *c = 2; return 0; }
EXPORT int cuDeviceGet(int* d, int ordinal) { *d = ordinal; return 0; }
EXPORT int cuDeviceGetName(char* name, int len, int dev) {
    (void)dev;
    strncpy(name, "Fake GPU", (size_t)len);
    return 0;
}
EXPORT int cuDeviceTotalMem_v2(size_t* bytes, int dev) { (void)dev; *bytes = (size_t)1 << 34; return 0; }
EXPORT int cuDeviceTotalMem(unsigned int* bytes, int dev) { (void)dev; *bytes = 1; return 999; }
EXPORT int cuDeviceGetAttribute(int* pi, int attr, int dev) { (void)dev; *pi = attr; return 0; }
EXPORT int cuDeviceGetUuid_v2(CUuuid* u, int dev) { (void)dev; memset(u, 0xab, sizeof *u); return 0; }
EXPORT int cuDevicePrimaryCtxRetain(void** ctx, int dev) { (void)dev; *ctx = (void*)0x1; return 0; }
EXPORT int cuDevicePrimaryCtxRelease_v2(int dev) { (void)dev; return 0; }
EXPORT int cuCtxSetCurrent(void* ctx) { (void)ctx; return 0; }
EXPORT int cuCtxSynchronize(void) { return 0; }
#ifndef FAKE_OMIT_MEMALLOC_V2
EXPORT int cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
    if (n > ((size_t)1 << 34)) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    *p = 0xD000;
    return 0;
}
#endif
EXPORT int cuMemAlloc(unsigned int* p, unsigned int n) { (void)n; *p = 0xBAD; return 999; }
EXPORT int cuMemFree_v2(CUdeviceptr p) { (void)p; return 0; }
EXPORT int cuMemcpyHtoD_v2(CUdeviceptr d, const void* s, size_t n) { (void)d; (void)s; (void)n; return 0; }
EXPORT int cuMemcpyDtoH_v2(void* d, CUdeviceptr s, size_t n) { (void)d; (void)s; (void)n; return 0; }
EXPORT int cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { (void)d; (void)s; (void)n; return 0; }
EXPORT int cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { (void)d; (void)v; (void)n; return 0; }
EXPORT int cuMemGetInfo_v2(size_t* f, size_t* t) { *f = 100; *t = 200; return 0; }
EXPORT int cuStreamCreate(void** s, unsigned int f) { (void)f; *s = (void*)0x2; return 0; }
EXPORT int cuStreamDestroy_v2(void* s) { (void)s; return 0; }
EXPORT int cuStreamSynchronize(void* s) { (void)s; return 0; }
EXPORT int cuEventCreate(void** e, unsigned int f) { (void)f; *e = (void*)0x3; return 0; }
EXPORT int cuEventDestroy_v2(void* e) { (void)e; return 0; }
EXPORT int cuEventRecord(void* e, void* s) { (void)e; (void)s; return 0; }
EXPORT int cuEventSynchronize(void* e) { (void)e; return 0; }
/* Only the pre-13 name: the loader must fall back to it (same ABI). */
EXPORT int cuEventElapsedTime(float* ms, void* a, void* b) { (void)a; (void)b; *ms = 1.5f; return 0; }
EXPORT int cuModuleLoadData(void** m, const void* img) { (void)img; *m = (void*)0x4; return 0; }
EXPORT int cuModuleUnload(void* m) { (void)m; return 0; }
EXPORT int cuModuleGetFunction(void** f, void* m, const char* n) { (void)m; (void)n; *f = (void*)0x5; return 0; }
EXPORT int cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                          unsigned bz, unsigned sm, void* s, void** p, void** e) {
    (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)sm; (void)s; (void)p; (void)e;
    return 0;
}
EXPORT int cuGetErrorName(int err, const char** s) {
    if (err == 2) { *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0; }
    *s = NULL;
    return 1;
}
EXPORT int cuGetErrorString(int err, const char** s) {
    if (err == 2) { *s = "out of memory"; return 0; }
    *s = NULL;
    return 1;
}
