/* Log-sink plugins: receive records from the host's asynchronous log front end.
 *
 * Threading: the host calls write/write_batch/flush from its single logging thread, and close
 * once before destroy. A sink may block on its own I/O; the caller's threads never wait on it
 * unless the overflow policy is "block".
 */
#ifndef CUDABRIDGE_LOGSINK_H
#define CUDABRIDGE_LOGSINK_H

#include "abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_log_record {
    uint32_t struct_size;
    cb_log_level level;
    int64_t time_ns;      /* wall clock, ns since the Unix epoch */
    uint64_t thread_id;   /* OS thread id of the caller */
    const char* category; /* "DRIVER", "EGPU", ... */
    const char* device;   /* may be NULL */
    const char* message;  /* UTF-8, not NULL */
    uint32_t message_len; /* bytes, without terminator */
    uint32_t reserved0;
} cb_log_record;

typedef struct cb_logsink_table {
    uint32_t struct_size;

    /* ABI 1.0 */
    cb_status (*write)(void* instance, const cb_log_record* record);
    cb_status (*flush)(void* instance);
    /* Release files and connections; no call follows but destroy. */
    void (*close)(void* instance);

    /* ABI 1.1 */
    /* Optional: write several records at once (one transaction, one syscall). When absent the
     * host calls write for each record. */
    cb_status (*write_batch)(void* instance, const cb_log_record* records, size_t count);
} cb_logsink_table;
/* ABI 1.0 size, frozen: the smallest struct_size a reader accepts. */
#define CB_LOGSINK_TABLE_SIZE_1_0 CB_SIZE_THROUGH(cb_logsink_table, close)

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_LOGSINK_H */
