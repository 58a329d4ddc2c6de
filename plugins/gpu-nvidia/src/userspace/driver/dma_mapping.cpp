#include "userspace/driver/dma_mapping.hpp"

#include "userspace/driver/status_text.hpp"

#include <utility>

namespace cudabridge::nv {

dma_mapping::dma_mapping(dma_mapping&& other) noexcept
    : port_(std::exchange(other.port_, nullptr)), iova_(other.iova_), size_(other.size_) {}

dma_mapping& dma_mapping::operator=(dma_mapping&& other) noexcept {
    if (this != &other) {
        release();
        port_ = std::exchange(other.port_, nullptr);
        iova_ = other.iova_;
        size_ = other.size_;
    }
    return *this;
}

cb_status dma_mapping::map(link_port& port, const void* host, size_t size, cb_dma_direction direction, const char* what,
                           dma_mapping& out, std::string& error) {
    out.release();
    uint64_t iova = 0;
    cb_status st = port.dma_map(host, size, direction, iova);
    if (st != CB_OK) {
        error =
            std::string("mapping ") + what + " (" + std::to_string(size) + " bytes) for DMA failed: " + status_name(st);
        return st;
    }
    out.port_ = &port;
    out.iova_ = iova;
    out.size_ = size;
    return CB_OK;
}

cb_status dma_mapping::release() {
    if (port_ == nullptr) return CB_OK;
    link_port* port = std::exchange(port_, nullptr);
    return port->dma_unmap(iova_, size_);
}

}  // namespace cudabridge::nv
