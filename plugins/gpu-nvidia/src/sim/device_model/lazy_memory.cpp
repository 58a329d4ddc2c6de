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
    if (base_) munmap(base_, size_);
}

uint8_t* lazy_memory::at(uint64_t offset, uint64_t bytes) const noexcept {
    if (!base_ || offset > size_ || bytes > size_ - offset) return nullptr;
    return base_ + offset;
}

void lazy_memory::release() noexcept {
    if (base_) madvise(base_, size_, MADV_DONTNEED);
}

}  // namespace cudabridge::nv
