/* egpu_safety.h: the eGPU safety calls for applications (connect, events, safe disconnect), a
 * thin C layer over the same session, connection and safety supervisor the runtime API
 * (cudabridge.h) uses.
 *
 *     egpu_safety_init(NULL);                    // the stored (or default) "standard" policy
 *     egpu_set_event_callback(on_event, NULL);   // state changes, faults, recovery actions
 *     egpu_connect(-1);                          // detect and connect the first eGPU
 *     ... cbMalloc / cbLaunchBuiltin / ... ...
 *     egpu_safe_disconnect();                    // drain, free, stop monitoring, tear down
 *     egpu_safety_shutdown();
 *
 * A policy passed to egpu_safety_init overrides the stored settings for this process only.
 * Callbacks run on the supervisor's or the connecting thread; they must return quickly and must
 * not call egpu_* functions that wait (connect, disconnect, shutdown, set_event_callback). Once
 * egpu_set_event_callback returns, the previous callback is not running and will not run again.
 */
#ifndef CUDABRIDGE_EGPU_SAFETY_H
#define CUDABRIDGE_EGPU_SAFETY_H

#include <cudabridge/abi.h>

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum EGPUConnectionState {
    EGPU_STATE_DISCONNECTED = 0,
    EGPU_STATE_DETECTING = 1,
    EGPU_STATE_CHECKING = 2, /* compatibility */
    EGPU_STATE_AUTHORIZING = 3,
    EGPU_STATE_TUNNELING = 4,
    EGPU_STATE_INITIALIZING = 5,
    EGPU_STATE_CONNECTED = 6,
    EGPU_STATE_RECOVERING = 7,
    EGPU_STATE_EMERGENCY_STOP = 8,
    EGPU_STATE_FAILED = 9,
    EGPU_STATE_DISCONNECTING = 10,
    EGPU_STATE_LOST = 11 /* gone (unplugged, link down); recovery may bring it back */
} EGPUConnectionState;

typedef enum EGPUError {
    EGPU_OK = 0,
    EGPU_ERR_NOT_INITIALIZED = 1,
    EGPU_ERR_INVALID_ARGUMENT = 2,
    EGPU_ERR_NO_DEVICE = 3,
    EGPU_ERR_INCOMPATIBLE = 4, /* refused by the safety policy */
    EGPU_ERR_AUTHORIZATION = 5,
    EGPU_ERR_TUNNEL = 6,
    EGPU_ERR_INIT = 7,
    EGPU_ERR_LINK_DOWN = 8,
    EGPU_ERR_DEVICE_LOST = 9,
    EGPU_ERR_TIMEOUT = 10,
    EGPU_ERR_THERMAL = 11,
    EGPU_ERR_INTEGRITY = 12,
    EGPU_ERR_RECOVERY_FAILED = 13,
    EGPU_ERR_NOT_CONNECTED = 14,
    EGPU_ERR_PERMISSION = 15,
    EGPU_ERR_INTERNAL = 16
} EGPUError;

/* The standard policy's eight parameters; see plugins/safety/README.md. */
typedef struct EGPUSafetyPolicy {
    uint32_t max_retry_count;       /* 3 */
    uint32_t retry_delay_ms;        /* 500 */
    uint32_t heartbeat_interval_ms; /* 1000 */
    uint32_t heartbeat_timeout_ms;  /* 5000 */
    double error_rate_threshold;    /* 0.01 */
    double thermal_limit;           /* 90 (°C) */
    int enable_auto_recovery;       /* 1 */
    int enable_data_integrity;      /* 1 */
} EGPUSafetyPolicy;

typedef void (*EGPUEventCallback)(EGPUConnectionState state, EGPUError error, const char* message, void* user_data);

/* The defaults above (for filling a policy before changing a field). */
CB_API EGPUSafetyPolicy egpu_default_policy(void);
CB_API EGPUError egpu_safety_init(const EGPUSafetyPolicy* policy);
CB_API EGPUError egpu_set_event_callback(EGPUEventCallback callback, void* user_data);
/* Connects eGPU number `device` in detection order, or the first one that can be used (-1).
 * EGPU_OK at once when one is already connected (by this process or one it attached to). */
CB_API EGPUError egpu_connect(int device);
/* Safe disconnect of every device this process connected or attached to. */
CB_API EGPUError egpu_safe_disconnect(void);
/* Like egpu_safe_disconnect, but pending work is aborted with device-lost instead of drained. */
CB_API EGPUError egpu_force_disconnect(void);
CB_API EGPUConnectionState egpu_get_state(void);
CB_API EGPUError egpu_safety_shutdown(void);
CB_API const char* egpu_error_string(EGPUError error);
CB_API const char* egpu_state_string(EGPUConnectionState state);
/* The message of the calling thread's last failed egpu_* call. */
CB_API const char* egpu_last_error_message(void);

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_EGPU_SAFETY_H */
