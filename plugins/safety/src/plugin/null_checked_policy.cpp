#include "plugin/null_checked_policy.hpp"

namespace cudabridge::plugins::safety {

namespace {

cb_status refuse_null(const null_checked_policy& self, const char* message) noexcept {
    self.host_services().set_last_error(message);
    return CB_ERR_INVALID_ARGUMENT;
}

cb_status check_compatibility_entry(void* instance, const cb_device_facts* facts, cb_verdict* out) noexcept {
    if (instance == nullptr) return CB_ERR_INVALID_ARGUMENT;  // no host to tell
    auto* self = static_cast<null_checked_policy*>(instance);
    if (facts == nullptr) return refuse_null(*self, "check_compatibility: facts is NULL");
    if (out == nullptr) return refuse_null(*self, "check_compatibility: verdict (out) is NULL");
    return sdk::guard(self->host_services(), [&]() -> cb_status { return self->check_compatibility(*facts, *out); });
}

cb_status evaluate_entry(void* instance, const cb_health_history* history, cb_safety_decision* out) noexcept {
    if (instance == nullptr) return CB_ERR_INVALID_ARGUMENT;
    auto* self = static_cast<null_checked_policy*>(instance);
    if (history == nullptr) return refuse_null(*self, "evaluate: history is NULL");
    if (out == nullptr) return refuse_null(*self, "evaluate: decision (out) is NULL");
    return sdk::guard(self->host_services(), [&]() -> cb_status { return self->evaluate(*history, *out); });
}

}  // namespace

const cb_safety_table* null_checked_policy::table() {
    static const cb_safety_table t = {sizeof(cb_safety_table), &check_compatibility_entry, &evaluate_entry};
    return &t;
}

}  // namespace cudabridge::plugins::safety
