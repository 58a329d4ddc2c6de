// One host range mapped for device DMA, unmapped when released or destroyed. The IOMMU picks the
// IOVA; the range may start and end anywhere (the IOMMU maps whole pages and keeps the offset).
#pragma once

#include "userspace/driver/link_port.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace cudabridge::nv {

class dma_mapping {
public:
    dma_mapping() = default;
    ~dma_mapping() { release(); }
    dma_mapping(dma_mapping&& other) noexcept;
    dma_mapping& operator=(dma_mapping&& other) noexcept;
    dma_mapping(const dma_mapping&) = delete;
    dma_mapping& operator=(const dma_mapping&) = delete;

    // Maps [host, host + size); `what` names the buffer in the message of a refusal.
    static cb_status map(link_port& port, const void* host, size_t size, cb_dma_direction direction, const char* what,
                         dma_mapping& out, std::string& error);

    // Unmaps now; the transport's status (a lost device's IOMMU may have dropped it already).
    cb_status release();

    uint64_t iova() const noexcept { return iova_; }
    size_t size() const noexcept { return size_; }
    bool mapped() const noexcept { return port_ != nullptr; }

private:
    link_port* port_ = nullptr;
    uint64_t iova_ = 0;
    size_t size_ = 0;
};

}  // namespace cudabridge::nv
