#include "userspace/driver/timestamp_slots.hpp"

#include "userspace/driver/device_word.hpp"

namespace cudabridge::nv {

cb_status timestamp_slots::acquire(timestamp_slot& out, std::string& error) {
    std::lock_guard lock(mutex_);
    if (free_.empty()) {
        auto s = std::make_unique<slab>();
        s->memory = host_buffer(page_size_, page_size_);
        if (s->memory.empty()) {
            error = "cannot allocate timestamp memory";
            return CB_ERR_OUT_OF_MEMORY;
        }
        if (cb_status st = dma_mapping::map(port_, s->memory.data(), s->memory.size(), CB_DMA_FROM_DEVICE,
                                            "event timestamps", s->mapping, error);
            st != CB_OK)
            return st;
        auto* words = reinterpret_cast<uint64_t*>(s->memory.data());
        const size_t count = s->memory.size() / sizeof(uint64_t);
        for (size_t i = count; i-- > 0;) free_.push_back({words + i, s->mapping.iova() + i * sizeof(uint64_t)});
        slabs_.push_back(std::move(s));
    }
    out = free_.back();
    free_.pop_back();
    clear_device_word(out.word);
    return CB_OK;
}

void timestamp_slots::give_back(const timestamp_slot& slot) {
    if (slot.word == nullptr) return;
    std::lock_guard lock(mutex_);
    free_.push_back(slot);
}

void timestamp_slots::release_all() {
    std::lock_guard lock(mutex_);
    free_.clear();
    slabs_.clear();
}

uint64_t timestamp_slots::read(const timestamp_slot& slot) { return slot.word ? read_device_word(slot.word) : 0; }

}  // namespace cudabridge::nv
