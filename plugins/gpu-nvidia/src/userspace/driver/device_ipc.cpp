// userspace_device: device memory shared between processes (cudaIpcGetMemHandle and
// cudaIpcOpenMemHandle). Sharing moves an allocation's pages behind BAR1 into a memory file
// (shared_pages.hpp); opening maps that file behind a fresh allocation of this process's VRAM
// address space, page-aligned so that the file's pages land whole. Opened memory counts against
// no process's VRAM twice: the board's bytes are the sharing process's.
#include "userspace/driver/userspace_device.hpp"

#include "userspace/driver/status_text.hpp"

#include <cstring>
#include <unistd.h>

namespace cudabridge::nv {

cb_status userspace_device::mem_share(uint64_t ptr, void* handle, std::string& error) {
    // The pages move while no work of this process writes them.
    if (cb_status st = device_synchronize(error); st != CB_OK) return st;
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    vram_block block;
    if (!vram_->find(ptr, block)) {
        error = "mem_share: " + hex(ptr) + " is not inside a live allocation";
        return CB_ERR_INVALID_ARGUMENT;
    }
    std::lock_guard shares(shares_mutex_);
    if (opened_.count(block.address)) {
        error = "mem_share: " + hex(ptr) + " is memory another process shared; only that process can share it";
        return CB_ERR_INVALID_ARGUMENT;
    }
    void* host = nullptr;
    if (cb_status st = port_.bar_map(1, block.address - vram_base_, block.size, host); st != CB_OK) {
        error = "mem_share: the allocation at " + hex(block.address) + " has no host mapping to share";
        return st == CB_ERR_UNSUPPORTED ? st : CB_ERR_INVALID_ARGUMENT;
    }
    auto it = shared_.find(block.address);
    if (it == shared_.end()) {
        shared_pages pages;
        if (cb_status st = share_pages(static_cast<uint8_t*>(host), block.size, pages, error); st != CB_OK) return st;
        it = shared_.emplace(block.address, pages).first;
    }
    const uint64_t first_byte = static_cast<uint64_t>(static_cast<uint8_t*>(host) - it->second.start);
    const share_record r = make_share_record(it->second, first_byte, ptr - block.address, block.size);
    std::memcpy(handle, &r, sizeof r);
    return CB_OK;
}

cb_status userspace_device::mem_open_shared(const void* handle, uint64_t& out_ptr, uint64_t& out_bytes,
                                            std::string& error) {
    share_record r;
    if (!read_share_record(handle, r)) {
        error = "mem_open_shared: the handle is not one cudaIpcGetMemHandle made";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (r.pid == static_cast<int32_t>(getpid())) {
        error = "mem_open_shared: the handle was made by this process; use the pointer it was made from";
        return CB_ERR_INVALID_ARGUMENT;
    }
    std::shared_lock lock(lifecycle_);
    if (cb_status st = usable(error); st != CB_OK) return st;
    std::lock_guard shares(shares_mutex_);
    for (auto& [start, o] : opened_)
        if (o.pid == r.pid && o.pages.token == r.token) {  // opened before: the same address again
            ++o.openings;
            out_ptr = o.pointer;
            out_bytes = o.bytes;
            return CB_OK;
        }
    uint64_t address = 0;
    if (cb_status st = vram_->allocate(r.file_bytes, page_size_, address); st != CB_OK) {
        error = "mem_open_shared: no room in this process's device address space for " + std::to_string(r.file_bytes) +
                " shared bytes";
        return st;
    }
    void* host = nullptr;
    cb_status st = port_.bar_map(1, address - vram_base_, r.file_bytes, host);
    if (st != CB_OK || reinterpret_cast<uintptr_t>(host) % page_size_ != 0) {
        error = "mem_open_shared: device memory has no page-aligned host mapping here";
        vram_->free(address);
        return st != CB_OK ? st : CB_ERR_UNSUPPORTED;
    }
    shared_pages pages;
    if (st = map_shared_pages(r, static_cast<uint8_t*>(host), pages, error); st != CB_OK) {
        vram_->free(address);
        return st;
    }
    out_ptr = address + r.first_byte + r.offset;
    out_bytes = r.alloc_bytes - r.offset;
    opened_.emplace(address, opened_memory{pages, r.pid, out_ptr, out_bytes, 1});
    return CB_OK;
}

bool userspace_device::free_opened_locked(uint64_t ptr, cb_status& st) {
    std::lock_guard shares(shares_mutex_);
    for (auto it = opened_.begin(); it != opened_.end(); ++it) {
        if (it->second.pointer != ptr) continue;
        st = CB_OK;
        if (--it->second.openings > 0) return true;
        unshare_pages(it->second.pages, false);
        vram_->free(it->first);
        opened_.erase(it);
        return true;
    }
    return false;
}

void userspace_device::unshare_locked(uint64_t allocation) {
    std::lock_guard shares(shares_mutex_);
    auto it = shared_.find(allocation);
    if (it == shared_.end()) return;
    unshare_pages(it->second, true);  // its first and last pages may hold neighbours' bytes
    shared_.erase(it);
}

void userspace_device::forget_shared_locked() {
    std::lock_guard shares(shares_mutex_);
    for (auto& [start, pages] : shared_) unshare_pages(pages, false);
    for (auto& [start, o] : opened_) unshare_pages(o.pages, false);
    shared_.clear();
    opened_.clear();
}

}  // namespace cudabridge::nv
