// Device memory that commits nothing until touched: one private anonymous mapping of the full
// size (MAP_NORESERVE), so a 32 GiB board costs address space only. release() hands the pages
// back (MADV_DONTNEED): the memory then reads as zeros, as after a hard reset.
#pragma once

#include <atomic>
#include <cstdint>

namespace cudabridge::nv {

class lazy_memory {
public:
    // Throws sdk::status_error(CB_ERR_OUT_OF_MEMORY) when the address space cannot be reserved.
    explicit lazy_memory(uint64_t size);
    ~lazy_memory();
    lazy_memory(const lazy_memory&) = delete;
    lazy_memory& operator=(const lazy_memory&) = delete;

    uint64_t size() const noexcept { return size_; }

    // The host bytes of [offset, offset + bytes); nullptr when any of them is outside.
    uint8_t* at(uint64_t offset, uint64_t bytes) const noexcept;
    // at() for a pointer handed outside the device (a BAR mapping). Such a pointer may outlive
    // this object: once any was handed out, destruction leaves the address range mapped to fresh
    // zero pages instead of unmapping it, so a late access reads zeros rather than faulting.
    uint8_t* at_for_host(uint64_t offset, uint64_t bytes) noexcept;

    void release() noexcept;

private:
    uint8_t* base_ = nullptr;
    uint64_t size_ = 0;
    std::atomic<bool> host_mapped_{false};
};

}  // namespace cudabridge::nv
