#include "userspace/driver/chunk_plan.hpp"

#include <algorithm>

namespace cudabridge::nv {

uint64_t staging_chunk_bytes(const cb_dma_limits& limits, uint64_t preferred) {
    const uint64_t page = limits.page_size != 0 ? limits.page_size : 4096;
    uint64_t chunk = std::max(preferred, page);
    if (limits.max_mapped_bytes != UINT64_MAX) {
        const uint64_t in_use = std::min(limits.mapped_bytes, limits.max_mapped_bytes);
        const uint64_t remaining = limits.max_mapped_bytes - in_use;
        const uint64_t edges = 4 * page;  // a partial page at both ends of both chunks
        chunk = std::min(chunk, remaining > edges ? (remaining - edges) / 2 : 0);
    }
    chunk -= chunk % page;
    return std::max(chunk, page);
}

}  // namespace cudabridge::nv
