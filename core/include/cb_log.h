/* CudaBridge logging, C API (C11 and C++ clean).
 *
 *   #include "cb_log.h"
 *   cb_log_init_default();
 *   CB_LOG_INFO(CB_LOG_CAT_DRIVER, "GPU initialized: %s", gpu_name);
 *   cb_log_set_category_level(CB_LOG_CAT_EGPU, CB_LOG_DEBUG);
 *   cb_log_shutdown();
 *
 * Records go to one process-wide asynchronous front end: the calling thread formats the message
 * and queues it; a background thread hands it to the log-sink plugins and callbacks. No function
 * here reports an error to its caller by crashing or throwing; logging failures are reported
 * (rate-limited) on stderr.
 *
 * Note on names: CB_LOG_INFO etc. are both the level constants of <cudabridge/abi.h> and, when
 * followed by '(', the logging macros below. `CB_LOG_INFO` alone is the level;
 * `CB_LOG_INFO(cat, fmt, ...)` logs.
 */
#ifndef CB_LOG_H
#define CB_LOG_H

#include <cudabridge/abi.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CB_LOG_API CB_API /* the older name */
#define CB_LOG_PRINTF_FORMAT(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define CB_LOG_API
#define CB_LOG_PRINTF_FORMAT(fmt_index, first_arg)
#endif

/* The built-in categories; more can be registered at run time (cb_log_register_category), so
 * every function takes the category as a plain int. */
typedef enum cb_log_category {
    CB_LOG_CAT_GENERAL = 0,
    CB_LOG_CAT_DRIVER = 1,
    CB_LOG_CAT_EGPU = 2,
    CB_LOG_CAT_MEMORY = 3,
    CB_LOG_CAT_PCIE = 4,
    CB_LOG_CAT_USB4 = 5,
    CB_LOG_CAT_CUDA = 6,
    CB_LOG_CAT_CLI = 7,
    CB_LOG_CAT_PYTHON = 8,
    CB_LOG_CAT_BUILTIN_COUNT = 9
} cb_log_category;

/* Attach the default sinks (console and file plugins) and start logging. 0 on success, a
 * negative cb_status otherwise. Safe to call more than once. */
CB_LOG_API int cb_log_init_default(void);

/* Deliver everything queued, flush and detach the sinks, stop the logging thread. Later log calls
 * are dropped until cb_log_init_default() is called again. */
CB_LOG_API void cb_log_shutdown(void);

/* Wait until every record logged before this call has reached the sinks and they are flushed. */
CB_LOG_API void cb_log_flush(void);

/* Minimum level per category (CB_LOG_OFF silences it); cb_log_set_level sets every category. */
CB_LOG_API void cb_log_set_category_level(int category, cb_log_level level);
CB_LOG_API void cb_log_set_level(cb_log_level level);
CB_LOG_API cb_log_level cb_log_get_category_level(int category);

/* Non-zero when a record of this level and category would be logged. */
CB_LOG_API int cb_log_is_enabled(int category, cb_log_level level);

/* Format and queue one record. `file` and `line` identify the call site (may be NULL / 0). An
 * unknown category is logged as GENERAL. A FATAL record is flushed before this returns. */
CB_LOG_API void cb_log_write(cb_log_level level, int category, const char* file, int line, const char* fmt, ...)
    CB_LOG_PRINTF_FORMAT(5, 6);

/* Register a category by name ([A-Za-z0-9_.-], at most 32 bytes, matched case-insensitively)
 * or find it when it exists. Returns its id, or -1 when the name is invalid or the table (64
 * categories) is full. */
CB_LOG_API int cb_log_register_category(const char* name);
/* The category's name, valid for the life of the process; NULL when the id is not registered. */
CB_LOG_API const char* cb_log_category_name(int category);

/* Callbacks run on the logging thread, one record at a time, in order. `message` and
 * `category_name` are valid only during the call. A callback may log, but should be quick. */
typedef void (*cb_log_callback)(cb_log_level level, int category, const char* category_name, const char* message,
                                void* user_data);
/* Returns an id (> 0), or -1 when cb is NULL or out of memory. */
CB_LOG_API int cb_log_add_callback(cb_log_callback cb, void* user_data);
/* When it returns, the callback is not running and will not be called again (unless called from
 * inside a callback). */
CB_LOG_API void cb_log_remove_callback(int id);

/* Records below this level are compiled out of the CB_LOG_* macros (define it before including
 * this header, e.g. -DCB_LOG_COMPILE_LEVEL=CB_LOG_INFO). Default: everything compiled in. */
#ifndef CB_LOG_COMPILE_LEVEL
#define CB_LOG_COMPILE_LEVEL CB_LOG_TRACE
#endif

/* The level test runs before the arguments are evaluated or anything is formatted. */
#define CB_LOG_AT(level, category, ...)                                                \
    do {                                                                               \
        if ((level) >= CB_LOG_COMPILE_LEVEL && cb_log_is_enabled((category), (level))) \
            cb_log_write((level), (category), __FILE__, __LINE__, __VA_ARGS__);        \
    } while (0)

#define CB_LOG_TRACE(category, ...) CB_LOG_AT(CB_LOG_TRACE, category, __VA_ARGS__)
#define CB_LOG_DEBUG(category, ...) CB_LOG_AT(CB_LOG_DEBUG, category, __VA_ARGS__)
#define CB_LOG_INFO(category, ...) CB_LOG_AT(CB_LOG_INFO, category, __VA_ARGS__)
#define CB_LOG_WARN(category, ...) CB_LOG_AT(CB_LOG_WARN, category, __VA_ARGS__)
#define CB_LOG_ERROR(category, ...) CB_LOG_AT(CB_LOG_ERROR, category, __VA_ARGS__)
#define CB_LOG_FATAL(category, ...) CB_LOG_AT(CB_LOG_FATAL, category, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* CB_LOG_H */
