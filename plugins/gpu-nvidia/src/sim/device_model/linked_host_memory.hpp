// Host memory a PTX kernel reaches at its own address (zero-copy: registered and managed host
// ranges, ptx_launch::host_windows), brought over the link as a GPU's accesses to system memory
// would be: a 4 KiB page is read by DMA the first time a kernel of the launch touches it, and the
// bytes the launch changed are written back by DMA when it ends. Atomics act on the launch's one
// copy of a page, so they are atomic across its blocks (a GPU's device-scope atomics on mapped
// memory are not atomic with respect to the host CPU either); system-scope atomics (atom.sys,
// atomicAdd_system) act on the host's own bytes, as PCIe AtomicOps do, so that they are atomic
// with the CPU's too. The command processor runs one command at a time, so the next launch
// fetches what this one wrote back.
//
// The link's modeled clock prices what crossed (whole pages in, the changed bytes out in runs);
// a real GPU sends each warp's access as its own PCIe request, so reuse costs it more and a
// sparse access less. Write-back merges changed bytes less than a 32-byte sector apart, so a
// byte between two stores of the launch is written back with the value it was fetched with.
#pragma once

#include "sim/device_model/dma_port.hpp"
#include "sim/modules/ptx_launch.hpp"
#include "sim/ptx/kernel_module.hpp"

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

namespace cudabridge::nv {

class linked_host_memory final : public ptx::host_memory {
public:
    // `windows` by address, disjoint (check_ptx_launch).
    linked_host_memory(const dma_port& dma, std::vector<host_window> windows);

    uint8_t* reach_span(uint64_t address, uint32_t bytes, span& around) override;
    // A system-scope atomic: the host's own bytes, which the kernel reaches at their own address
    // (the window's address is the host's, and the simulated GPU runs in the host's process), as
    // a PCIe AtomicOp acts at the host's memory. The launch's copy of the page, if fetched, is
    // left alone: its bytes there are unchanged, so the write-back does not overwrite the atomic.
    uint8_t* reach_for_system_atomic(uint64_t address, uint32_t bytes) override;
    // Writes back the bytes the launch changed; the first DMA failure. Call once kernels are done.
    cb_status write_back();
    // Modeled nanoseconds the link spent on this launch's pages (reads and write-backs).
    uint64_t link_ns() const { return link_ns_; }

private:
    static constexpr uint64_t page_shift = 12;
    static constexpr uint64_t merge_gap = 32;  // bytes: a sector
    struct page {
        std::vector<uint8_t> data, clean;  // the page as kernels see it, and as it was fetched
        uint64_t first = 0, end = 0;       // the addresses of it inside its window
        const host_window* window = nullptr;
    };
    const host_window* find(uint64_t address, uint32_t bytes) const;
    // Two windows may share a host page (heap buffers side by side): each has its own copy of
    // its part, so each writes back its own stores. Pages are kept by page number and window.
    uint64_t key(uint64_t number, const host_window& w) const {
        return number * windows_.size() + static_cast<uint64_t>(&w - windows_.data());
    }
    const page* fetch(uint64_t number, const host_window& w);
    cb_status write_back_page(const page& p) const;

    const dma_port& dma_;
    std::vector<host_window> windows_;
    std::shared_mutex mutex_;
    std::unordered_map<uint64_t, std::unique_ptr<page>> pages_;  // by key()
    uint64_t link_ns_ = 0;                                       // mutex_ held exclusively
};

}  // namespace cudabridge::nv
