// Which export a loader slot was bound to ("cuMemAlloc" → "cuMemAlloc_v2").
#pragma once

#include <string>
#include <vector>

namespace cudabridge::nv {

struct bound_symbol {
    std::string api;    // the slot, named after the API ("cuMemAlloc")
    std::string bound;  // the export dlsym found ("cuMemAlloc_v2"); empty when missing
};

// The export bound to slot `api`, or "" when it is missing or unknown.
inline std::string bound_name_of(const std::vector<bound_symbol>& bound, const std::string& api) {
    for (const auto& b : bound)
        if (b.api == api) return b.bound;
    return {};
}

}  // namespace cudabridge::nv
