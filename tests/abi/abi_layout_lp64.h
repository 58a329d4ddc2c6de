/* Pinned layout of every ABI struct on LP64 (x86_64 and aarch64 Linux, macOS arm64).
 *
 * Included by abi_layout.c (C11) and abi_layout.cpp (C++20): the same numbers must hold for
 * both languages. A failing assertion means a header change moved or resized a field, which
 * breaks every plugin built against an earlier header. The only allowed edit is appending
 * lines for fields appended in a new ABI minor (mark the block with its version, and update
 * sdk/docs/abi-changes.md). Never change an existing line.
 *
 * Each CB_PIN_FIELD line reads: struct, field, offset, size of the field, in bytes.
 */
#ifndef CUDABRIDGE_TESTS_ABI_LAYOUT_LP64_H
#define CUDABRIDGE_TESTS_ABI_LAYOUT_LP64_H

#include <cudabridge/builtin_kernels.h>
#include <cudabridge/host_kernels.h>
#include <cudabridge/plugin.h>
#include <cudabridge/texture_descriptor.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define CB_PIN_ASSERT(cond, what) static_assert(cond, what)
#define CB_PIN_MEMBER_SIZE(T, f) sizeof(T::f)
#else
#define CB_PIN_ASSERT(cond, what) _Static_assert(cond, what)
#define CB_PIN_MEMBER_SIZE(T, f) sizeof(((T*)0)->f)
#endif

#define CB_PIN_SIZE(T, n) CB_PIN_ASSERT(sizeof(T) == (n), "ABI break: sizeof(" #T ") changed")
#define CB_PIN_FIELD(T, f, off, size)                                                   \
    CB_PIN_ASSERT(offsetof(T, f) == (off), "ABI break: offset of " #T "." #f " moved"); \
    CB_PIN_ASSERT(CB_PIN_MEMBER_SIZE(T, f) == (size), "ABI break: size of " #T "." #f " changed")
#define CB_PIN_VALUE(name, value) CB_PIN_ASSERT((name) == (value), "ABI break: value of " #name " changed")

/* ---- versions and constants (all pointer models) ----------------------------------------- */

CB_PIN_VALUE(CB_ABI_MAJOR, 1);
CB_PIN_ASSERT(CB_ABI_MINOR >= 1, "ABI minor never goes down");
CB_PIN_ASSERT(CB_ABI_MINOR >= 2, "these headers describe ABI 1.2 or later (cb_gpu_table.control)");
CB_PIN_ASSERT(CB_ABI_MINOR >= 3, "these headers describe ABI 1.3 or later (pinned memory, host kernels)");
CB_PIN_ASSERT(CB_ABI_MINOR >= 4, "these headers describe ABI 1.4 or later (CB_ERR_ILLEGAL_ADDRESS)");
CB_PIN_ASSERT(CB_ABI_MINOR >= 5, "these headers describe ABI 1.5 or later (checked parameter values)");
CB_PIN_ASSERT(CB_ABI_MINOR >= 7, "these headers describe ABI 1.7 or later (cb_kernel_launch.kernel_params)");
CB_PIN_ASSERT(CB_ABI_MINOR >= 8, "these headers describe ABI 1.8 or later (cb_gpu_table.module_global)");
CB_PIN_ASSERT(CB_ABI_MINOR >= 9, "these headers describe ABI 1.9 or later (processes, managed memory)");
CB_PIN_ASSERT(CB_ABI_MINOR >= 10, "these headers describe ABI 1.10 or later (cb_gpu_table.kernel_time)");
CB_PIN_ASSERT(CB_ABI_MINOR >= 11, "these headers describe ABI 1.11 or later (the bar_map entries)");
CB_PIN_ASSERT(CB_ABI_MINOR >= 12, "these headers describe ABI 1.12 or later (stacked matmul operands)");
CB_PIN_ASSERT(CB_ABI_MINOR >= 13,
              "these headers describe ABI 1.13 or later (cb_gpu_table.progress, cb_health_sample.stalled_ms)");
CB_PIN_ASSERT(CB_ABI_MINOR >= 14, "these headers describe ABI 1.14 or later (kernel_param_info, CB_ERR_ASSERT)");
CB_PIN_ASSERT(
    CB_ABI_MINOR >= 16,
    "these headers describe ABI 1.16 or later (cb_gpu_table.kernel_running, cb_health_sample.kernel_running_ms)");
CB_PIN_ASSERT(CB_ABI_MINOR >= 17, "these headers describe ABI 1.17 or later (cb_gpu_table.mem_share)");
CB_PIN_VALUE(CB_MAKE_VERSION(1, 0, 0), 0x00400000u);
CB_PIN_VALUE(CB_MAKE_VERSION(1, 2, 3), 0x00402003u);
CB_PIN_VALUE(sizeof(cb_status), 4);
CB_PIN_VALUE(sizeof(cb_bool), 4);
CB_PIN_VALUE(sizeof(cb_log_level), 4);
CB_PIN_VALUE(sizeof(cb_plugin_kind), 4);

CB_PIN_VALUE(CB_OK, 0);
CB_PIN_VALUE(CB_ERR_INVALID_ARGUMENT, -1);
CB_PIN_VALUE(CB_ERR_UNSUPPORTED, -2);
CB_PIN_VALUE(CB_ERR_NOT_FOUND, -3);
CB_PIN_VALUE(CB_ERR_NO_DEVICE, -4);
CB_PIN_VALUE(CB_ERR_DEVICE_LOST, -5);
CB_PIN_VALUE(CB_ERR_LINK_DOWN, -6);
CB_PIN_VALUE(CB_ERR_TIMEOUT, -7);
CB_PIN_VALUE(CB_ERR_OUT_OF_MEMORY, -8);
CB_PIN_VALUE(CB_ERR_DMA_LIMIT, -9);
CB_PIN_VALUE(CB_ERR_INTEGRITY, -10);
CB_PIN_VALUE(CB_ERR_THERMAL_LIMIT, -11);
CB_PIN_VALUE(CB_ERR_PERMISSION, -12);
CB_PIN_VALUE(CB_ERR_ABI_MISMATCH, -13);
CB_PIN_VALUE(CB_ERR_BUSY, -14);
CB_PIN_VALUE(CB_ERR_INTERNAL, -15);
CB_PIN_VALUE(CB_ERR_ILLEGAL_ADDRESS, -16);  // ABI 1.4
CB_PIN_VALUE(CB_ERR_ASSERT, -17);           // ABI 1.14
// The count is the one pin that grows: 16 up to ABI 1.3, 17 since 1.4 (CB_ERR_ILLEGAL_ADDRESS),
// 18 since 1.14 (CB_ERR_ASSERT).
CB_PIN_VALUE(CB_STATUS_COUNT, 18);

CB_PIN_VALUE(CB_LOG_TRACE, 0);
CB_PIN_VALUE(CB_LOG_INFO, 2);
CB_PIN_VALUE(CB_LOG_FATAL, 5);
CB_PIN_VALUE(CB_LOG_OFF, 6);

CB_PIN_VALUE(CB_KIND_TRANSPORT, 1);
CB_PIN_VALUE(CB_KIND_GPU, 2);
CB_PIN_VALUE(CB_KIND_SAFETY, 3);
CB_PIN_VALUE(CB_KIND_LOGSINK, 4);

CB_PIN_VALUE(CB_ACTION_NONE, 0);
CB_PIN_VALUE(CB_ACTION_WARN, 1);
CB_PIN_VALUE(CB_ACTION_THROTTLE, 2);
CB_PIN_VALUE(CB_ACTION_SOFT_RESET, 3);
CB_PIN_VALUE(CB_ACTION_HARD_RESET, 4);
CB_PIN_VALUE(CB_ACTION_RECONNECT, 5);
CB_PIN_VALUE(CB_ACTION_EMERGENCY_STOP, 6);

CB_PIN_VALUE(CB_RESET_FUNCTION, 0);
CB_PIN_VALUE(CB_RESET_HARD, 4);
CB_PIN_VALUE(CB_SEVERITY_CRITICAL, 3);
CB_PIN_VALUE(CB_PARAM_BOOL, 3);
CB_PIN_VALUE(CB_PATH_LOG_DIR, 2);

#if UINTPTR_MAX == 0xffffffffffffffff

/* The size of each table as ABI 1.0 shipped it (what an ABI 1.0 peer puts in struct_size). */
CB_PIN_VALUE(offsetof(cb_logsink_table, write_batch), 32);
CB_PIN_VALUE(offsetof(cb_transport_table, control), 192);
CB_PIN_VALUE(offsetof(cb_host_services, realtime_ns), 88);
/* ... and as ABI 1.0 and 1.1 shipped the GPU table (what such a peer puts in struct_size). */
CB_PIN_VALUE(offsetof(cb_gpu_table, control), 288);

/* ---- host_services.h ------------------------------------------------------------------------- */

CB_PIN_SIZE(cb_param_decl, 72);
CB_PIN_FIELD(cb_param_decl, struct_size, 0, 4);
CB_PIN_FIELD(cb_param_decl, type, 4, 4);
CB_PIN_FIELD(cb_param_decl, name, 8, 8);
CB_PIN_FIELD(cb_param_decl, default_value, 16, 8);
CB_PIN_FIELD(cb_param_decl, help, 24, 8);
CB_PIN_FIELD(cb_param_decl, has_range, 32, 4);
CB_PIN_FIELD(cb_param_decl, min_value, 40, 8);
CB_PIN_FIELD(cb_param_decl, max_value, 48, 8);
/* ABI 1.5 (a 1.0-1.4 peer's struct_size is 56) */
CB_PIN_FIELD(cb_param_decl, choices, 56, 8);
CB_PIN_FIELD(cb_param_decl, flags, 64, 4);

CB_PIN_SIZE(cb_host_services, 96);
CB_PIN_FIELD(cb_host_services, struct_size, 0, 4);
CB_PIN_FIELD(cb_host_services, abi_major, 4, 2);
CB_PIN_FIELD(cb_host_services, abi_minor, 6, 2);
CB_PIN_FIELD(cb_host_services, host, 8, 8);
CB_PIN_FIELD(cb_host_services, log, 16, 8);
CB_PIN_FIELD(cb_host_services, record_event, 24, 8);
CB_PIN_FIELD(cb_host_services, param_declare, 32, 8);
CB_PIN_FIELD(cb_host_services, param_get, 40, 8);
CB_PIN_FIELD(cb_host_services, monotonic_ns, 48, 8);
CB_PIN_FIELD(cb_host_services, setting_get, 56, 8);
CB_PIN_FIELD(cb_host_services, setting_set, 64, 8);
CB_PIN_FIELD(cb_host_services, set_last_error, 72, 8);
CB_PIN_FIELD(cb_host_services, get_path, 80, 8);
/* ABI 1.1 */
CB_PIN_FIELD(cb_host_services, realtime_ns, 88, 8);

/* ---- plugin.h -------------------------------------------------------------------------------- */

CB_PIN_SIZE(cb_config_entry, 16);
CB_PIN_FIELD(cb_config_entry, key, 0, 8);
CB_PIN_FIELD(cb_config_entry, value, 8, 8);

CB_PIN_SIZE(cb_config, 32);
CB_PIN_FIELD(cb_config, struct_size, 0, 4);
CB_PIN_FIELD(cb_config, reserved0, 4, 4);
CB_PIN_FIELD(cb_config, instance_name, 8, 8);
CB_PIN_FIELD(cb_config, entries, 16, 8);
CB_PIN_FIELD(cb_config, entry_count, 24, 8);

CB_PIN_SIZE(cb_plugin_descriptor, 64);
CB_PIN_FIELD(cb_plugin_descriptor, struct_size, 0, 4);
CB_PIN_FIELD(cb_plugin_descriptor, kind, 4, 4);
CB_PIN_FIELD(cb_plugin_descriptor, name, 8, 8);
CB_PIN_FIELD(cb_plugin_descriptor, version, 16, 4);
CB_PIN_FIELD(cb_plugin_descriptor, reserved0, 20, 4);
CB_PIN_FIELD(cb_plugin_descriptor, license, 24, 8);
CB_PIN_FIELD(cb_plugin_descriptor, description, 32, 8);
CB_PIN_FIELD(cb_plugin_descriptor, create, 40, 8);
CB_PIN_FIELD(cb_plugin_descriptor, destroy, 48, 8);
CB_PIN_FIELD(cb_plugin_descriptor, table, 56, 8);

CB_PIN_SIZE(cb_plugin_library, 24);
CB_PIN_FIELD(cb_plugin_library, struct_size, 0, 4);
CB_PIN_FIELD(cb_plugin_library, abi_major, 4, 2);
CB_PIN_FIELD(cb_plugin_library, abi_minor, 6, 2);
CB_PIN_FIELD(cb_plugin_library, plugins, 8, 8);
CB_PIN_FIELD(cb_plugin_library, plugin_count, 16, 8);

/* ---- logsink.h ------------------------------------------------------------------------------- */

CB_PIN_SIZE(cb_log_record, 56);
CB_PIN_FIELD(cb_log_record, struct_size, 0, 4);
CB_PIN_FIELD(cb_log_record, level, 4, 4);
CB_PIN_FIELD(cb_log_record, time_ns, 8, 8);
CB_PIN_FIELD(cb_log_record, thread_id, 16, 8);
CB_PIN_FIELD(cb_log_record, category, 24, 8);
CB_PIN_FIELD(cb_log_record, device, 32, 8);
CB_PIN_FIELD(cb_log_record, message, 40, 8);
CB_PIN_FIELD(cb_log_record, message_len, 48, 4);
CB_PIN_FIELD(cb_log_record, reserved0, 52, 4);

CB_PIN_SIZE(cb_logsink_table, 40);
CB_PIN_FIELD(cb_logsink_table, struct_size, 0, 4);
CB_PIN_FIELD(cb_logsink_table, write, 8, 8);
CB_PIN_FIELD(cb_logsink_table, flush, 16, 8);
CB_PIN_FIELD(cb_logsink_table, close, 24, 8);
/* ABI 1.1 */
CB_PIN_FIELD(cb_logsink_table, write_batch, 32, 8);

/* ---- endpoint_model.h ------------------------------------------------------------------------ */

CB_PIN_SIZE(cb_bar_info, 40);
CB_PIN_FIELD(cb_bar_info, struct_size, 0, 4);
CB_PIN_FIELD(cb_bar_info, index, 4, 4);
CB_PIN_FIELD(cb_bar_info, size, 8, 8);
CB_PIN_FIELD(cb_bar_info, bus_address, 16, 8);
CB_PIN_FIELD(cb_bar_info, is_64bit, 24, 4);
CB_PIN_FIELD(cb_bar_info, prefetchable, 28, 4);
CB_PIN_FIELD(cb_bar_info, is_io, 32, 4);
CB_PIN_FIELD(cb_bar_info, reserved0, 36, 4);

CB_PIN_SIZE(cb_endpoint_host_ops, 48);
CB_PIN_FIELD(cb_endpoint_host_ops, struct_size, 0, 4);
CB_PIN_FIELD(cb_endpoint_host_ops, reserved0, 4, 4);
CB_PIN_FIELD(cb_endpoint_host_ops, context, 8, 8);
CB_PIN_FIELD(cb_endpoint_host_ops, dma_read, 16, 8);
CB_PIN_FIELD(cb_endpoint_host_ops, dma_write, 24, 8);
CB_PIN_FIELD(cb_endpoint_host_ops, raise_interrupt, 32, 8);

CB_PIN_SIZE(cb_endpoint_model_table, 80);
CB_PIN_FIELD(cb_endpoint_model_table, struct_size, 0, 4);
CB_PIN_FIELD(cb_endpoint_model_table, config_read, 8, 8);
CB_PIN_FIELD(cb_endpoint_model_table, config_write, 16, 8);
CB_PIN_FIELD(cb_endpoint_model_table, bar_info, 24, 8);
CB_PIN_FIELD(cb_endpoint_model_table, mmio_read, 32, 8);
CB_PIN_FIELD(cb_endpoint_model_table, mmio_write, 40, 8);
CB_PIN_FIELD(cb_endpoint_model_table, reset, 48, 8);
CB_PIN_FIELD(cb_endpoint_model_table, attach, 56, 8);
CB_PIN_FIELD(cb_endpoint_model_table, detach, 64, 8);
/* ABI 1.11 */
CB_PIN_FIELD(cb_endpoint_model_table, bar_map, 72, 8);

/* ---- transport.h ----------------------------------------------------------------------------- */

CB_PIN_SIZE(cb_endpoint_info, 520);
CB_PIN_FIELD(cb_endpoint_info, struct_size, 0, 4);
CB_PIN_FIELD(cb_endpoint_info, kind, 4, 4);
CB_PIN_FIELD(cb_endpoint_info, id, 8, 64);
CB_PIN_FIELD(cb_endpoint_info, parent_id, 72, 64);
CB_PIN_FIELD(cb_endpoint_info, name, 136, 128);
CB_PIN_FIELD(cb_endpoint_info, vendor_name, 264, 128);
CB_PIN_FIELD(cb_endpoint_info, domain, 392, 4);
CB_PIN_FIELD(cb_endpoint_info, security_level, 396, 4);
CB_PIN_FIELD(cb_endpoint_info, authorized, 400, 4);
CB_PIN_FIELD(cb_endpoint_info, generation, 404, 4);
CB_PIN_FIELD(cb_endpoint_info, lanes, 408, 4);
CB_PIN_FIELD(cb_endpoint_info, reserved0, 412, 4);
CB_PIN_FIELD(cb_endpoint_info, lane_speed_gbps, 416, 8);
CB_PIN_FIELD(cb_endpoint_info, iommu_dma_protection, 424, 4);
CB_PIN_FIELD(cb_endpoint_info, is_simulated, 428, 4);
CB_PIN_FIELD(cb_endpoint_info, pci_vendor_id, 432, 2);
CB_PIN_FIELD(cb_endpoint_info, pci_device_id, 434, 2);
CB_PIN_FIELD(cb_endpoint_info, pci_subsystem_vendor_id, 436, 2);
CB_PIN_FIELD(cb_endpoint_info, pci_subsystem_device_id, 438, 2);
CB_PIN_FIELD(cb_endpoint_info, pci_class_code, 440, 4);
CB_PIN_FIELD(cb_endpoint_info, pcie_link_gen, 444, 4);
CB_PIN_FIELD(cb_endpoint_info, pcie_link_width, 448, 4);
CB_PIN_FIELD(cb_endpoint_info, reserved1, 452, 4);
CB_PIN_FIELD(cb_endpoint_info, driver, 456, 64);

CB_PIN_SIZE(cb_dma_limits, 48);
CB_PIN_FIELD(cb_dma_limits, struct_size, 0, 4);
CB_PIN_FIELD(cb_dma_limits, reserved0, 4, 4);
CB_PIN_FIELD(cb_dma_limits, max_mapped_bytes, 8, 8);
CB_PIN_FIELD(cb_dma_limits, max_mappings, 16, 8);
CB_PIN_FIELD(cb_dma_limits, page_size, 24, 8);
CB_PIN_FIELD(cb_dma_limits, mapped_bytes, 32, 8);
CB_PIN_FIELD(cb_dma_limits, mappings, 40, 8);

CB_PIN_SIZE(cb_link_status, 112);
CB_PIN_FIELD(cb_link_status, struct_size, 0, 4);
CB_PIN_FIELD(cb_link_status, up, 4, 4);
CB_PIN_FIELD(cb_link_status, generation, 8, 4);
CB_PIN_FIELD(cb_link_status, lanes, 12, 4);
CB_PIN_FIELD(cb_link_status, h2d_bandwidth_gbs, 16, 8);
CB_PIN_FIELD(cb_link_status, d2h_bandwidth_gbs, 24, 8);
CB_PIN_FIELD(cb_link_status, bytes_to_device, 32, 8);
CB_PIN_FIELD(cb_link_status, bytes_from_device, 40, 8);
CB_PIN_FIELD(cb_link_status, packets, 48, 8);
CB_PIN_FIELD(cb_link_status, crc_errors, 56, 8);
CB_PIN_FIELD(cb_link_status, replays, 64, 8);
CB_PIN_FIELD(cb_link_status, corrected_errors, 72, 8);
CB_PIN_FIELD(cb_link_status, uncorrectable_errors, 80, 8);
CB_PIN_FIELD(cb_link_status, modeled_time_ns, 88, 8);
CB_PIN_FIELD(cb_link_status, is_simulated, 96, 4);
CB_PIN_FIELD(cb_link_status, reserved0, 100, 4);
CB_PIN_FIELD(cb_link_status, recent_error_rate, 104, 8);

CB_PIN_SIZE(cb_transport_event, 328);
CB_PIN_FIELD(cb_transport_event, struct_size, 0, 4);
CB_PIN_FIELD(cb_transport_event, type, 4, 4);
CB_PIN_FIELD(cb_transport_event, endpoint_id, 8, 64);
CB_PIN_FIELD(cb_transport_event, message, 72, 256);

CB_PIN_SIZE(cb_transport_table, 208);
CB_PIN_FIELD(cb_transport_table, struct_size, 0, 4);
CB_PIN_FIELD(cb_transport_table, enumerate, 8, 8);
CB_PIN_FIELD(cb_transport_table, authorize, 16, 8);
CB_PIN_FIELD(cb_transport_table, deauthorize, 24, 8);
CB_PIN_FIELD(cb_transport_table, set_event_handler, 32, 8);
CB_PIN_FIELD(cb_transport_table, open_link, 40, 8);
CB_PIN_FIELD(cb_transport_table, close_link, 48, 8);
CB_PIN_FIELD(cb_transport_table, config_read, 56, 8);
CB_PIN_FIELD(cb_transport_table, config_write, 64, 8);
CB_PIN_FIELD(cb_transport_table, bar_info, 72, 8);
CB_PIN_FIELD(cb_transport_table, mmio_read32, 80, 8);
CB_PIN_FIELD(cb_transport_table, mmio_write32, 88, 8);
CB_PIN_FIELD(cb_transport_table, mmio_read64, 96, 8);
CB_PIN_FIELD(cb_transport_table, mmio_write64, 104, 8);
CB_PIN_FIELD(cb_transport_table, mmio_write_block, 112, 8);
CB_PIN_FIELD(cb_transport_table, mmio_read_block, 120, 8);
CB_PIN_FIELD(cb_transport_table, dma_map, 128, 8);
CB_PIN_FIELD(cb_transport_table, dma_unmap, 136, 8);
CB_PIN_FIELD(cb_transport_table, dma_limits, 144, 8);
CB_PIN_FIELD(cb_transport_table, set_interrupt_handler, 152, 8);
CB_PIN_FIELD(cb_transport_table, link_status, 160, 8);
CB_PIN_FIELD(cb_transport_table, reset_link, 168, 8);
CB_PIN_FIELD(cb_transport_table, attach_endpoint_model, 176, 8);
CB_PIN_FIELD(cb_transport_table, detach_endpoint_model, 184, 8);
CB_PIN_FIELD(cb_transport_table, control, 192, 8);
/* ABI 1.11 */
CB_PIN_FIELD(cb_transport_table, bar_map, 200, 8);

/* ---- gpu.h ----------------------------------------------------------------------------------- */

CB_PIN_SIZE(cb_gpu_open_params, 48);
CB_PIN_FIELD(cb_gpu_open_params, struct_size, 0, 4);
CB_PIN_FIELD(cb_gpu_open_params, ordinal, 4, 4);
CB_PIN_FIELD(cb_gpu_open_params, transport, 8, 8);
CB_PIN_FIELD(cb_gpu_open_params, transport_instance, 16, 8);
CB_PIN_FIELD(cb_gpu_open_params, link, 24, 8);
CB_PIN_FIELD(cb_gpu_open_params, endpoint, 32, 8);
CB_PIN_FIELD(cb_gpu_open_params, profile_json, 40, 8);

CB_PIN_SIZE(cb_gpu_properties, 512);
CB_PIN_FIELD(cb_gpu_properties, struct_size, 0, 4);
CB_PIN_FIELD(cb_gpu_properties, is_simulated, 4, 4);
CB_PIN_FIELD(cb_gpu_properties, name, 8, 256);
CB_PIN_FIELD(cb_gpu_properties, uuid, 264, 64);
CB_PIN_FIELD(cb_gpu_properties, architecture, 328, 32);
CB_PIN_FIELD(cb_gpu_properties, backend, 360, 32);
CB_PIN_FIELD(cb_gpu_properties, pci_bus_id, 392, 32);
CB_PIN_FIELD(cb_gpu_properties, pci_vendor_id, 424, 2);
CB_PIN_FIELD(cb_gpu_properties, pci_device_id, 426, 2);
CB_PIN_FIELD(cb_gpu_properties, pci_subsystem_id, 428, 4);
CB_PIN_FIELD(cb_gpu_properties, compute_major, 432, 4);
CB_PIN_FIELD(cb_gpu_properties, compute_minor, 436, 4);
CB_PIN_FIELD(cb_gpu_properties, sm_count, 440, 4);
CB_PIN_FIELD(cb_gpu_properties, warp_size, 444, 4);
CB_PIN_FIELD(cb_gpu_properties, total_memory, 448, 8);
CB_PIN_FIELD(cb_gpu_properties, max_threads_per_block, 456, 4);
CB_PIN_FIELD(cb_gpu_properties, max_block_dim, 460, 12);
CB_PIN_FIELD(cb_gpu_properties, max_grid_dim, 472, 12);
CB_PIN_FIELD(cb_gpu_properties, shared_memory_per_block, 484, 4);
CB_PIN_FIELD(cb_gpu_properties, memory_bus_width, 488, 4);
CB_PIN_FIELD(cb_gpu_properties, l2_cache_bytes, 492, 4);
CB_PIN_FIELD(cb_gpu_properties, clock_mhz, 496, 4);
CB_PIN_FIELD(cb_gpu_properties, memory_clock_mhz, 500, 4);
CB_PIN_FIELD(cb_gpu_properties, reserved0, 504, 4);
CB_PIN_FIELD(cb_gpu_properties, reserved1, 508, 4);

CB_PIN_SIZE(cb_gpu_telemetry, 136);
CB_PIN_FIELD(cb_gpu_telemetry, struct_size, 0, 4);
CB_PIN_FIELD(cb_gpu_telemetry, is_simulated, 4, 4);
CB_PIN_FIELD(cb_gpu_telemetry, time_ns, 8, 8);
CB_PIN_FIELD(cb_gpu_telemetry, temperature_c, 16, 8);
CB_PIN_FIELD(cb_gpu_telemetry, power_w, 24, 8);
CB_PIN_FIELD(cb_gpu_telemetry, power_limit_w, 32, 8);
CB_PIN_FIELD(cb_gpu_telemetry, fan_percent, 40, 8);
CB_PIN_FIELD(cb_gpu_telemetry, sm_clock_mhz, 48, 4);
CB_PIN_FIELD(cb_gpu_telemetry, memory_clock_mhz, 52, 4);
CB_PIN_FIELD(cb_gpu_telemetry, gpu_utilization, 56, 8);
CB_PIN_FIELD(cb_gpu_telemetry, memory_utilization, 64, 8);
CB_PIN_FIELD(cb_gpu_telemetry, memory_used, 72, 8);
CB_PIN_FIELD(cb_gpu_telemetry, memory_total, 80, 8);
CB_PIN_FIELD(cb_gpu_telemetry, performance_state, 88, 4);
CB_PIN_FIELD(cb_gpu_telemetry, throttle_reasons, 92, 4);
CB_PIN_FIELD(cb_gpu_telemetry, pcie_link_gen, 96, 4);
CB_PIN_FIELD(cb_gpu_telemetry, pcie_link_width, 100, 4);
CB_PIN_FIELD(cb_gpu_telemetry, ecc_corrected, 104, 8);
CB_PIN_FIELD(cb_gpu_telemetry, ecc_uncorrected, 112, 8);
CB_PIN_FIELD(cb_gpu_telemetry, xid_count, 120, 8);
CB_PIN_FIELD(cb_gpu_telemetry, last_xid, 128, 4);
CB_PIN_FIELD(cb_gpu_telemetry, reserved0, 132, 4);

CB_PIN_SIZE(cb_gpu_settings, 32);
CB_PIN_FIELD(cb_gpu_settings, struct_size, 0, 4);
CB_PIN_FIELD(cb_gpu_settings, fields, 4, 4);
CB_PIN_FIELD(cb_gpu_settings, sm_clock_mhz, 8, 4);
CB_PIN_FIELD(cb_gpu_settings, memory_clock_mhz, 12, 4);
CB_PIN_FIELD(cb_gpu_settings, power_limit_w, 16, 8);
CB_PIN_FIELD(cb_gpu_settings, fan_percent, 24, 4);
CB_PIN_FIELD(cb_gpu_settings, performance_state, 28, 4);

CB_PIN_SIZE(cb_gpu_setting_limits, 64);
CB_PIN_FIELD(cb_gpu_setting_limits, struct_size, 0, 4);
CB_PIN_FIELD(cb_gpu_setting_limits, min_sm_clock_mhz, 4, 4);
CB_PIN_FIELD(cb_gpu_setting_limits, max_sm_clock_mhz, 8, 4);
CB_PIN_FIELD(cb_gpu_setting_limits, min_memory_clock_mhz, 12, 4);
CB_PIN_FIELD(cb_gpu_setting_limits, max_memory_clock_mhz, 16, 4);
CB_PIN_FIELD(cb_gpu_setting_limits, reserved0, 20, 4);
CB_PIN_FIELD(cb_gpu_setting_limits, min_power_w, 24, 8);
CB_PIN_FIELD(cb_gpu_setting_limits, max_power_w, 32, 8);
CB_PIN_FIELD(cb_gpu_setting_limits, default_power_w, 40, 8);
CB_PIN_FIELD(cb_gpu_setting_limits, min_performance_state, 48, 4);
CB_PIN_FIELD(cb_gpu_setting_limits, max_performance_state, 52, 4);
CB_PIN_FIELD(cb_gpu_setting_limits, fan_control, 56, 4);
CB_PIN_FIELD(cb_gpu_setting_limits, reserved1, 60, 4);

CB_PIN_SIZE(cb_kernel_arg, 16);
CB_PIN_FIELD(cb_kernel_arg, type, 0, 4);
CB_PIN_FIELD(cb_kernel_arg, size, 4, 4);
CB_PIN_FIELD(cb_kernel_arg, value, 8, 8);

CB_PIN_SIZE(cb_kernel_launch, 88);
CB_PIN_FIELD(cb_kernel_launch, struct_size, 0, 4);
CB_PIN_FIELD(cb_kernel_launch, shared_memory_bytes, 4, 4);
CB_PIN_FIELD(cb_kernel_launch, name, 8, 8);
CB_PIN_FIELD(cb_kernel_launch, dtype, 16, 4);
CB_PIN_FIELD(cb_kernel_launch, grid, 20, 12);
CB_PIN_FIELD(cb_kernel_launch, block, 32, 12);
CB_PIN_FIELD(cb_kernel_launch, flags, 44, 4);
CB_PIN_FIELD(cb_kernel_launch, args, 48, 8);
CB_PIN_FIELD(cb_kernel_launch, arg_count, 56, 8);
CB_PIN_FIELD(cb_kernel_launch, kernel_params, 64, 8);
CB_PIN_FIELD(cb_kernel_launch, stack_bytes, 72, 8);
CB_PIN_FIELD(cb_kernel_launch, heap_bytes, 80, 8);

CB_PIN_SIZE(cb_gpu_table, 408);
CB_PIN_FIELD(cb_gpu_table, struct_size, 0, 4);
CB_PIN_FIELD(cb_gpu_table, claim, 8, 8);
CB_PIN_FIELD(cb_gpu_table, device_count, 16, 8);
CB_PIN_FIELD(cb_gpu_table, open_device, 24, 8);
CB_PIN_FIELD(cb_gpu_table, close_device, 32, 8);
CB_PIN_FIELD(cb_gpu_table, get_properties, 40, 8);
CB_PIN_FIELD(cb_gpu_table, mem_alloc, 48, 8);
CB_PIN_FIELD(cb_gpu_table, mem_free, 56, 8);
CB_PIN_FIELD(cb_gpu_table, mem_info, 64, 8);
CB_PIN_FIELD(cb_gpu_table, memcpy_h2d, 72, 8);
CB_PIN_FIELD(cb_gpu_table, memcpy_d2h, 80, 8);
CB_PIN_FIELD(cb_gpu_table, memcpy_d2d, 88, 8);
CB_PIN_FIELD(cb_gpu_table, memset8, 96, 8);
CB_PIN_FIELD(cb_gpu_table, stream_create, 104, 8);
CB_PIN_FIELD(cb_gpu_table, stream_destroy, 112, 8);
CB_PIN_FIELD(cb_gpu_table, stream_synchronize, 120, 8);
CB_PIN_FIELD(cb_gpu_table, stream_query, 128, 8);
CB_PIN_FIELD(cb_gpu_table, event_create, 136, 8);
CB_PIN_FIELD(cb_gpu_table, event_destroy, 144, 8);
CB_PIN_FIELD(cb_gpu_table, event_record, 152, 8);
CB_PIN_FIELD(cb_gpu_table, event_synchronize, 160, 8);
CB_PIN_FIELD(cb_gpu_table, event_query, 168, 8);
CB_PIN_FIELD(cb_gpu_table, event_elapsed_ms, 176, 8);
CB_PIN_FIELD(cb_gpu_table, device_synchronize, 184, 8);
CB_PIN_FIELD(cb_gpu_table, launch_builtin, 192, 8);
CB_PIN_FIELD(cb_gpu_table, module_load, 200, 8);
CB_PIN_FIELD(cb_gpu_table, module_unload, 208, 8);
CB_PIN_FIELD(cb_gpu_table, launch_kernel, 216, 8);
CB_PIN_FIELD(cb_gpu_table, get_telemetry, 224, 8);
CB_PIN_FIELD(cb_gpu_table, get_settings, 232, 8);
CB_PIN_FIELD(cb_gpu_table, get_setting_limits, 240, 8);
CB_PIN_FIELD(cb_gpu_table, apply_settings, 248, 8);
CB_PIN_FIELD(cb_gpu_table, reset, 256, 8);
CB_PIN_FIELD(cb_gpu_table, heartbeat, 264, 8);
CB_PIN_FIELD(cb_gpu_table, create_endpoint_model, 272, 8);
CB_PIN_FIELD(cb_gpu_table, destroy_endpoint_model, 280, 8);
/* ABI 1.2 */
CB_PIN_FIELD(cb_gpu_table, control, 288, 8);
/* ABI 1.9 */
CB_PIN_FIELD(cb_gpu_table, processes, 328, 8);
CB_PIN_FIELD(cb_gpu_table, mem_alloc_managed, 336, 8);
CB_PIN_FIELD(cb_gpu_table, host_device_address, 344, 8);
/* ABI 1.10 */
CB_PIN_FIELD(cb_gpu_table, kernel_time, 352, 8);
/* ABI 1.11 */
CB_PIN_FIELD(cb_gpu_table, mem_host_address, 360, 8);

CB_PIN_SIZE(cb_gpu_process, 96);
CB_PIN_FIELD(cb_gpu_process, struct_size, 0, 4);
CB_PIN_FIELD(cb_gpu_process, pid, 4, 4);
CB_PIN_FIELD(cb_gpu_process, memory_used, 8, 8);
CB_PIN_FIELD(cb_gpu_process, start_unix_ns, 16, 8);
CB_PIN_FIELD(cb_gpu_process, flags, 24, 4);
CB_PIN_FIELD(cb_gpu_process, queued, 28, 4);
CB_PIN_FIELD(cb_gpu_process, name, 32, 64);

/* ---- safety.h -------------------------------------------------------------------------------- */

CB_PIN_SIZE(cb_device_facts, 72);
CB_PIN_FIELD(cb_device_facts, struct_size, 0, 4);
CB_PIN_FIELD(cb_device_facts, pci_vendor_id, 4, 2);
CB_PIN_FIELD(cb_device_facts, pci_device_id, 6, 2);
CB_PIN_FIELD(cb_device_facts, pci_class_code, 8, 4);
CB_PIN_FIELD(cb_device_facts, link_generation, 12, 4);
CB_PIN_FIELD(cb_device_facts, link_lanes, 16, 4);
CB_PIN_FIELD(cb_device_facts, link_bandwidth_gbs, 24, 8);
CB_PIN_FIELD(cb_device_facts, enclosure_power_w, 32, 8);
CB_PIN_FIELD(cb_device_facts, board_power_w, 40, 8);
CB_PIN_FIELD(cb_device_facts, min_link_bandwidth_gbs, 48, 8);
CB_PIN_FIELD(cb_device_facts, security_level, 56, 4);
CB_PIN_FIELD(cb_device_facts, iommu_dma_protection, 60, 4);
CB_PIN_FIELD(cb_device_facts, name, 64, 8);

CB_PIN_SIZE(cb_verdict, 264);
CB_PIN_FIELD(cb_verdict, struct_size, 0, 4);
CB_PIN_FIELD(cb_verdict, compatible, 4, 4);
CB_PIN_FIELD(cb_verdict, reason, 8, 256);

CB_PIN_SIZE(cb_health_sample, 128);
CB_PIN_FIELD(cb_health_sample, struct_size, 0, 4);
CB_PIN_FIELD(cb_health_sample, link_up, 4, 4);
CB_PIN_FIELD(cb_health_sample, time_ns, 8, 8);
CB_PIN_FIELD(cb_health_sample, heartbeat_age_ms, 16, 8);
CB_PIN_FIELD(cb_health_sample, temperature_c, 24, 8);
CB_PIN_FIELD(cb_health_sample, power_w, 32, 8);
CB_PIN_FIELD(cb_health_sample, power_limit_w, 40, 8);
CB_PIN_FIELD(cb_health_sample, packets, 48, 8);
CB_PIN_FIELD(cb_health_sample, packet_errors, 56, 8);
CB_PIN_FIELD(cb_health_sample, error_rate, 64, 8);
CB_PIN_FIELD(cb_health_sample, ecc_uncorrected, 72, 8);
CB_PIN_FIELD(cb_health_sample, last_xid, 80, 4);
CB_PIN_FIELD(cb_health_sample, integrity_failure, 84, 4);

CB_PIN_SIZE(cb_health_history, 40);
CB_PIN_FIELD(cb_health_history, struct_size, 0, 4);
CB_PIN_FIELD(cb_health_history, recovery_attempts, 4, 4);
CB_PIN_FIELD(cb_health_history, samples, 8, 8);
CB_PIN_FIELD(cb_health_history, sample_count, 16, 8);
CB_PIN_FIELD(cb_health_history, last_recovery_ns, 24, 8);

CB_PIN_SIZE(cb_safety_decision, 272);
CB_PIN_FIELD(cb_safety_decision, struct_size, 0, 4);
CB_PIN_FIELD(cb_safety_decision, action, 4, 4);
CB_PIN_FIELD(cb_safety_decision, delay_ms, 8, 4);
CB_PIN_FIELD(cb_safety_decision, reserved0, 12, 4);
CB_PIN_FIELD(cb_safety_decision, reason, 16, 256);

CB_PIN_SIZE(cb_safety_table, 24);
CB_PIN_FIELD(cb_safety_table, struct_size, 0, 4);
CB_PIN_FIELD(cb_safety_table, check_compatibility, 8, 8);
CB_PIN_FIELD(cb_safety_table, evaluate, 16, 8);

/* ABI 1.3 */
CB_PIN_FIELD(cb_gpu_table, host_register, 296, 8);
CB_PIN_FIELD(cb_gpu_table, host_unregister, 304, 8);
CB_PIN_FIELD(cb_gpu_table, stream_wait_event, 312, 8);
CB_PIN_FIELD(cb_gpu_table, module_global, 320, 8);
CB_PIN_FIELD(cb_health_sample, oldest_pending_ms, 88, 8);
CB_PIN_FIELD(cb_health_sample, device_lost, 96, 4);
CB_PIN_FIELD(cb_health_sample, reserved0, 100, 4);
CB_PIN_FIELD(cb_health_history, emergency_stopped, 32, 4);
CB_PIN_FIELD(cb_health_history, failed, 36, 4);
CB_PIN_FIELD(cb_endpoint_host_ops, modeled_time_ns, 40, 8);
CB_PIN_FIELD(cb_gpu_table, progress, 368, 8);
CB_PIN_FIELD(cb_gpu_table, kernel_param_info, 376, 8);  // ABI 1.14
CB_PIN_FIELD(cb_health_sample, stalled_ms, 104, 8);
CB_PIN_FIELD(cb_health_sample, dma_map_refusals, 112, 8);
CB_PIN_FIELD(cb_gpu_table, kernel_running, 384, 8);  // ABI 1.16
CB_PIN_FIELD(cb_health_sample, kernel_running_ms, 120, 8);
CB_PIN_FIELD(cb_gpu_table, mem_share, 392, 8);  // ABI 1.17
CB_PIN_FIELD(cb_gpu_table, mem_open_shared, 400, 8);
CB_PIN_VALUE(CB_GPU_SHARE_HANDLE_SIZE, 64);

/* ---- frozen ABI 1.0 sizes: the smallest struct_size the host accepts ------------------------ */

CB_PIN_VALUE(CB_PLUGIN_LIBRARY_SIZE_1_0, 24);
CB_PIN_VALUE(CB_PLUGIN_DESCRIPTOR_SIZE_1_0, 64);
CB_PIN_VALUE(CB_HOST_SERVICES_SIZE_1_0, 88);
CB_PIN_VALUE(CB_LOGSINK_TABLE_SIZE_1_0, 32);
CB_PIN_VALUE(CB_SAFETY_TABLE_SIZE_1_0, 24);
CB_PIN_VALUE(CB_TRANSPORT_TABLE_SIZE_1_0, 192);
CB_PIN_VALUE(CB_GPU_TABLE_SIZE_1_0, 288);
CB_PIN_VALUE(CB_ENDPOINT_HOST_OPS_SIZE_1_0, 40);
CB_PIN_VALUE(CB_ENDPOINT_MODEL_TABLE_SIZE_1_0, 72);

/* ---- texture_descriptor.h (what a texture or surface object handle points at) ---------------- */

CB_PIN_VALUE(CB_TEXTURE_DESCRIPTOR_MAGIC, 0x58544243u);
CB_PIN_SIZE(cb_texture_descriptor, 160);
CB_PIN_FIELD(cb_texture_descriptor, struct_size, 0, 4);
CB_PIN_FIELD(cb_texture_descriptor, magic, 4, 4);
CB_PIN_FIELD(cb_texture_descriptor, address, 8, 8);
CB_PIN_FIELD(cb_texture_descriptor, pitch, 16, 8);
CB_PIN_FIELD(cb_texture_descriptor, slice_pitch, 24, 8);
CB_PIN_FIELD(cb_texture_descriptor, width, 32, 4);
CB_PIN_FIELD(cb_texture_descriptor, layers, 44, 4);
CB_PIN_FIELD(cb_texture_descriptor, geometry, 48, 4);
CB_PIN_FIELD(cb_texture_descriptor, is_surface, 52, 4);
CB_PIN_FIELD(cb_texture_descriptor, channel_bits, 56, 16);
CB_PIN_FIELD(cb_texture_descriptor, channel_kind, 72, 4);
CB_PIN_FIELD(cb_texture_descriptor, element_bytes, 76, 4);
CB_PIN_FIELD(cb_texture_descriptor, address_mode, 80, 12);
CB_PIN_FIELD(cb_texture_descriptor, filter_mode, 92, 4);
CB_PIN_FIELD(cb_texture_descriptor, read_mode, 96, 4);
CB_PIN_FIELD(cb_texture_descriptor, normalized_coords, 100, 4);
CB_PIN_FIELD(cb_texture_descriptor, border_color, 112, 16);
CB_PIN_FIELD(cb_texture_descriptor, reserved, 128, 32);

/* ---- builtin_kernels.h (the argument bytes of a tensor operand) ----------------------------- */

CB_PIN_VALUE(CB_TENSOR_MAX_DIMS, 8);
CB_PIN_VALUE(CB_REDUCE_ALL_AXES, -1000);
CB_PIN_VALUE(sizeof(cb_dtype), 4);
CB_PIN_VALUE(CB_MODULE_HOST_KERNELS, 4);
CB_PIN_SIZE(cb_tensor_desc, 144);
CB_PIN_FIELD(cb_tensor_desc, device_ptr, 0, 8);
CB_PIN_FIELD(cb_tensor_desc, dtype, 8, 4);
CB_PIN_FIELD(cb_tensor_desc, ndim, 12, 4);
CB_PIN_FIELD(cb_tensor_desc, shape, 16, 64);
CB_PIN_FIELD(cb_tensor_desc, strides, 80, 64);

/* ---- host_kernels.h (ABI 1.3: a CB_MODULE_HOST_KERNELS image and the calls into it) ---------- */

CB_PIN_SIZE(cb_host_kernel_buffer, 16);
CB_PIN_FIELD(cb_host_kernel_buffer, data, 0, 8);
CB_PIN_FIELD(cb_host_kernel_buffer, size, 8, 8);

CB_PIN_SIZE(cb_host_kernel_call, 64);
CB_PIN_FIELD(cb_host_kernel_call, struct_size, 0, 4);
CB_PIN_FIELD(cb_host_kernel_call, grid, 4, 12);
CB_PIN_FIELD(cb_host_kernel_call, block, 16, 12);
CB_PIN_FIELD(cb_host_kernel_call, block_index, 28, 12);
CB_PIN_FIELD(cb_host_kernel_call, args, 40, 8);
CB_PIN_FIELD(cb_host_kernel_call, buffers, 48, 8);
CB_PIN_FIELD(cb_host_kernel_call, arg_count, 56, 8);

CB_PIN_SIZE(cb_host_kernel, 16);
CB_PIN_FIELD(cb_host_kernel, name, 0, 8);
CB_PIN_FIELD(cb_host_kernel, fn, 8, 8);

CB_PIN_SIZE(cb_host_kernel_module, 24);
CB_PIN_FIELD(cb_host_kernel_module, struct_size, 0, 4);
CB_PIN_FIELD(cb_host_kernel_module, reserved0, 4, 4);
CB_PIN_FIELD(cb_host_kernel_module, kernels, 8, 8);
CB_PIN_FIELD(cb_host_kernel_module, kernel_count, 16, 8);

#endif /* UINTPTR_MAX == 0xffffffffffffffff */

#endif /* CUDABRIDGE_TESTS_ABI_LAYOUT_LP64_H */
