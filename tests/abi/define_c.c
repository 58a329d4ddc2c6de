/* CB_PLUGIN_DEFINE in a C translation unit: a plain C library carrying two log sinks.
 * Built as its own module (the macro defines the exported cb_plugin_entry) and loaded by
 * test_plugin_define.cpp. The sinks count writes and report through the host services. */
#include <cudabridge/plugin.h>

#include <stdio.h>
#include <stdlib.h>

typedef struct c_sink {
    const cb_host_services* host;
    unsigned writes;
} c_sink;

static void c_sink_log(const c_sink* s, const char* message) {
    if (CB_HAS_FIELD(s->host, cb_host_services, log)) s->host->log(s->host->host, CB_LOG_INFO, "c_sink", message);
}

static cb_status c_sink_create(const cb_host_services* host, const cb_config* config, void** out_instance) {
    c_sink* s;
    (void)config;
    if (out_instance == NULL) return CB_ERR_INVALID_ARGUMENT;
    *out_instance = NULL;
    s = (c_sink*)calloc(1, sizeof *s);
    if (s == NULL) {
        if (CB_HAS_FIELD(host, cb_host_services, set_last_error))
            host->set_last_error(host->host, "c_sink: out of memory");
        return CB_ERR_OUT_OF_MEMORY;
    }
    s->host = host;
    /* A service added in ABI 1.1: test for it, the host may be older than these headers. */
    c_sink_log(s, CB_HAS_FIELD(host, cb_host_services, realtime_ns) ? "realtime_ns available" : "realtime_ns missing");
    *out_instance = s;
    return CB_OK;
}

static void c_sink_destroy(void* instance) { free(instance); }

static cb_status c_sink_write(void* instance, const cb_log_record* record) {
    c_sink* s = (c_sink*)instance;
    if (record == NULL) return CB_ERR_INVALID_ARGUMENT;
    s->writes++;
    return CB_OK;
}

static cb_status c_sink_flush(void* instance) {
    (void)instance;
    return CB_OK;
}

static void c_sink_close(void* instance) {
    char line[64];
    const c_sink* s = (const c_sink*)instance;
    snprintf(line, sizeof line, "writes=%u", s->writes);
    c_sink_log(s, line);
}

/* write_batch left NULL: optional, the host falls back to write. */
static const cb_logsink_table c_sink_table = {sizeof(cb_logsink_table), c_sink_write, c_sink_flush, c_sink_close, NULL};

static const cb_plugin_descriptor c_sink_a = {sizeof(cb_plugin_descriptor),
                                              CB_KIND_LOGSINK,
                                              "c_sink_a",
                                              CB_MAKE_VERSION(1, 2, 3),
                                              0,
                                              "MIT",
                                              "C sink A",
                                              c_sink_create,
                                              c_sink_destroy,
                                              &c_sink_table};

static const cb_plugin_descriptor c_sink_b = {sizeof(cb_plugin_descriptor),
                                              CB_KIND_LOGSINK,
                                              "c_sink_b",
                                              CB_MAKE_VERSION(0, 9, 4095),
                                              0,
                                              "Apache-2.0",
                                              "C sink B",
                                              c_sink_create,
                                              c_sink_destroy,
                                              &c_sink_table};

CB_PLUGIN_DEFINE(&c_sink_a, &c_sink_b)
