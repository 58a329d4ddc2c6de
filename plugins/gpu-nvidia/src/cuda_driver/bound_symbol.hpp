// Which export a loader slot was bound to ("cuMemAlloc" → "cuMemAlloc_v2").
#pragma once

#include <string>

namespace cudabridge::nv {

struct bound_symbol {
    std::string api;    // the slot, named after the API ("cuMemAlloc")
    std::string bound;  // the export dlsym found ("cuMemAlloc_v2"); empty when missing
};

}  // namespace cudabridge::nv
