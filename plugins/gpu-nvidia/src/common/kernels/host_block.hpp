// Host memory for the CPU engine's temporaries (tensor.hpp): 64-byte aligned, uninitialized, and
// for blocks of at least `pooled_from` bytes kept for reuse once freed, up to `pool_limit` bytes
// in all. A large temporary (the converted operand of a mixed-dtype op on a 16M-element array,
// 128 MiB) otherwise comes fresh from mmap on every call, and faulting its pages in cost far
// more than the arithmetic: 0.4 s instead of ~20 ms for a bool array times an int64 one in a VM.
// As CuPy's memory pool, the process keeps what it last used until the plugin is unloaded.
#pragma once

#include <cstddef>

namespace cudabridge::nv::kernels {

class host_block {
public:
    static constexpr std::size_t pooled_from = std::size_t{1} << 20;
    static constexpr std::size_t pool_limit = std::size_t{512} << 20;

    host_block() = default;
    explicit host_block(std::size_t bytes);  // from the pool when a kept block fits, else new
    ~host_block();                           // back to the pool, or freed
    host_block(host_block&& other) noexcept;
    host_block& operator=(host_block&& other) noexcept;
    host_block(const host_block&) = delete;
    host_block& operator=(const host_block&) = delete;

    void* data() const noexcept { return data_; }
    std::size_t capacity() const noexcept { return capacity_; }

private:
    void* data_ = nullptr;
    std::size_t capacity_ = 0;
};

// Bytes the pool keeps now (tests).
std::size_t host_block_pool_bytes();

}  // namespace cudabridge::nv::kernels
