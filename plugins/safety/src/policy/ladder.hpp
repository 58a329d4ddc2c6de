// The recovery ladder: soft reset -> hard reset -> reconnect. A fault enters at its own rung
// and each failed attempt climbs one rung, never past reconnect.
#pragma once

#include <cudabridge/safety.h>

#include <cstdint>

namespace cudabridge::plugins::safety {

// The rung for the next attempt after `attempts` failed ones entered at `entry`.
cb_safety_action climb(cb_safety_action entry, uint32_t attempts);

// What an action does, in a few words ("soft reset").
const char* action_phrase(cb_safety_action action);

}  // namespace cudabridge::plugins::safety
