// The layout pins, checked by a C++20 compiler (static_assert + offsetof).
#include "abi_layout_lp64.h"

#include <type_traits>

// The host and plugins copy these structs byte-wise and share them across compilers: they must
// stay standard-layout and trivially copyable in C++ as well.
#define CB_PIN_PLAIN(T)                                                     \
    static_assert(std::is_standard_layout_v<T>, #T " not standard-layout"); \
    static_assert(std::is_trivially_copyable_v<T>, #T " not trivially copyable")

CB_PIN_PLAIN(cb_param_decl);
CB_PIN_PLAIN(cb_host_services);
CB_PIN_PLAIN(cb_config_entry);
CB_PIN_PLAIN(cb_config);
CB_PIN_PLAIN(cb_plugin_descriptor);
CB_PIN_PLAIN(cb_plugin_library);
CB_PIN_PLAIN(cb_log_record);
CB_PIN_PLAIN(cb_logsink_table);
CB_PIN_PLAIN(cb_bar_info);
CB_PIN_PLAIN(cb_endpoint_host_ops);
CB_PIN_PLAIN(cb_endpoint_model_table);
CB_PIN_PLAIN(cb_endpoint_info);
CB_PIN_PLAIN(cb_dma_limits);
CB_PIN_PLAIN(cb_link_status);
CB_PIN_PLAIN(cb_transport_event);
CB_PIN_PLAIN(cb_transport_table);
CB_PIN_PLAIN(cb_gpu_open_params);
CB_PIN_PLAIN(cb_gpu_properties);
CB_PIN_PLAIN(cb_gpu_telemetry);
CB_PIN_PLAIN(cb_gpu_settings);
CB_PIN_PLAIN(cb_gpu_setting_limits);
CB_PIN_PLAIN(cb_kernel_arg);
CB_PIN_PLAIN(cb_kernel_launch);
CB_PIN_PLAIN(cb_gpu_table);
CB_PIN_PLAIN(cb_device_facts);
CB_PIN_PLAIN(cb_verdict);
CB_PIN_PLAIN(cb_health_sample);
CB_PIN_PLAIN(cb_health_history);
CB_PIN_PLAIN(cb_safety_decision);
CB_PIN_PLAIN(cb_safety_table);

extern const int cb_abi_layout_checked_in_cpp;
const int cb_abi_layout_checked_in_cpp = 1;
