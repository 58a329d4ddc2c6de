/* CudaBridge plugin ABI: versions, export macro, status codes, struct-size checks.
 *
 * Everything under sdk/include/cudabridge/ is pure C (C11 and C++20 clean) and is the only thing a
 * plugin may include. Rules (see sdk/docs/abi-stability.md):
 *   - every table and record starts with `uint32_t struct_size`;
 *   - tables only grow at the end, each appended block commented with the ABI version that added it;
 *   - a caller tests CB_HAS_FIELD before touching a field that an older peer may lack.
 */
#ifndef CUDABRIDGE_ABI_H
#define CUDABRIDGE_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI this header describes. Major changes break; minor changes only append. */
#define CB_ABI_MAJOR 1
#define CB_ABI_MINOR 17

/* Plugin version numbers: major.minor.patch packed into 32 bits for ordering. */
#define CB_MAKE_VERSION(major, minor, patch) \
    ((uint32_t)(((uint32_t)(major) << 22) | ((uint32_t)(minor) << 12) | (uint32_t)(patch)))
#define CB_VERSION_MAJOR(v) ((uint32_t)(v) >> 22)
#define CB_VERSION_MINOR(v) (((uint32_t)(v) >> 12) & 0x3ffu)
#define CB_VERSION_PATCH(v) ((uint32_t)(v)&0xfffu)

#if defined(_WIN32)
#define CB_PLUGIN_EXPORT __declspec(dllexport)
#else
#define CB_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* The runtime's C API, as libcudabridge.so exports it (cudabridge.h, egpu_safety.h, cb_log.h):
 * the library is built with hidden visibility, and only what CB_API marks leaves it. */
#if defined(__GNUC__) || defined(__clang__)
#define CB_API __attribute__((visibility("default")))
#else
#define CB_API
#endif

/* True when `ptr` (a pointer to a struct starting with struct_size) is large enough to hold
 * `field` and the field is set. Use it before every optional call into a peer's table. */
#define CB_HAS_FIELD(ptr, type, field) \
    ((ptr) != NULL && (ptr)->struct_size >= offsetof(type, field) + sizeof((ptr)->field) && !!((ptr)->field))

/* Only the size test, for plain data fields where zero is a valid value. */
#define CB_HAS_MEMBER(ptr, type, field) \
    ((ptr) != NULL && (ptr)->struct_size >= offsetof(type, field) + sizeof((ptr)->field))

/* The size of `type` up to the end of `field`. The frozen ABI 1.0 sizes (CB_*_SIZE_1_0, beside
 * each table and descriptor) are written with it: the smallest struct_size an ABI 1.0 peer sends,
 * which stays the same however much the struct grows later. */
#define CB_SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(((type*)0)->field))

/* Status codes. Zero is success; every failure is negative and specific. */
typedef int32_t cb_status;
enum {
    CB_OK = 0,
    CB_ERR_INVALID_ARGUMENT = -1,
    CB_ERR_UNSUPPORTED = -2,
    CB_ERR_NOT_FOUND = -3,
    CB_ERR_NO_DEVICE = -4,
    CB_ERR_DEVICE_LOST = -5,
    CB_ERR_LINK_DOWN = -6,
    CB_ERR_TIMEOUT = -7,
    CB_ERR_OUT_OF_MEMORY = -8,
    CB_ERR_DMA_LIMIT = -9,
    CB_ERR_INTEGRITY = -10,
    CB_ERR_THERMAL_LIMIT = -11,
    CB_ERR_PERMISSION = -12,
    CB_ERR_ABI_MISMATCH = -13,
    CB_ERR_BUSY = -14,
    CB_ERR_INTERNAL = -15,
    /* ABI 1.4 */
    CB_ERR_ILLEGAL_ADDRESS = -16, /* a kernel touched memory outside every allocation */
    /* ABI 1.14 */
    CB_ERR_ASSERT = -17 /* a kernel's assert() failed (CUDA's cudaErrorAssert) */
};
#define CB_STATUS_COUNT 18

/* Log levels, lowest to highest; CB_LOG_OFF disables a category. */
typedef int32_t cb_log_level;
enum {
    CB_LOG_TRACE = 0,
    CB_LOG_DEBUG = 1,
    CB_LOG_INFO = 2,
    CB_LOG_WARN = 3,
    CB_LOG_ERROR = 4,
    CB_LOG_FATAL = 5,
    CB_LOG_OFF = 6
};

/* Boolean as it crosses the ABI (int32, never C++ bool). */
typedef int32_t cb_bool;

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_ABI_H */
