#include "internal.hpp"

namespace cudabridge::core {

plugin_instance::~plugin_instance() {
    if (instance_ == nullptr || descriptor_ == nullptr) return;
    // A sink is closed before it is destroyed, as the logsink contract says.
    if (info_.kind == CB_KIND_LOGSINK && table_.logsink.close) table_.logsink.close(instance_);
    descriptor_->destroy(instance_);
}

const cb_logsink_table* plugin_instance::logsink() const {
    return info_.kind == CB_KIND_LOGSINK ? &table_.logsink : nullptr;
}
const cb_safety_table* plugin_instance::safety() const {
    return info_.kind == CB_KIND_SAFETY ? &table_.safety : nullptr;
}
const cb_transport_table* plugin_instance::transport() const {
    return info_.kind == CB_KIND_TRANSPORT ? &table_.transport : nullptr;
}
const cb_gpu_table* plugin_instance::gpu() const { return info_.kind == CB_KIND_GPU ? &table_.gpu : nullptr; }

}  // namespace cudabridge::core
