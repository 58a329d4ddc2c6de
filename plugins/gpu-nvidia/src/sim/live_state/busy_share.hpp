// The share of time an engine was busy, as NVML's utilization reports it: busy time added as work
// completes, turned at each reading into the share of the time since the previous reading,
// smoothed over about half a second (as the thermal model smooths activity). Busy time that
// arrives in a lump is spread over the following readings, at most one second of it carried.
// Trivially copyable: it lives in the live state file that processes share.
#pragma once

#include <cstdint>

namespace cudabridge::nv {

struct busy_share {
    uint64_t busy_ns = 0;     // added since the counter began
    uint64_t counted_ns = 0;  // part of busy_ns the readings have turned into shares
    double share = 0;         // smoothed, 0..1

    void add(uint64_t ns) { busy_ns += ns; }
    // A reading `elapsed_ns` after the previous one.
    void advance(uint64_t elapsed_ns);
};

}  // namespace cudabridge::nv
