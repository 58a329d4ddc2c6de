// A test-local link for the device model: cb_endpoint_host_ops whose IOVAs are offsets into a
// host buffer the test owns, with a poisoned IOVA range that fails DMA with a chosen status, DMA
// call accounting, the MSIs the model raised, and optionally a modeled clock (ABI 1.3
// modeled_time_ns) that charges each DMA call a latency plus its bytes at a rate.
#pragma once

#include <cudabridge/endpoint_model.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <sys/mman.h>

namespace cudabridge::test {

class fake_link {
public:
    // The buffer is mapped, not filled: only the pages a test touches cost anything.
    explicit fake_link(size_t bytes) : size_(bytes) {
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        memory_ = static_cast<uint8_t*>(p);
        ops_.struct_size = sizeof ops_;
        ops_.context = this;
        ops_.dma_read = &dma_read;
        ops_.dma_write = &dma_write;
        ops_.raise_interrupt = &raise_interrupt;
    }

    ~fake_link() { munmap(memory_, size_); }
    fake_link(const fake_link&) = delete;
    fake_link& operator=(const fake_link&) = delete;

    const cb_endpoint_host_ops& ops() const { return ops_; }

    // Offers modeled_time_ns: every DMA call costs latency_ns + bytes / bytes_per_ns (rounded up)
    // of modeled time. Call before attach. Without it the op is NULL, as from an older host.
    void model_time(double bytes_per_ns, uint64_t latency_ns) {
        bytes_per_ns_ = bytes_per_ns;
        latency_ns_ = latency_ns;
        ops_.modeled_time_ns = &modeled_time_ns;
    }
    // What a DMA call of `bytes` costs on that clock.
    uint64_t dma_cost_ns(size_t bytes) const {
        return latency_ns_ + static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / bytes_per_ns_));
    }
    uint64_t modeled_now() const { return modeled_ns_.load(); }
    uint8_t* at(uint64_t iova) { return memory_ + iova; }
    size_t size() const { return size_; }

    // DMA touching [first, end) fails with `status` (CB_OK: no poison).
    void poison(uint64_t first, uint64_t end, cb_status status) {
        std::lock_guard lock(m_);
        poison_first_ = first;
        poison_end_ = end;
        poison_status_ = status;
    }
    void heal() { poison(0, 0, CB_OK); }

    uint64_t interrupts() const { return interrupts_.load(); }
    uint64_t dma_calls() const { return dma_calls_.load(); }
    size_t largest_dma() const { return largest_dma_.load(); }

private:
    cb_status check(uint64_t iova, size_t size) {
        dma_calls_.fetch_add(1);
        size_t largest = largest_dma_.load();
        while (size > largest && !largest_dma_.compare_exchange_weak(largest, size)) {
        }
        if (ops_.modeled_time_ns) modeled_ns_.fetch_add(dma_cost_ns(size));
        if (iova > size_ || size > size_ - iova) return CB_ERR_DMA_LIMIT;
        std::lock_guard lock(m_);
        if (poison_status_ != CB_OK && iova < poison_end_ && iova + size > poison_first_) return poison_status_;
        return CB_OK;
    }
    static cb_status dma_read(void* context, uint64_t iova, void* dst, size_t size) {
        auto* self = static_cast<fake_link*>(context);
        if (cb_status st = self->check(iova, size); st != CB_OK) return st;
        std::memcpy(dst, self->memory_ + iova, size);
        return CB_OK;
    }
    static cb_status dma_write(void* context, uint64_t iova, const void* src, size_t size) {
        auto* self = static_cast<fake_link*>(context);
        if (cb_status st = self->check(iova, size); st != CB_OK) return st;
        std::memcpy(self->memory_ + iova, src, size);
        return CB_OK;
    }
    static uint64_t modeled_time_ns(void* context) { return static_cast<fake_link*>(context)->modeled_now(); }
    static cb_status raise_interrupt(void* context, uint32_t vector) {
        auto* self = static_cast<fake_link*>(context);
        if (vector == 0) self->interrupts_.fetch_add(1);
        return CB_OK;
    }

    uint8_t* memory_ = nullptr;
    size_t size_ = 0;
    cb_endpoint_host_ops ops_{};
    std::mutex m_;
    uint64_t poison_first_ = 0, poison_end_ = 0;
    cb_status poison_status_ = CB_OK;
    std::atomic<uint64_t> interrupts_{0};
    std::atomic<uint64_t> dma_calls_{0};
    std::atomic<size_t> largest_dma_{0};
    double bytes_per_ns_ = 1;
    uint64_t latency_ns_ = 0;
    std::atomic<uint64_t> modeled_ns_{0};
};

}  // namespace cudabridge::test
