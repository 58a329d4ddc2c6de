// How large one chunk of a staged host copy may be: what the caller asked for, a whole number of
// IOMMU pages, and small enough that two chunks (the one running and the one being mapped) fit in
// what the IOMMU has left. Each chunk may start inside a page, so it can take one page more at
// either end than its length.
#pragma once

#include <cudabridge/transport.h>

#include <cstdint>

namespace cudabridge::nv {

// Never less than one page: when even that does not fit, mapping will say so (CB_ERR_DMA_LIMIT).
uint64_t staging_chunk_bytes(const cb_dma_limits& limits, uint64_t preferred);

}  // namespace cudabridge::nv
