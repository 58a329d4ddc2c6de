// Zeroed host memory aligned to the IOMMU page, for what the device reads or writes by DMA and
// the driver owns (the command ring, the fence word, timestamps, launch blocks). Page alignment
// keeps each buffer's mapping to whole pages of its own.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudabridge::nv {

class host_buffer {
public:
    host_buffer() = default;
    // `size` bytes (rounded up to `alignment`, a power of two); empty when allocation fails.
    host_buffer(size_t size, size_t alignment);
    ~host_buffer();
    host_buffer(host_buffer&& other) noexcept;
    host_buffer& operator=(host_buffer&& other) noexcept;
    host_buffer(const host_buffer&) = delete;
    host_buffer& operator=(const host_buffer&) = delete;

    std::byte* data() const noexcept { return data_; }
    size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return data_ == nullptr; }

private:
    std::byte* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace cudabridge::nv
