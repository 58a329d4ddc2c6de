// Fault classification: which faults the current sample shows, each with the recovery rung it
// enters at (reliability notes §1.1: classify first, then enter the ladder at the right rung).
#pragma once

#include "policy/health_input.hpp"
#include "policy/parameters.hpp"

#include <cudabridge/safety.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cudabridge::plugins::safety {

struct fault {
    cb_safety_action entry;  // CB_ACTION_SOFT_RESET, _HARD_RESET or _RECONNECT
    std::string what;        // "link down", "Xid 48 (double-bit ECC error)"
};

// Every fault present, the highest entry rung first (ties keep the order of the rules).
std::vector<fault> classify(const health_input& in, const parameters& p);

// The Xid the current sample newly reports: its last_xid when non-zero and different from the
// previous sample's; 0 otherwise. The first sample has nothing to compare with, so its Xid is a
// baseline (it may predate the connection), as is its ECC count.
uint32_t new_xid(const health_input& in);

// The rung an Xid enters at; CB_ACTION_NONE when no rule covers it.
cb_safety_action xid_entry_rung(uint32_t xid);

// A short meaning of an Xid ("GPU has fallen off the bus"); nullptr when unknown.
const char* xid_meaning(uint32_t xid);

}  // namespace cudabridge::plugins::safety
