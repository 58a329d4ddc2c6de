// The board's VRAM: lazily reserved memory of the profile's size, addressed by device addresses
// (hw::vram_base + offset) with every range checked before it becomes a host pointer.
#pragma once

#include "sim/device_model/lazy_memory.hpp"

#include <cstdint>

namespace cudabridge::nv {

class vram {
public:
    explicit vram(uint64_t size) : memory_(size) {}

    uint64_t size() const noexcept { return memory_.size(); }

    // The host bytes behind [device_address, device_address + bytes); nullptr when any byte is
    // outside VRAM (or bytes is 0).
    uint8_t* translate(uint64_t device_address, uint64_t bytes) const noexcept;

    // By VRAM offset (BAR1 aperture).
    uint8_t* at_offset(uint64_t offset, uint64_t bytes) const noexcept { return memory_.at(offset, bytes); }
    // The same, for a host mapping of BAR1 that may outlive the board (lazy_memory::at_for_host).
    uint8_t* map_for_host(uint64_t offset, uint64_t bytes) noexcept { return memory_.at_for_host(offset, bytes); }

    // Hard reset: contents gone, memory uncommitted.
    void release() noexcept { memory_.release(); }

private:
    lazy_memory memory_;
};

}  // namespace cudabridge::nv
