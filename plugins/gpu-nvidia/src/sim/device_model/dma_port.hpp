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
    // Copies only the host's struct_size bytes: an older host's table lacks the later fields,
    // which stay NULL.
    explicit dma_port(const cb_endpoint_host_ops& ops);

    bool connected() const noexcept { return ops_.dma_read != nullptr; }

    // Host memory at `iova` -> device buffer; the status of the first piece that fails. An abort
    // between pieces returns CB_ERR_DEVICE_LOST (the command is abandoned, nobody sees it).
    cb_status read(uint64_t iova, void* dst, size_t size, const abort_check& abort = {}) const;
    // Device buffer -> host memory at `iova`.
    cb_status write(uint64_t iova, const void* src, size_t size, const abort_check& abort = {}) const;
    // MSI vector `vector`.
    cb_status interrupt(uint32_t vector) const;

    // The host offers the link's modeled clock (cb_endpoint_host_ops.modeled_time_ns, ABI 1.3).
    bool models_time() const noexcept { return ops_.modeled_time_ns != nullptr; }
    // The link's modeled nanoseconds so far; 0 when the host does not model time.
    uint64_t modeled_time_ns() const;

private:
    cb_endpoint_host_ops ops_{};
};

// How long DMA across the link took in modeled time: the link's modeled clock from construction
// to elapsed_ns(). Hosts older than ABI 1.3 offer no modeled clock; then it measures the host's
// wall time instead (what the transfer took in this simulator), the best figure there is.
class link_stopwatch {
public:
    explicit link_stopwatch(const dma_port& port);
    uint64_t elapsed_ns() const;

private:
    uint64_t read() const;

    const dma_port& port_;
    uint64_t start_ = 0;
};

}  // namespace cudabridge::nv
