#include "userspace/driver/launch_arena.hpp"

#include <algorithm>

namespace cudabridge::nv {

cb_status launch_arena::create(link_port& port, size_t bytes, size_t page_size, std::string& error) {
    release();
    host_buffer memory(bytes, page_size);
    if (memory.empty()) {
        error = "cannot allocate the launch block arena (" + std::to_string(bytes) + " bytes)";
        return CB_ERR_OUT_OF_MEMORY;
    }
    dma_mapping mapping;
    if (cb_status st = dma_mapping::map(port, memory.data(), memory.size(), CB_DMA_TO_DEVICE, "the launch block arena",
                                        mapping, error);
        st != CB_OK)
        return st;
    memory_ = std::move(memory);
    mapping_ = std::move(mapping);
    return CB_OK;
}

void launch_arena::release() {
    in_use_.clear();
    mapping_.release();
    memory_ = host_buffer();
}

bool launch_arena::reserve(size_t size, uint64_t completed_fence, arena_slot& out) {
    while (!in_use_.empty() && in_use_.front().fence <= completed_fence) in_use_.pop_front();
    size = (std::max<size_t>(size, 1) + alignment - 1) / alignment * alignment;
    size_t start = 0;
    if (size > capacity() || !place(size, start)) return false;
    out.data = memory_.data() + start;
    out.iova = mapping_.iova() + start;
    out.start = start;
    out.end = start + size;
    return true;
}

// The bytes in use run from the oldest block's start to the newest block's end, wrapping past
// the end of the buffer at most once; the free bytes are the rest.
bool launch_arena::place(size_t size, size_t& start) const {
    if (in_use_.empty()) {
        start = 0;
        return true;
    }
    const size_t tail = in_use_.front().start;
    const size_t head = in_use_.back().end;
    const bool wrapped = in_use_.back().start < tail;
    if (wrapped) {
        start = head;
        return head + size <= tail;
    }
    if (head + size <= capacity()) {
        start = head;
        return true;
    }
    start = 0;  // the bytes past `head` stay unused until the blocks before them are done
    return size <= tail;
}

void launch_arena::commit(const arena_slot& slot, uint64_t fence) {
    in_use_.push_back(use{fence, slot.start, slot.end});
}

}  // namespace cudabridge::nv
