// The loopback's IOMMU: host memory the driver maps for DMA gets an I/O virtual address chosen
// here, and the device reaches host memory only through those mappings. An access outside them,
// or against a mapping's direction, fails; it never touches other memory.
//
// Threading: every member may be called from any thread (one mutex). Copies run under it, so an
// unmap waits for a DMA in flight over the same memory.
#pragma once

#include <cudabridge/transport.h>

#include <cstdint>
#include <map>
#include <mutex>

namespace loopback {

class iova_table {
public:
    cb_status map(void* host, size_t size, cb_dma_direction direction, uint64_t& iova);
    cb_status unmap(uint64_t iova, size_t size);
    // The device reads host memory (a copy to the device) or writes it (a copy from the device).
    cb_status device_read(uint64_t iova, void* dst, size_t size);
    cb_status device_write(uint64_t iova, const void* src, size_t size);
    cb_dma_limits limits();
    void clear();

private:
    struct mapping {
        unsigned char* host;
        uint64_t size;
        cb_dma_direction direction;
    };
    // Walks [iova, iova + size) across adjacent mappings; `copy(host, done, n)` moves each piece.
    template <class Copy>
    cb_status walk(uint64_t iova, size_t size, bool device_writes, Copy copy);

    static constexpr uint64_t page = 4096;
    std::mutex mutex_;
    std::map<uint64_t, mapping> mappings_;  // by IOVA
    uint64_t next_iova_ = 1ull << 32;       // far from 0, so a zeroed address is never mapped
    uint64_t mapped_bytes_ = 0;
};

}  // namespace loopback
