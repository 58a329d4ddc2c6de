#include "internal.hpp"

#include <cstdio>

namespace cudabridge::core {

const char* kind_name(cb_plugin_kind kind) noexcept {
    switch (kind) {
    case CB_KIND_TRANSPORT: return "transport";
    case CB_KIND_GPU: return "gpu";
    case CB_KIND_SAFETY: return "safety";
    case CB_KIND_LOGSINK: return "logsink";
    default: return "unknown";
    }
}

std::optional<cb_plugin_kind> parse_kind(std::string_view text) {
    for (cb_plugin_kind k : {CB_KIND_TRANSPORT, CB_KIND_GPU, CB_KIND_SAFETY, CB_KIND_LOGSINK})
        if (text == kind_name(k)) return k;
    if (text == "log-sink" || text == "log_sink") return CB_KIND_LOGSINK;
    return std::nullopt;
}

std::string version_string(uint32_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%u.%u.%u", CB_VERSION_MAJOR(v), CB_VERSION_MINOR(v),
                  CB_VERSION_PATCH(v));
    return buf;
}

size_t minimum_table_size(cb_plugin_kind kind) {
    switch (kind) {
    // ABI 1.1 appended write_batch; a 1.0 sink ends before it.
    case CB_KIND_LOGSINK: return offsetof(cb_logsink_table, write_batch);
    case CB_KIND_SAFETY: return sizeof(cb_safety_table);
    // ABI 1.1 appended control; a 1.0 transport ends before it.
    case CB_KIND_TRANSPORT: return offsetof(cb_transport_table, control);
    // ABI 1.2 appended control; a 1.0 or 1.1 GPU family ends before it.
    case CB_KIND_GPU: return offsetof(cb_gpu_table, control);
    default: return 0;
    }
}

size_t host_table_size(cb_plugin_kind kind) {
    switch (kind) {
    case CB_KIND_LOGSINK: return sizeof(cb_logsink_table);
    case CB_KIND_SAFETY: return sizeof(cb_safety_table);
    case CB_KIND_TRANSPORT: return sizeof(cb_transport_table);
    case CB_KIND_GPU: return sizeof(cb_gpu_table);
    default: return 0;
    }
}

}  // namespace cudabridge::core
