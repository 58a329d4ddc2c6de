#include "c_api/runtime_registry.hpp"

#include "runtime/errors.hpp"

#include <algorithm>

namespace cudabridge::host::c_api {
namespace {

// The C states are the device states, number for number.
EGPUConnectionState to_c_state(device_state s) { return static_cast<EGPUConnectionState>(s); }

EGPUError to_c_error(cb_status st) {
    switch (st) {
    case CB_OK:
        return EGPU_OK;
    case CB_ERR_DEVICE_LOST:
        return EGPU_ERR_DEVICE_LOST;
    case CB_ERR_LINK_DOWN:
        return EGPU_ERR_LINK_DOWN;
    case CB_ERR_TIMEOUT:
        return EGPU_ERR_TIMEOUT;
    case CB_ERR_THERMAL_LIMIT:
        return EGPU_ERR_THERMAL;
    case CB_ERR_INTEGRITY:
        return EGPU_ERR_INTEGRITY;
    case CB_ERR_PERMISSION:
        return EGPU_ERR_PERMISSION;
    case CB_ERR_NO_DEVICE:
        return EGPU_ERR_NO_DEVICE;
    case CB_ERR_INVALID_ARGUMENT:
        return EGPU_ERR_INVALID_ARGUMENT;
    default:
        return EGPU_ERR_INTERNAL;
    }
}

}  // namespace

runtime_registry& registry() {
    static runtime_registry r;
    return r;
}

void notify(EGPUConnectionState state, EGPUError error, const std::string& message) {
    std::shared_lock lock(registry().callback_mutex);
    if (registry().callback) registry().callback(state, error, message.c_str(), registry().callback_user);
}

void forward_events(host::device& d) {
    d.add_callback([](const device_event& e) { notify(to_c_state(e.state), to_c_error(e.status), e.message); });
}

runtime* get_runtime(bool autoconnect) {
    auto& r = registry();
    if (runtime* rt = r.current.load(std::memory_order_acquire)) return rt;
    std::lock_guard lock(r.mutex);
    if (r.owned) return r.owned.get();
    try {
        runtime_options o;
        o.autoconnect = autoconnect;
        o.session.safety_config = r.policy;
        // A program that embeds the runtime shows its user warnings and errors only, as the Python
        // package does; the log file and the database keep INFO and up (a log.sinks setting that
        // gives the console its own level wins).
        o.session.console_level = CB_LOG_WARN;
        r.owned = std::make_unique<runtime>(std::move(o));
        for (int i = 0; i < r.owned->device_count(); ++i) forward_events(r.owned->device(i));
        r.current.store(r.owned.get(), std::memory_order_release);
        return r.owned.get();
    } catch (const std::exception& e) {
        set_last_error(cbErrorInitializationError, std::string("CudaBridge could not start: ") + e.what());
        return nullptr;
    }
}

}  // namespace cudabridge::host::c_api
