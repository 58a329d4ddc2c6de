// The decision for one health interval. Where the standard policy would recover on its own, this
// one stops and waits for a person:
//   - a device marked failed stays failed;
//   - at or over the thermal limit: emergency stop; during a stop it never asks to resume;
//   - any fault (link down, device lost, no heartbeat, stuck work, integrity failure, new
//     uncorrected ECC errors, a new Xid, too many link errors): mark failed, never a reset or a
//     reconnect;
//   - near the thermal limit or above half the error threshold: warn; else nothing.
// `cudabridge-cli reset` is the way back from a stop or a failed mark.
#pragma once

#include "parameters.hpp"
#include "samples.hpp"

#include <cudabridge/safety.h>

#include <string>

namespace conservative {

struct decision {
    cb_safety_action action = CB_ACTION_NONE;
    std::string reason;
};

decision decide(const health_view& health, const parameters& p);

}  // namespace conservative
