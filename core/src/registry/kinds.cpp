#include "internal.hpp"

#include <cstdio>

namespace cudabridge::core {

const char* kind_name(cb_plugin_kind kind) noexcept {
    switch (kind) {
    case CB_KIND_TRANSPORT:
        return "transport";
    case CB_KIND_GPU:
        return "gpu";
    case CB_KIND_SAFETY:
        return "safety";
    case CB_KIND_LOGSINK:
        return "logsink";
    default:
        return "unknown";
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
    std::snprintf(buf, sizeof buf, "%u.%u.%u", CB_VERSION_MAJOR(v), CB_VERSION_MINOR(v), CB_VERSION_PATCH(v));
    return buf;
}

// The frozen ABI 1.0 sizes, not today's sizeof: a table that grows must not refuse older plugins.
size_t minimum_table_size(cb_plugin_kind kind) {
    switch (kind) {
    case CB_KIND_LOGSINK:
        return CB_LOGSINK_TABLE_SIZE_1_0;
    case CB_KIND_SAFETY:
        return CB_SAFETY_TABLE_SIZE_1_0;
    case CB_KIND_TRANSPORT:
        return CB_TRANSPORT_TABLE_SIZE_1_0;
    case CB_KIND_GPU:
        return CB_GPU_TABLE_SIZE_1_0;
    default:
        return 0;
    }
}

size_t host_table_size(cb_plugin_kind kind) {
    switch (kind) {
    case CB_KIND_LOGSINK:
        return sizeof(cb_logsink_table);
    case CB_KIND_SAFETY:
        return sizeof(cb_safety_table);
    case CB_KIND_TRANSPORT:
        return sizeof(cb_transport_table);
    case CB_KIND_GPU:
        return sizeof(cb_gpu_table);
    default:
        return 0;
    }
}

}  // namespace cudabridge::core
