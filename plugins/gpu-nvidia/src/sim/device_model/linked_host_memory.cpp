#include "sim/device_model/linked_host_memory.hpp"

#include <algorithm>
#include <mutex>

namespace cudabridge::nv {

linked_host_memory::linked_host_memory(const dma_port& dma, std::vector<host_window> windows)
    : dma_(dma), windows_(std::move(windows)) {}

const host_window* linked_host_memory::find(uint64_t address, uint32_t bytes) const {
    auto it = std::upper_bound(windows_.begin(), windows_.end(), address,
                               [](uint64_t a, const host_window& w) { return a < w.address; });
    if (it == windows_.begin()) return nullptr;
    const host_window& w = *std::prev(it);
    const uint64_t offset = address - w.address;
    return offset <= w.size && bytes <= w.size - offset ? &w : nullptr;
}

uint8_t* linked_host_memory::reach_span(uint64_t address, uint32_t bytes, span& around) {
    const host_window* w = bytes ? find(address, bytes) : nullptr;
    // PTX accesses are aligned and at most 16 bytes; one crossing a page is misaligned: a fault.
    if (!w || (address >> page_shift) != ((address + bytes - 1) >> page_shift)) return nullptr;
    const uint64_t number = address >> page_shift;
    const page* p = nullptr;
    {
        std::shared_lock lock(mutex_);
        if (auto it = pages_.find(key(number, *w)); it != pages_.end()) p = it->second.get();
    }
    if (!p) {
        std::unique_lock lock(mutex_);
        auto it = pages_.find(key(number, *w));
        p = it != pages_.end() ? it->second.get() : fetch(number, *w);
    }
    if (!p) return nullptr;
    // The page's bytes inside its window lie in one piece.
    around.first = p->first;
    around.end = p->end;
    around.base = const_cast<uint8_t*>(p->data.data()) + (p->first - (number << page_shift));
    return around.base + (address - p->first);
}

uint8_t* linked_host_memory::reach_for_system_atomic(uint64_t address, uint32_t bytes) {
    const host_window* w = bytes ? find(address, bytes) : nullptr;
    if (!w || address % bytes != 0) return nullptr;  // PCIe AtomicOps are naturally aligned
    return reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(address));
}

// The part of page `number` inside `w`, read over the link (mutex_ held exclusively).
const linked_host_memory::page* linked_host_memory::fetch(uint64_t number, const host_window& w) {
    auto p = std::make_unique<page>();
    const uint64_t start = number << page_shift;
    p->first = std::max(start, w.address);
    p->end = std::min(start + (uint64_t{1} << page_shift), w.address + w.size);
    p->window = &w;
    p->data.assign(size_t{1} << page_shift, 0);
    const link_stopwatch time(dma_);
    const cb_status st =
        dma_.read(w.iova + (p->first - w.address), p->data.data() + (p->first - start), p->end - p->first);
    link_ns_ += time.elapsed_ns();
    if (st != CB_OK) return nullptr;  // unmapped under the kernel: the access faults
    p->clean = p->data;
    return pages_.emplace(key(number, w), std::move(p)).first->second.get();
}

// Each run of changed bytes once, runs less than a sector apart as one (a GPU writes a warp's
// stores as one request): bytes far from any change may have changed on the host meanwhile.
cb_status linked_host_memory::write_back_page(const page& p) const {
    const uint64_t start = p.first >> page_shift << page_shift;
    auto differs = [&](uint64_t a) { return p.data[a - start] != p.clean[a - start]; };
    cb_status first_failure = CB_OK;
    for (uint64_t at = p.first; at < p.end;) {
        while (at < p.end && !differs(at)) ++at;
        const uint64_t run = at;
        for (uint64_t last = at; at < p.end && at - last <= merge_gap; ++at)
            if (differs(at)) last = at;
        while (at > run && !differs(at - 1)) --at;
        if (run == at) break;
        const cb_status st =
            dma_.write(p.window->iova + (run - p.window->address), p.data.data() + (run - start), at - run);
        if (st != CB_OK && first_failure == CB_OK) first_failure = st;
    }
    return first_failure;
}

cb_status linked_host_memory::write_back() {
    std::unique_lock lock(mutex_);
    cb_status first_failure = CB_OK;
    const link_stopwatch time(dma_);
    for (const auto& entry : pages_)
        if (const cb_status st = write_back_page(*entry.second); st != CB_OK && first_failure == CB_OK)
            first_failure = st;
    link_ns_ += time.elapsed_ns();
    return first_failure;
}

}  // namespace cudabridge::nv
