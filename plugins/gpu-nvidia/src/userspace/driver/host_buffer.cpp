#include "userspace/driver/host_buffer.hpp"

#include <cstdlib>
#include <cstring>
#include <utility>

namespace cudabridge::nv {

host_buffer::host_buffer(size_t size, size_t alignment) {
    if (size == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0) return;
    const size_t rounded = (size + alignment - 1) & ~(alignment - 1);
    if (rounded < size) return;
    data_ = static_cast<std::byte*>(std::aligned_alloc(alignment, rounded));
    if (data_ == nullptr) return;
    std::memset(data_, 0, rounded);
    size_ = size;
}

host_buffer::~host_buffer() { std::free(data_); }

host_buffer::host_buffer(host_buffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

host_buffer& host_buffer::operator=(host_buffer&& other) noexcept {
    if (this != &other) {
        std::free(data_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

}  // namespace cudabridge::nv
