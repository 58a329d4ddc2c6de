/* The ABI macros expanded by a C compiler, for the C++ tests to compare against. */
#ifndef CUDABRIDGE_TESTS_ABI_MACROS_C_H
#define CUDABRIDGE_TESTS_ABI_MACROS_C_H

#include <cudabridge/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

int cb_abi_c_has_field_write_batch(const cb_logsink_table* table);
int cb_abi_c_has_member_write_batch(const cb_logsink_table* table);
int cb_abi_c_has_field_realtime_ns(const cb_host_services* services);
int cb_abi_c_has_field_gpu_control(const cb_gpu_table* table);
int cb_abi_c_has_member_message_len(const cb_log_record* record);
uint32_t cb_abi_c_make_version(uint32_t major, uint32_t minor, uint32_t patch);
uint32_t cb_abi_c_version_major(uint32_t version);
uint32_t cb_abi_c_version_minor(uint32_t version);
uint32_t cb_abi_c_version_patch(uint32_t version);

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_TESTS_ABI_MACROS_C_H */
