// Whether a vendor library is usable here, and if not, why.
#pragma once

#include <cudabridge/abi.h>

#include <functional>
#include <string>
#include <vector>

namespace cudabridge::nv {

struct availability {
    bool available = false;
    cb_status status = CB_ERR_NO_DEVICE;  // CB_OK when available
    std::string reason;                   // human-readable; empty when available
    int driver_version = 0;               // CUDA: 1000*major + 10*minor (13000); NVML: 0
    int device_count = 0;
};

// A driver's last step: it sees `count` devices. None is CB_ERR_NO_DEVICE with `none_reason`;
// any is available.
inline void settle_device_count(availability& a, int count, const char* none_reason) {
    a.device_count = count;
    if (count <= 0) {
        a.status = CB_ERR_NO_DEVICE;
        a.reason = none_reason;
        return;
    }
    a.available = true;
    a.status = CB_OK;
}

// Tries each candidate library in order with `try_load(candidate, why)` until one loads. When none
// does, returns CB_ERR_NOT_FOUND with every candidate's reason ("<what> not loadable: a; b").
// A loaded library's availability is the caller's to fill; the result is then unused.
inline availability load_first(const std::vector<std::string>& candidates, const std::string& what,
                               const std::function<bool(const std::string&, std::string&)>& try_load) {
    std::string reasons;
    for (const auto& c : candidates) {
        std::string why;
        if (try_load(c, why)) return {true, CB_OK, "", 0, 0};
        reasons += (reasons.empty() ? "" : "; ") + why;
    }
    availability a;
    a.status = CB_ERR_NOT_FOUND;
    a.reason = candidates.empty() ? "no " + what + " library to try" : what + " not loadable: " + reasons;
    return a;
}

}  // namespace cudabridge::nv
