// The device's side of the link: the host's DMA and interrupt entry points (cb_endpoint_host_ops)
// as the engines use them. Long transfers go in pieces so the link shows progress and an engine
// can stop between pieces (reset, detach).
#pragma once

#include <cudabridge/endpoint_model.h>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace cudabridge::nv {

// The most bytes one host_ops call moves.
inline constexpr size_t dma_piece_bytes = 4u << 20;

// Returns true when the engine must give up the command it is running.
using abort_check = std::function<bool()>;

class dma_port {
public:
    dma_port() = default;
    explicit dma_port(const cb_endpoint_host_ops& ops) : ops_(ops) {}

    bool connected() const noexcept { return ops_.dma_read != nullptr; }

    // Host memory at `iova` -> device buffer; the status of the first piece that fails. An abort
    // between pieces returns CB_ERR_DEVICE_LOST (the command is abandoned, nobody sees it).
    cb_status read(uint64_t iova, void* dst, size_t size, const abort_check& abort = {}) const;
    // Device buffer -> host memory at `iova`.
    cb_status write(uint64_t iova, const void* src, size_t size, const abort_check& abort = {}) const;
    // MSI vector `vector`.
    cb_status interrupt(uint32_t vector) const;

private:
    cb_endpoint_host_ops ops_{};
};

}  // namespace cudabridge::nv
