// A fake device-memory backend for the allocator tests: a bump allocator over a fixed capacity
// that never reuses an address (so a stale pointer is never mistaken for a new one), counts its
// calls, and can be told to fail the next allocation with a chosen status.
#pragma once

#include "allocator/caching_allocator.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace cb_allocator_test {

inline constexpr uint64_t MiB = uint64_t{1} << 20;
inline constexpr uint64_t GiB = uint64_t{1} << 30;

class fake_device {
public:
    explicit fake_device(uint64_t capacity) : capacity_(capacity) {}

    cudabridge::host::allocator_backend backend() {
        return {[this](uint64_t size, uint64_t& ptr, std::string& error) { return allocate(size, ptr, error); },
                [this](uint64_t ptr, std::string& error) { return release(ptr, error); }};
    }

    void fail_next_allocation(cb_status status) {
        std::lock_guard lock(mutex_);
        fail_next_ = status;
    }

    uint64_t used() const {
        std::lock_guard lock(mutex_);
        return used_;
    }
    uint64_t live_blocks() const {
        std::lock_guard lock(mutex_);
        return live_.size();
    }
    uint64_t allocate_calls() const {
        std::lock_guard lock(mutex_);
        return allocate_calls_;
    }
    uint64_t release_calls() const {
        std::lock_guard lock(mutex_);
        return release_calls_;
    }
    uint64_t bad_releases() const {
        std::lock_guard lock(mutex_);
        return bad_releases_;
    }
    uint64_t peak_used() const {
        std::lock_guard lock(mutex_);
        return peak_used_;
    }

private:
    cb_status allocate(uint64_t size, uint64_t& ptr, std::string& error) {
        std::lock_guard lock(mutex_);
        allocate_calls_ += 1;
        if (fail_next_ != CB_OK) {
            cb_status status = fail_next_;
            fail_next_ = CB_OK;
            error = "injected failure";
            return status;
        }
        if (size > capacity_ - used_) {
            error = "fake device out of memory";
            return CB_ERR_OUT_OF_MEMORY;
        }
        ptr = next_;
        next_ += size;  // contiguous: one block's end is the next block's base
        live_.emplace(ptr, size);
        used_ += size;
        if (used_ > peak_used_) peak_used_ = used_;
        return CB_OK;
    }

    cb_status release(uint64_t ptr, std::string& error) {
        std::lock_guard lock(mutex_);
        release_calls_ += 1;
        auto it = live_.find(ptr);
        if (it == live_.end()) {
            bad_releases_ += 1;
            error = "fake device: unknown pointer";
            return CB_ERR_INVALID_ARGUMENT;
        }
        used_ -= it->second;
        live_.erase(it);
        return CB_OK;
    }

    const uint64_t capacity_;
    mutable std::mutex mutex_;
    uint64_t next_ = uint64_t{1} << 40;
    uint64_t used_ = 0, peak_used_ = 0;
    std::map<uint64_t, uint64_t> live_;
    uint64_t allocate_calls_ = 0, release_calls_ = 0, bad_releases_ = 0;
    cb_status fail_next_ = CB_OK;
};

}  // namespace cb_allocator_test
