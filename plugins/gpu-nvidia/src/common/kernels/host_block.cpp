#include "common/kernels/host_block.hpp"

#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace cudabridge::nv::kernels {
namespace {

constexpr std::align_val_t alignment{64};

struct kept_block {
    void* data;
    std::size_t capacity;
};

// Freed blocks, oldest first.
class block_pool {
public:
    ~block_pool() {
        for (const kept_block& b : kept_) ::operator delete(b.data, alignment);
    }

    // The smallest kept block that holds `bytes` without wasting more than half of it.
    bool take(std::size_t bytes, kept_block& out) {
        std::lock_guard lock(m_);
        auto best = kept_.end();
        for (auto it = kept_.begin(); it != kept_.end(); ++it)
            if (it->capacity >= bytes && it->capacity / 2 <= bytes &&
                (best == kept_.end() || it->capacity < best->capacity))
                best = it;
        if (best == kept_.end()) return false;
        out = *best;
        kept_bytes_ -= best->capacity;
        kept_.erase(best);
        return true;
    }

    // Keeps a block, letting the oldest go while over the limit.
    void give(kept_block b) {
        std::vector<void*> dropped;
        {
            std::lock_guard lock(m_);
            kept_.push_back(b);
            kept_bytes_ += b.capacity;
            while (kept_bytes_ > host_block::pool_limit) {
                dropped.push_back(kept_.front().data);
                kept_bytes_ -= kept_.front().capacity;
                kept_.erase(kept_.begin());
            }
        }
        for (void* p : dropped) ::operator delete(p, alignment);
    }

    std::size_t bytes() {
        std::lock_guard lock(m_);
        return kept_bytes_;
    }

private:
    std::mutex m_;
    std::vector<kept_block> kept_;
    std::size_t kept_bytes_ = 0;
};

block_pool& pool() {
    static block_pool p;
    return p;
}

}  // namespace

host_block::host_block(std::size_t bytes) {
    capacity_ = (bytes + 63) / 64 * 64 + 64;  // never zero-sized
    kept_block b{};
    if (capacity_ >= pooled_from && pool().take(capacity_, b)) {
        data_ = b.data;
        capacity_ = b.capacity;
        return;
    }
    data_ = ::operator new(capacity_, alignment);
}

host_block::~host_block() {
    if (!data_) return;
    if (capacity_ >= pooled_from && capacity_ <= pool_limit)
        pool().give({data_, capacity_});
    else
        ::operator delete(data_, alignment);
}

host_block::host_block(host_block&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}

host_block& host_block::operator=(host_block&& other) noexcept {
    if (this != &other) {
        host_block gone(std::move(*this));
        data_ = std::exchange(other.data_, nullptr);
        capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
}

std::size_t host_block_pool_bytes() { return pool().bytes(); }

}  // namespace cudabridge::nv::kernels
