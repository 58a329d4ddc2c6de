// egpu_safety.h: the seed's safety calls over the process's runtime, its devices and supervisor.
#include <egpu_safety.h>

#include "c_api/runtime_registry.hpp"
#include "runtime/errors.hpp"

#include <string>

using namespace cudabridge::host;

namespace {

thread_local std::string egpu_message;

EGPUError fail(EGPUError e, const std::string& message) {
    egpu_message = message;
    return e;
}

EGPUError from_step(const std::string& step) {
    if (step == "detect") return EGPU_ERR_NO_DEVICE;
    if (step == "compatibility") return EGPU_ERR_INCOMPATIBLE;
    if (step == "authorization") return EGPU_ERR_AUTHORIZATION;
    if (step == "tunnel") return EGPU_ERR_TUNNEL;
    if (step == "gpu_init") return EGPU_ERR_INIT;
    return EGPU_ERR_INTERNAL;
}

EGPUConnectionState state_of_step(const std::string& step) {
    if (step == "detect") return EGPU_STATE_DETECTING;
    if (step == "compatibility") return EGPU_STATE_CHECKING;
    if (step == "authorization") return EGPU_STATE_AUTHORIZING;
    if (step == "tunnel") return EGPU_STATE_TUNNELING;
    return EGPU_STATE_INITIALIZING;
}

std::string number(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
}

template <typename F>
EGPUError guarded(F&& f) noexcept {
    try {
        return f();
    } catch (const std::exception& e) {
        return fail(EGPU_ERR_INTERNAL, e.what());
    } catch (...) {
        return fail(EGPU_ERR_INTERNAL, "unexpected failure");
    }
}

}  // namespace

extern "C" {

EGPUSafetyPolicy egpu_default_policy(void) { return EGPUSafetyPolicy{3, 500, 1000, 5000, 0.01, 90.0, 1, 1}; }

EGPUError egpu_safety_init(const EGPUSafetyPolicy* policy) {
    return guarded([&] {
        auto& r = c_api::registry();
        {
            std::lock_guard lock(r.mutex);
            if (r.owned && policy)
                return fail(EGPU_ERR_INVALID_ARGUMENT,
                            "egpu_safety_init: the runtime is already running; pass a policy before cbInit or after "
                            "egpu_safety_shutdown");
            if (policy) {
                if (policy->heartbeat_interval_ms == 0 ||
                    policy->heartbeat_timeout_ms < policy->heartbeat_interval_ms || policy->error_rate_threshold < 0 ||
                    policy->error_rate_threshold > 1 || policy->thermal_limit <= 0)
                    return fail(EGPU_ERR_INVALID_ARGUMENT,
                                "egpu_safety_init: a policy value is out of range (heartbeat interval > 0, timeout >= "
                                "interval, 0 <= error rate <= 1, thermal limit > 0)");
                r.policy = {{"max_retry_count", std::to_string(policy->max_retry_count)},
                            {"retry_delay_ms", std::to_string(policy->retry_delay_ms)},
                            {"heartbeat_interval_ms", std::to_string(policy->heartbeat_interval_ms)},
                            {"heartbeat_timeout_ms", std::to_string(policy->heartbeat_timeout_ms)},
                            {"error_rate_threshold", number(policy->error_rate_threshold)},
                            {"thermal_limit", number(policy->thermal_limit)},
                            {"enable_auto_recovery", policy->enable_auto_recovery ? "1" : "0"},
                            {"enable_data_integrity", policy->enable_data_integrity ? "1" : "0"}};
            }
        }
        if (!c_api::get_runtime(false)) return fail(EGPU_ERR_INTERNAL, last_error_message());
        return EGPU_OK;
    });
}

EGPUError egpu_set_event_callback(EGPUEventCallback callback, void* user_data) {
    auto& r = c_api::registry();
    std::unique_lock lock(r.callback_mutex);  // waits for a call of the previous one to end
    r.callback = callback;
    r.callback_user = user_data;
    return EGPU_OK;
}

EGPUError egpu_connect(int device) {
    return guarded([&] {
        if (device < -1) return fail(EGPU_ERR_INVALID_ARGUMENT, "egpu_connect: device must be -1 (auto) or an index");
        runtime* rt = c_api::get_runtime(false);
        if (!rt) return fail(EGPU_ERR_NOT_INITIALIZED, last_error_message());
        std::lock_guard lock(c_api::registry().mutex);
        // Already connected (here, or by another process this runtime attached to): the seed's
        // sequence goes on as if this call had connected it.
        if (rt->device_count() > 0) return EGPU_OK;
        connect_options o;
        o.device = device < 0 ? "" : std::to_string(device);
        // The seed's callback hears each step of the sequence as a state.
        o.on_step = [](const step_record& r) {
            c_api::notify(state_of_step(r.name), r.ok ? EGPU_OK : from_step(r.name), r.name + ": " + r.detail);
        };
        try {
            const int n = rt->adopt(connect(rt->current_session(), o));
            c_api::forward_events(rt->device(n));
            c_api::notify(EGPU_STATE_CONNECTED, EGPU_OK, std::string("connected: ") + rt->device(n).properties().name);
        } catch (const connect_error& e) {
            c_api::notify(EGPU_STATE_DISCONNECTED, from_step(e.step()), e.what());
            return fail(from_step(e.step()), e.what());
        }
        return EGPU_OK;
    });
}

static EGPUError disconnect_all(bool force) {
    return guarded([&] {
        runtime* rt = c_api::registry().current.load();
        if (!rt || rt->device_count() == 0) return fail(EGPU_ERR_NOT_CONNECTED, "no eGPU is connected");
        std::lock_guard lock(c_api::registry().mutex);
        disconnect_options o;
        o.force = force;
        for (const auto& report : rt->disconnect_all(o))
            if (!report.drained && !force)
                return fail(EGPU_ERR_TIMEOUT, "disconnected, but pending work did not drain in time and was aborted");
        return EGPU_OK;
    });
}

EGPUError egpu_safe_disconnect(void) { return disconnect_all(false); }
EGPUError egpu_force_disconnect(void) { return disconnect_all(true); }

EGPUConnectionState egpu_get_state(void) {
    runtime* rt = c_api::registry().current.load();
    if (!rt) return EGPU_STATE_DISCONNECTED;
    try {
        return static_cast<EGPUConnectionState>(rt->device(0).state());
    } catch (...) {
        return EGPU_STATE_DISCONNECTED;
    }
}

EGPUError egpu_safety_shutdown(void) {
    cbShutdown();
    auto& r = c_api::registry();
    std::lock_guard lock(r.mutex);
    r.policy.clear();
    return EGPU_OK;
}

const char* egpu_error_string(EGPUError e) {
    switch (e) {
    case EGPU_OK:
        return "success";
    case EGPU_ERR_NOT_INITIALIZED:
        return "egpu_safety_init was not called (or failed)";
    case EGPU_ERR_INVALID_ARGUMENT:
        return "invalid argument";
    case EGPU_ERR_NO_DEVICE:
        return "no eGPU detected";
    case EGPU_ERR_INCOMPATIBLE:
        return "refused by the safety policy";
    case EGPU_ERR_AUTHORIZATION:
        return "Thunderbolt authorization failed";
    case EGPU_ERR_TUNNEL:
        return "the PCIe tunnel could not be opened";
    case EGPU_ERR_INIT:
        return "GPU initialisation failed";
    case EGPU_ERR_LINK_DOWN:
        return "the link is down";
    case EGPU_ERR_DEVICE_LOST:
        return "the device was lost";
    case EGPU_ERR_TIMEOUT:
        return "timed out";
    case EGPU_ERR_THERMAL:
        return "thermal limit exceeded (emergency stop)";
    case EGPU_ERR_INTEGRITY:
        return "data integrity check failed";
    case EGPU_ERR_RECOVERY_FAILED:
        return "recovery failed";
    case EGPU_ERR_NOT_CONNECTED:
        return "not connected";
    case EGPU_ERR_PERMISSION:
        return "permission denied";
    case EGPU_ERR_INTERNAL:
        return "internal error";
    }
    return "unknown error";
}

const char* egpu_state_string(EGPUConnectionState s) { return state_name(static_cast<device_state>(s)); }
const char* egpu_last_error_message(void) { return egpu_message.c_str(); }

}  // extern "C"
