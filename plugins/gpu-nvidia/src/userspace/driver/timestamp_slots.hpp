// 8-byte host words the device writes PTIMER values into (events' timestamp commands), handed
// out from page-sized slabs mapped for the device once, so that events cost no mapping each.
#pragma once

#include "userspace/driver/dma_mapping.hpp"
#include "userspace/driver/host_buffer.hpp"
#include "userspace/driver/link_port.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cudabridge::nv {

struct timestamp_slot {
    uint64_t* word = nullptr;  // host address
    uint64_t iova = 0;         // where the device writes it
};

class timestamp_slots {
public:
    explicit timestamp_slots(link_port& port) : port_(port) {}

    void set_page_size(uint64_t page_size) { page_size_ = page_size; }
    // A free slot (its word zeroed); maps another slab when all are taken.
    cb_status acquire(timestamp_slot& out, std::string& error);
    void give_back(const timestamp_slot& slot);
    // Unmaps and frees every slab (close); slots handed out become invalid.
    void release_all();

    // The word as the device left it.
    static uint64_t read(const timestamp_slot& slot);

private:
    struct slab {
        host_buffer memory;
        dma_mapping mapping;
    };

    link_port& port_;
    uint64_t page_size_ = 16384;
    std::mutex mutex_;
    std::vector<std::unique_ptr<slab>> slabs_;
    std::vector<timestamp_slot> free_;
};

}  // namespace cudabridge::nv
