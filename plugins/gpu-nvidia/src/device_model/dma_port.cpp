#include "device_model/dma_port.hpp"

#include <algorithm>

namespace cudabridge::nv {
namespace {

// One transfer in pieces: step(offset, bytes) moves one piece.
template <class Step>
cb_status in_pieces(size_t size, const abort_check& abort, Step step) {
    for (size_t done = 0; done < size;) {
        if (abort && abort()) return CB_ERR_DEVICE_LOST;
        const size_t piece = std::min(dma_piece_bytes, size - done);
        if (cb_status st = step(done, piece); st != CB_OK) return st;
        done += piece;
    }
    return CB_OK;
}

}  // namespace

cb_status dma_port::read(uint64_t iova, void* dst, size_t size, const abort_check& abort) const {
    if (!ops_.dma_read) return CB_ERR_LINK_DOWN;
    auto* out = static_cast<uint8_t*>(dst);
    return in_pieces(size, abort, [&](size_t offset, size_t piece) {
        return ops_.dma_read(ops_.context, iova + offset, out + offset, piece);
    });
}

cb_status dma_port::write(uint64_t iova, const void* src, size_t size, const abort_check& abort) const {
    if (!ops_.dma_write) return CB_ERR_LINK_DOWN;
    const auto* in = static_cast<const uint8_t*>(src);
    return in_pieces(size, abort, [&](size_t offset, size_t piece) {
        return ops_.dma_write(ops_.context, iova + offset, in + offset, piece);
    });
}

cb_status dma_port::interrupt(uint32_t vector) const {
    if (!ops_.raise_interrupt) return CB_ERR_LINK_DOWN;
    return ops_.raise_interrupt(ops_.context, vector);
}

}  // namespace cudabridge::nv
