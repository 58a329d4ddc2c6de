// The policy's decision for one health interval, from the history and the parameters:
//   1. a device marked failed stays failed;
//   2. at or over the thermal limit: emergency stop (even with auto recovery off);
//   3. during an emergency stop: resume once cooled below limit - hysteresis, else wait;
//   4. faults: enter the ladder at the highest rung present, climb one rung per failed attempt,
//      mark failed when the attempts are spent; only warn when auto recovery is off;
//   5. no fault: warn near the thermal limit, above half the error-rate threshold, or on an Xid
//      no rule covers; otherwise healthy.
#pragma once

#include "policy/health_input.hpp"
#include "policy/parameters.hpp"

#include <cudabridge/safety.h>

#include <cstdint>
#include <string>

namespace cudabridge::plugins::safety {

struct decision {
    cb_safety_action action = CB_ACTION_NONE;
    uint32_t delay_ms = 0;  // retry_delay_ms on a repeated attempt, else 0
    std::string reason;     // one sentence with the figures
};

decision decide(const health_input& in, const parameters& p);

// The temperature below which work may restart after an emergency stop, and from which the
// policy warns: thermal_limit - thermal_hysteresis_c.
double restart_temperature(const parameters& p);

}  // namespace cudabridge::plugins::safety
