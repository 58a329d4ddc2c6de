/* The ABI macros expanded by a C compiler (built with the header test's strict flags). */
#include "abi_macros_c.h"

int cb_abi_c_has_field_write_batch(const cb_logsink_table* table) {
    return CB_HAS_FIELD(table, cb_logsink_table, write_batch);
}

int cb_abi_c_has_member_write_batch(const cb_logsink_table* table) {
    return CB_HAS_MEMBER(table, cb_logsink_table, write_batch);
}

int cb_abi_c_has_field_realtime_ns(const cb_host_services* services) {
    return CB_HAS_FIELD(services, cb_host_services, realtime_ns);
}

int cb_abi_c_has_field_gpu_control(const cb_gpu_table* table) { return CB_HAS_FIELD(table, cb_gpu_table, control); }

int cb_abi_c_has_member_message_len(const cb_log_record* record) {
    return CB_HAS_MEMBER(record, cb_log_record, message_len);
}

uint32_t cb_abi_c_make_version(uint32_t major, uint32_t minor, uint32_t patch) {
    return CB_MAKE_VERSION(major, minor, patch);
}

uint32_t cb_abi_c_version_major(uint32_t version) { return CB_VERSION_MAJOR(version); }

uint32_t cb_abi_c_version_minor(uint32_t version) { return CB_VERSION_MINOR(version); }

uint32_t cb_abi_c_version_patch(uint32_t version) { return CB_VERSION_PATCH(version); }
