// The tests behind `cudabridge-cli diag -r 1|2|3`, after dcgmi diag's levels: 1 software and
// deployment, 2 adds the link and a VRAM pattern test, 3 adds a verified compute stress with
// the thermal and power behaviour under it. Each test gives PASS, WARN or FAIL with its reason.
#pragma once

#include "json_output.hpp"

#include <cudabridge/host/runtime.hpp>

#include <functional>
#include <string>
#include <vector>

namespace cudabridge::cli {

enum class verdict { pass = 0, warn = 1, fail = 2 };
const char* verdict_name(verdict v) noexcept;  // "PASS", "WARN", "FAIL"

struct diag_result {
    int level = 1;
    std::string test;  // "plugins", "store_integrity", ...
    verdict result = verdict::pass;
    std::string reason;   // why, in a sentence
    json_object details;  // figures behind it (may be null)
};

struct diag_context {
    host::runtime& rt;
    int device = -1;  // the device the level 2 and 3 tests use; -1 when none is connected
    double stress_seconds = 10;
    std::function<void(const diag_result&)> report;  // called as each test ends
    std::string unreachable;                         // app::unreachable_egpu() when no device is attached
};

// Level 1: plugins, store integrity, driver availability, permissions, settings, the link's
// authorization and parameters.
void software_checks(diag_context& c);
// Level 2: bandwidth both ways against the link's usable figure, latency, CRC / replay counts,
// link downgrade, a VRAM pattern test.
void link_checks(diag_context& c);
// Level 3: a verified compute stress and the thermal / power behaviour under it.
void stress_checks(diag_context& c);

}  // namespace cudabridge::cli
