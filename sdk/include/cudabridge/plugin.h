/* The plugin descriptor: the one thing a plugin library exports.
 *
 * A library exports exactly one symbol, cb_plugin_entry, returning a static cb_plugin_library
 * that lists one or more plugins. The host checks the library's ABI version and each
 * descriptor's struct_size before it calls anything, and never calls create on a plugin it
 * refused.
 */
#ifndef CUDABRIDGE_PLUGIN_H
#define CUDABRIDGE_PLUGIN_H

#include "abi.h"
#include "endpoint_model.h"
#include "gpu.h"
#include "host_services.h"
#include "logsink.h"
#include "safety.h"
#include "transport.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t cb_plugin_kind;
enum {
    CB_KIND_TRANSPORT = 1, /* table: cb_transport_table */
    CB_KIND_GPU = 2,       /* table: cb_gpu_table */
    CB_KIND_SAFETY = 3,    /* table: cb_safety_table */
    CB_KIND_LOGSINK = 4    /* table: cb_logsink_table */
};

/* One key/value of an instance's configuration (e.g. from --log-sink file:path=/x). */
typedef struct cb_config_entry {
    const char* key;
    const char* value;
} cb_config_entry;

typedef struct cb_config {
    uint32_t struct_size;
    uint32_t reserved0;
    const char* instance_name; /* the name the host knows the instance by */
    const cb_config_entry* entries;
    size_t entry_count;
} cb_config;

typedef struct cb_plugin_descriptor {
    uint32_t struct_size;
    cb_plugin_kind kind;
    const char* name; /* unique per kind: "console", "usb4", "standard" */
    uint32_t version; /* CB_MAKE_VERSION */
    uint32_t reserved0;
    const char* license; /* SPDX identifier */
    const char* description;

    /* Create an instance. The plugin keeps `host` (valid until destroy) and may declare its
     * parameters through it. On failure return a status and set the last error. */
    cb_status (*create)(const cb_host_services* host, const cb_config* config, void** out_instance);
    void (*destroy)(void* instance);
    /* The kind's function table; its struct_size is checked like the descriptor's. */
    const void* table;
} cb_plugin_descriptor;
/* ABI 1.0 size, frozen: the smallest struct_size a reader accepts. */
#define CB_PLUGIN_DESCRIPTOR_SIZE_1_0 CB_SIZE_THROUGH(cb_plugin_descriptor, table)

typedef struct cb_plugin_library {
    uint32_t struct_size;
    uint16_t abi_major; /* the ABI the library was built for */
    uint16_t abi_minor;
    const cb_plugin_descriptor* const* plugins;
    size_t plugin_count;
} cb_plugin_library;
/* ABI 1.0 size, frozen: the smallest struct_size a reader accepts. */
#define CB_PLUGIN_LIBRARY_SIZE_1_0 CB_SIZE_THROUGH(cb_plugin_library, plugin_count)

/* The exported entry point's name and type. */
#define CB_PLUGIN_ENTRY_SYMBOL "cb_plugin_entry"
typedef const cb_plugin_library* (*cb_plugin_entry_fn)(void);

/* Define the entry point over a list of descriptor addresses:
 *     CB_PLUGIN_DEFINE(&my_sink, &my_other_sink)
 * Works in C and C++; the list is built once, on first call. */
#ifdef __cplusplus
#define CB_PLUGIN_EXTERN_C extern "C"
#else
#define CB_PLUGIN_EXTERN_C
#endif

#define CB_PLUGIN_DEFINE(...)                                                                                     \
    CB_PLUGIN_EXTERN_C CB_PLUGIN_EXPORT const cb_plugin_library* cb_plugin_entry(void);                           \
    CB_PLUGIN_EXTERN_C CB_PLUGIN_EXPORT const cb_plugin_library* cb_plugin_entry(void) {                          \
        static const cb_plugin_descriptor* const cb_plugins_[] = {__VA_ARGS__};                                   \
        static const cb_plugin_library cb_library_ = {sizeof(cb_plugin_library), CB_ABI_MAJOR, CB_ABI_MINOR,      \
                                                      cb_plugins_, sizeof(cb_plugins_) / sizeof(cb_plugins_[0])}; \
        return &cb_library_;                                                                                      \
    }

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_PLUGIN_H */
