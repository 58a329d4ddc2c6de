/* The table of services the host hands to every plugin instance at creation.
 *
 * A plugin never links against the host: logging, event recording, parameters, settings and the
 * clock all go through this table. Each entry is callable from any thread. The table outlives
 * every instance created with it.
 */
#ifndef CUDABRIDGE_HOST_SERVICES_H
#define CUDABRIDGE_HOST_SERVICES_H

#include "abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque host context passed back on every call. */
typedef struct cb_host cb_host;

/* Event severities, as stored in the event history. */
typedef int32_t cb_severity;
enum { CB_SEVERITY_INFO = 0, CB_SEVERITY_WARNING = 1, CB_SEVERITY_ERROR = 2, CB_SEVERITY_CRITICAL = 3 };

/* Parameter types a plugin may declare. */
typedef int32_t cb_param_type;
enum { CB_PARAM_STRING = 0, CB_PARAM_INT = 1, CB_PARAM_DOUBLE = 2, CB_PARAM_BOOL = 3 };

/* A declared parameter: name is plugin-local ("rotate_bytes"); the host stores it as
 * "<plugin>.<name>". min/max apply to INT and DOUBLE when has_range is set. Since ABI 1.5 the
 * host also refuses, when a setting is changed, a value outside `choices` (comma-separated, such
 * as "128,256,512"; NULL or empty: any value) and, with CB_PARAM_FLAG_DIRECTORY, a folder it
 * cannot create or write. */
enum { CB_PARAM_FLAG_DIRECTORY = 1 };

typedef struct cb_param_decl {
    uint32_t struct_size;
    cb_param_type type;
    const char* name;
    const char* default_value; /* text form; parsed by the host according to type */
    const char* help;
    cb_bool has_range;
    double min_value;
    double max_value;

    /* ABI 1.5 */
    const char* choices;
    uint32_t flags; /* CB_PARAM_FLAG_* */
} cb_param_decl;

/* Well-known paths a plugin may ask for. */
typedef int32_t cb_host_path;
enum { CB_PATH_DATABASE = 0, CB_PATH_STATE_DIR = 1, CB_PATH_LOG_DIR = 2 };
/* The log folder the host prefers for CB_PATH_LOG_DIR (while it is safe to use), and the one a
 * plugin falls back to when its host gives no path. */
#define CB_DEFAULT_LOG_DIR "/tmp/cudabridge_logs"

typedef struct cb_host_services {
    uint32_t struct_size;
    uint16_t abi_major; /* the ABI the host implements */
    uint16_t abi_minor;
    cb_host* host;

    /* ABI 1.0 */
    /* Log one message through the host's front end (never blocks for long, never fails). */
    void (*log)(cb_host* host, cb_log_level level, const char* category, const char* message);
    /* Append an event to the history. data_json may be NULL; device may be NULL. */
    cb_status (*record_event)(cb_host* host, const char* device, const char* category, cb_severity severity,
                              const char* kind, const char* message, const char* data_json);
    /* Declare a parameter of the calling plugin (idempotent; same name updates the metadata). */
    cb_status (*param_declare)(cb_host* host, const cb_param_decl* decl);
    /* Read a declared parameter's effective value (setting, else default) as text. Writes at most
     * size bytes including the terminator; *needed (may be NULL) receives the full length + 1. */
    cb_status (*param_get)(cb_host* host, const char* name, char* buf, size_t size, size_t* needed);
    /* Monotonic clock in nanoseconds. */
    uint64_t (*monotonic_ns)(cb_host* host);
    /* Settings in a scope: "global", "plugin:<name>" or "device:<id>". Values are text. */
    cb_status (*setting_get)(cb_host* host, const char* scope, const char* key, char* buf, size_t size, size_t* needed);
    cb_status (*setting_set)(cb_host* host, const char* scope, const char* key, const char* value);
    /* Set the calling thread's last-error message (read by the host after a failed call). */
    void (*set_last_error)(cb_host* host, const char* message);
    /* A well-known path (database file, state folder, default log folder). */
    cb_status (*get_path)(cb_host* host, cb_host_path which, char* buf, size_t size, size_t* needed);

    /* ABI 1.1 */
    /* Wall clock in nanoseconds since the Unix epoch (for records that are shown to people). */
    int64_t (*realtime_ns)(cb_host* host);
} cb_host_services;
/* ABI 1.0 size, frozen: the smallest struct_size a reader accepts. */
#define CB_HOST_SERVICES_SIZE_1_0 CB_SIZE_THROUGH(cb_host_services, get_path)

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_HOST_SERVICES_H */
