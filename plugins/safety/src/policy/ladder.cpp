#include "policy/ladder.hpp"

#include <algorithm>

namespace cudabridge::plugins::safety {

cb_safety_action climb(cb_safety_action entry, uint32_t attempts) {
    if (entry < CB_ACTION_SOFT_RESET || entry > CB_ACTION_RECONNECT) return entry;
    const uint32_t rungs_left = static_cast<uint32_t>(CB_ACTION_RECONNECT - entry);
    return static_cast<cb_safety_action>(entry + std::min(attempts, rungs_left));
}

const char* action_phrase(cb_safety_action action) {
    switch (action) {
    case CB_ACTION_NONE:
        return "no action";
    case CB_ACTION_WARN:
        return "warning";
    case CB_ACTION_THROTTLE:
        return "throttle";
    case CB_ACTION_SOFT_RESET:
        return "soft reset";
    case CB_ACTION_HARD_RESET:
        return "hard reset";
    case CB_ACTION_RECONNECT:
        return "reconnect";
    case CB_ACTION_EMERGENCY_STOP:
        return "emergency stop";
    case CB_ACTION_MARK_FAILED:
        return "mark failed";
    case CB_ACTION_RESUME:
        return "resume";
    default:
        return "unknown action";
    }
}

}  // namespace cudabridge::plugins::safety
