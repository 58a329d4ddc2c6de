/* A fake libnvidia-ml for the NVML loader and telemetry tests. FAKE_NVML_INIT_RESULT: what
 * nvmlInit_v2 returns. Setting the power limit answers NO_PERMISSION (as for a non-root user). */
#include <stddef.h>
#include <string.h>

#ifndef FAKE_NVML_INIT_RESULT
#define FAKE_NVML_INIT_RESULT 0
#endif

#define EXPORT __attribute__((visibility("default")))
typedef void* nvmlDevice_t;
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
    unsigned int gpu, memory;
} nvmlUtilization_t;

static int g_init_count = 0;
EXPORT int fake_nvml_init_count(void) { return g_init_count; }

EXPORT int nvmlInit_v2(void) {
    ++g_init_count;
    return FAKE_NVML_INIT_RESULT;
}
EXPORT int nvmlShutdown(void) {
    --g_init_count;
    return 0;
}
EXPORT const char* nvmlErrorString(int r) { return r == 4 ? "Insufficient Permissions" : "Fake error"; }
EXPORT int nvmlDeviceGetCount_v2(unsigned int* c) {
    *c = 1;
    return 0;
}
EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t* d) {
    if (i != 0) return 2;
    *d = (nvmlDevice_t)0x10;
    return 0;
}
EXPORT int nvmlDeviceGetName(nvmlDevice_t d, char* n, unsigned int len) {
    (void)d;
    strncpy(n, "Fake GPU", len);
    return 0;
}
EXPORT int nvmlDeviceGetTemperature(nvmlDevice_t d, int s, unsigned int* t) {
    (void)d;
    if (s != 0) return 2;
    *t = 65;
    return 0;
}
EXPORT int nvmlDeviceGetTemperatureThreshold(nvmlDevice_t d, int s, unsigned int* t) {
    (void)d;
    *t = 80u + (unsigned)s;
    return 0;
}
EXPORT int nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int* p) {
    (void)d;
    *p = 250500;
    return 0;
}
EXPORT int nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int* p) {
    (void)d;
    *p = 300000;
    return 0;
}
EXPORT int nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t d, unsigned int* lo, unsigned int* hi) {
    (void)d;
    *lo = 100000;
    *hi = 350000;
    return 0;
}
/* No fan readout on this board (like passively cooled data-centre GPUs). */
EXPORT int nvmlDeviceGetFanSpeed(nvmlDevice_t d, unsigned int* s) {
    (void)d;
    (void)s;
    return 3;
}
EXPORT int nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int* mhz) {
    (void)d;
    if (type == 1)
        *mhz = 1800;
    else if (type == 2)
        *mhz = 9501;
    else
        *mhz = 1;
    return 0;
}
EXPORT int nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) {
    (void)d;
    u->gpu = 75;
    u->memory = 30;
    return 0;
}
EXPORT int nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
    (void)d;
    m->total = 24ull << 30;
    m->used = 1ull << 30;
    m->free = m->total - m->used;
    return 0;
}
EXPORT int nvmlDeviceGetPerformanceState(nvmlDevice_t d, int* p) {
    (void)d;
    *p = 2;
    return 0;
}
EXPORT int nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int* g) {
    (void)d;
    *g = 4;
    return 0;
}
EXPORT int nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int* w) {
    (void)d;
    *w = 16;
    return 0;
}
EXPORT int nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d, unsigned int* r) {
    (void)d;
    *r = 0;
    return 0;
}
/* Only the pre-12.2 name: the loader must fall back to it. SwPowerCap | DisplayClockSetting. */
EXPORT int nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long* r) {
    (void)d;
    *r = 0x4 | 0x100;
    return 0;
}
EXPORT int nvmlDeviceSetPowerManagementLimit(nvmlDevice_t d, unsigned int mw) {
    (void)d;
    (void)mw;
    return 4;
}
EXPORT int nvmlDeviceSetGpuLockedClocks(nvmlDevice_t d, unsigned int lo, unsigned int hi) {
    (void)d;
    (void)lo;
    (void)hi;
    return 0;
}
/* nvmlDeviceResetGpuLockedClocks deliberately absent: an optional entry point. */

/* Entry points added for the kernel-driver backend: one RTX 4090-like board without fans. */
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;
EXPORT int nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* d) {
    /* The fake libcuda's UUID is 16 bytes of 0xab. */
    if (strcmp(uuid, "GPU-abababab-abab-abab-abab-abababababab") != 0) return 6; /* NOT_FOUND */
    *d = (nvmlDevice_t)0x10;
    return 0;
}
EXPORT int nvmlDeviceGetIndex(nvmlDevice_t d, unsigned int* i) {
    (void)d;
    *i = 0;
    return 0;
}
EXPORT int nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* p) {
    (void)d;
    memset(p, 0, sizeof *p);
    p->bus = 1;
    p->pciDeviceId = 0x268410DEu;
    p->pciSubSystemId = 0x16F310DEu;
    strcpy(p->busId, "00000000:01:00.0");
    return 0;
}
EXPORT int nvmlDeviceGetPowerManagementLimit(nvmlDevice_t d, unsigned int* p) {
    (void)d;
    *p = 300000;
    return 0;
}
EXPORT int nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t d, unsigned int* p) {
    (void)d;
    *p = 320000;
    return 0;
}
EXPORT int nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned int* mhz) {
    (void)d;
    *mhz = type == 2 ? 10501 : 2520;
    return 0;
}
EXPORT int nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int* g) {
    (void)d;
    *g = 4;
    return 0;
}
EXPORT int nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int* w) {
    (void)d;
    *w = 16;
    return 0;
}
EXPORT int nvmlDeviceGetPcieThroughput(nvmlDevice_t d, int counter, unsigned int* kbps) {
    (void)d;
    *kbps = counter == 0 ? 1000 : 2000;
    return 0;
}
EXPORT int nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long* mj) {
    (void)d;
    *mj = 123456;
    return 0;
}
EXPORT int nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter, unsigned long long* n) {
    (void)d;
    (void)type;
    (void)counter;
    (void)n;
    return 3; /* a GeForce: no ECC */
}
EXPORT int nvmlDeviceGetNumFans(nvmlDevice_t d, unsigned int* n) {
    (void)d;
    *n = 0;
    return 0;
}
EXPORT int nvmlDeviceGetSupportedMemoryClocks(nvmlDevice_t d, unsigned int* count, unsigned int* clocks) {
    (void)d;
    if (*count < 2) {
        *count = 2;
        return 7;
    }
    clocks[0] = 10501;
    clocks[1] = 405;
    *count = 2;
    return 0;
}
EXPORT int nvmlDeviceGetSupportedGraphicsClocks(nvmlDevice_t d, unsigned int mem, unsigned int* count,
                                                unsigned int* clocks) {
    (void)d;
    if (mem != 10501) return 2;
    if (*count < 3) {
        *count = 3;
        return 7;
    }
    clocks[0] = 2520;
    clocks[1] = 1500;
    clocks[2] = 210;
    *count = 3;
    return 0;
}
/* Like a non-root caller: every change is refused. */
EXPORT int nvmlDeviceSetMemoryLockedClocks(nvmlDevice_t d, unsigned int lo, unsigned int hi) {
    (void)d;
    (void)lo;
    (void)hi;
    return 4;
}
EXPORT int nvmlDeviceResetMemoryLockedClocks(nvmlDevice_t d) {
    (void)d;
    return 4;
}

/* Two compute processes: the caller (512 MiB) and a pid that does not exist here, whose memory
 * NVML does not know. A list shorter than that answers INSUFFICIENT_SIZE with the count needed. */
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;
extern int getpid(void);
EXPORT int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int* count, nvmlProcessInfo_t* infos) {
    (void)d;
    if (*count < 2) {
        *count = 2;
        return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    }
    infos[0].pid = (unsigned int)getpid();
    infos[0].usedGpuMemory = 512ull << 20;
    infos[1].pid = 999999999u;
    infos[1].usedGpuMemory = ~0ull; /* NVML_VALUE_NOT_AVAILABLE */
    infos[0].gpuInstanceId = infos[1].gpuInstanceId = ~0u;
    infos[0].computeInstanceId = infos[1].computeInstanceId = ~0u;
    *count = 2;
    return 0;
}
