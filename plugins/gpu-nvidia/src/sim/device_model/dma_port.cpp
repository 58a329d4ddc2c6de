#include "sim/device_model/dma_port.hpp"

#include "sim/device_model/host_wall_clock.hpp"

#include <algorithm>
#include <cstring>

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

dma_port::dma_port(const cb_endpoint_host_ops& ops) {
    std::memcpy(&ops_, &ops, std::min<size_t>(ops.struct_size, sizeof ops_));
    ops_.struct_size = sizeof ops_;
}

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

uint64_t dma_port::modeled_time_ns() const { return ops_.modeled_time_ns ? ops_.modeled_time_ns(ops_.context) : 0; }

link_stopwatch::link_stopwatch(const dma_port& port) : port_(port), start_(read()) {}

uint64_t link_stopwatch::read() const { return port_.models_time() ? port_.modeled_time_ns() : monotonic_ns(); }

uint64_t link_stopwatch::elapsed_ns() const {
    const uint64_t now = read();
    return now > start_ ? now - start_ : 0;
}

}  // namespace cudabridge::nv
