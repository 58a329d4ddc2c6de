// What the policy reads of a health history: the current sample, the one before it, and the
// host's flags, copied into full-size records so that a host built for an older or newer ABI
// (shorter or longer records) reads the same. Fields an older host lacks read as zero.
#pragma once

#include <cudabridge/safety.h>

#include <optional>
#include <string>

namespace conservative {

struct health_view {
    cb_health_sample current{};
    std::optional<cb_health_sample> previous;  // none on the first sample after connecting
    bool emergency_stopped = false;            // ABI 1.3
    bool failed = false;                       // ABI 1.3
};

// Fills `out`; on a history that cannot be read (NULL, too small, no samples) returns why.
std::optional<std::string> read_history(const cb_health_history* history, health_view& out);

}  // namespace conservative
