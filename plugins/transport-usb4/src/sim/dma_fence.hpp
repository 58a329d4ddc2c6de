// What keeps a buffer alive while the device writes into it. The IOMMU translates a DMA to host
// pointers, and the wire then copies through them; a driver that unmaps and frees the buffer in
// between would have the copy land in freed memory. A real IOMMU invalidation completes only once
// no transaction still uses the old translation, so unmapping waits here for the DMAs in flight.
// New DMAs wait while an unmap is pending, so a busy copy engine cannot starve it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <utility>

namespace cudabridge::usb4 {

class dma_fence {
public:
    // Held across one DMA's translation and copy.
    class transfer {
    public:
        explicit transfer(dma_fence& f) : f_(&f) { f_->begin_transfer(); }
        ~transfer() { release(); }
        transfer(const transfer&) = delete;
        transfer& operator=(const transfer&) = delete;
        void release() {
            if (f_ != nullptr) std::exchange(f_, nullptr)->end_transfer();
        }

    private:
        dma_fence* f_;
    };

    // Held across an unmap: begins once no DMA is in flight.
    class invalidation {
    public:
        explicit invalidation(dma_fence& f) : f_(f) { f_.begin_invalidation(); }
        ~invalidation() { f_.end_invalidation(); }
        invalidation(const invalidation&) = delete;
        invalidation& operator=(const invalidation&) = delete;

    private:
        dma_fence& f_;
    };

private:
    void begin_transfer() {
        std::unique_lock lock(m_);
        changed_.wait(lock, [&] { return invalidating_ == 0; });
        ++in_flight_;
    }
    void end_transfer() {
        std::lock_guard lock(m_);
        if (--in_flight_ == 0) changed_.notify_all();
    }
    void begin_invalidation() {
        std::unique_lock lock(m_);
        ++invalidating_;
        changed_.wait(lock, [&] { return in_flight_ == 0 && !invalidation_running_; });
        invalidation_running_ = true;
    }
    void end_invalidation() {
        std::lock_guard lock(m_);
        invalidation_running_ = false;
        --invalidating_;
        changed_.notify_all();
    }

    std::mutex m_;
    std::condition_variable changed_;
    uint32_t in_flight_ = 0;
    uint32_t invalidating_ = 0;
    bool invalidation_running_ = false;
};

}  // namespace cudabridge::usb4
