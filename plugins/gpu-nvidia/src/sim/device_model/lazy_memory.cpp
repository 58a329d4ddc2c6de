#include "sim/device_model/lazy_memory.hpp"

#include <cudabridge/cpp/host.hpp>

#include <cerrno>
#include <cstring>
#include <string>
#include <sys/mman.h>

namespace cudabridge::nv {

lazy_memory::lazy_memory(uint64_t size) : size_(size) {
    if (size == 0) return;
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        throw sdk::status_error(CB_ERR_OUT_OF_MEMORY,
                                "cannot reserve " + std::to_string(size) +
                                    " bytes of address space for device memory: " + std::strerror(errno));
    base_ = static_cast<uint8_t*>(p);
}

lazy_memory::~lazy_memory() {
    if (!base_) return;
    if (!host_mapped_.load()) {
        munmap(base_, size_);
        return;
    }
    // MAP_FIXED swaps the pages out in one step; the address range stays this process's for good.
    mmap(base_, size_, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

uint8_t* lazy_memory::at(uint64_t offset, uint64_t bytes) const noexcept {
    if (!base_ || offset > size_ || bytes > size_ - offset) return nullptr;
    return base_ + offset;
}

uint8_t* lazy_memory::at_for_host(uint64_t offset, uint64_t bytes) noexcept {
    uint8_t* p = at(offset, bytes);
    if (p) host_mapped_.store(true);
    return p;
}

void lazy_memory::release() noexcept {
    if (base_) madvise(base_, size_, MADV_DONTNEED);
}

}  // namespace cudabridge::nv
