// What the policy reads of a cb_health_history: copied out of the ABI records into full-size
// structs, with every field an older (ABI 1.0) host lacks set to zero.
//
// Sample records are laid out with a stride of their own struct_size (that of the first one):
// a host built against an older header hands an array of shorter records, a newer host one of
// longer records, and both index correctly that way.
#pragma once

#include <cudabridge/safety.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace cudabridge::plugins::safety {

// Record sizes of ABI 1.0 (the smallest the policy accepts).
inline constexpr size_t sample_size_v1_0 = offsetof(cb_health_sample, oldest_pending_ms);
inline constexpr size_t history_size_v1_0 = offsetof(cb_health_history, emergency_stopped);
// A sample record larger than this is taken for garbage, not a future ABI.
inline constexpr size_t sample_size_limit = 4096;

struct health_input {
    uint32_t recovery_attempts = 0;            // consecutive attempts already made
    bool emergency_stopped = false;            // ABI 1.3
    bool failed = false;                       // ABI 1.3
    cb_health_sample current{};                // the last sample
    std::optional<cb_health_sample> previous;  // the one before, when there is one
};

// Fills `out` from `history`; on bad input returns why (NULL history or samples, a count of 0, a
// record smaller than ABI 1.0) and leaves `out` unspecified.
std::optional<std::string> read_health_input(const cb_health_history* history, health_input& out);

}  // namespace cudabridge::plugins::safety
