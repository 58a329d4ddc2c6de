// The queue's storage: records waiting for the logging thread, kept as fixed-size entries plus
// their text in one byte arena, so a warm log() call allocates nothing. Private to core/src/log/.
#pragma once

#include <cudabridge/abi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace cudabridge::core::log::detail {

constexpr size_t arena_keep_bytes = size_t{8} << 20;  // a larger arena is released after use

// A growable byte buffer that does not zero what it hands out.
class byte_arena {
public:
    char* append(size_t n) {
        if (n > cap_ - size_) grow(size_ + n);
        char* p = data_.get() + size_;
        size_ += n;
        return p;
    }
    char* data() noexcept { return data_.get(); }
    size_t size() const noexcept { return size_; }
    size_t capacity() const noexcept { return cap_; }
    void truncate(size_t n) noexcept { size_ = n; }
    void clear() noexcept { size_ = 0; }
    void release() noexcept {
        data_.reset();
        size_ = cap_ = 0;
    }

private:
    void grow(size_t need) {
        size_t cap = std::max(need, cap_ ? cap_ * 2 : size_t{16384});
        std::unique_ptr<char[]> d(new char[cap]);
        if (size_) std::memcpy(d.get(), data_.get(), size_);
        data_ = std::move(d);
        cap_ = cap;
    }
    std::unique_ptr<char[]> data_;
    size_t size_ = 0;
    size_t cap_ = 0;
};

// One queued record; its text sits in the batch's arena at text_off:
// message bytes, '\0', and when dev_len > 0 the device bytes and '\0'.
struct entry {
    int64_t time_ns;
    uint64_t thread_id;
    size_t text_off;
    uint32_t msg_len;
    uint32_t dev_len;
    cb_log_level level;
    int32_t category;

    size_t text_bytes() const noexcept { return msg_len + 1 + (dev_len ? dev_len + 1 : 0); }
};

struct batch {
    std::vector<entry> entries;
    size_t head = 0;  // entries before head were evicted (drop_oldest)
    byte_arena text;

    size_t size() const noexcept { return entries.size() - head; }
    bool empty() const noexcept { return entries.size() == head; }

    // May throw std::bad_alloc; leaves the batch unchanged then.
    void push(const entry& proto, std::string_view msg, std::string_view dev) {
        if (entries.size() == entries.capacity()) entries.reserve(std::max<size_t>(64, entries.capacity() * 2));
        entry e = proto;
        e.text_off = text.size();
        char* p = text.append(e.text_bytes());
        std::memcpy(p, msg.data(), msg.size());
        p[msg.size()] = '\0';
        if (!dev.empty()) {
            std::memcpy(p + msg.size() + 1, dev.data(), dev.size());
            p[msg.size() + 1 + dev.size()] = '\0';
        }
        entries.push_back(e);
    }

    void drop_front(size_t capacity) noexcept {
        ++head;
        // Reclaim evicted entries and their text once they outnumber the live ones: amortised O(1).
        if (head > capacity && head >= entries.size() - head) compact();
    }

    void compact() noexcept {
        char* base = text.data();
        size_t w = 0;
        size_t wt = 0;
        for (size_t i = head; i < entries.size(); ++i) {
            entry e = entries[i];
            size_t n = e.text_bytes();
            if (e.text_off != wt) std::memmove(base + wt, base + e.text_off, n);
            e.text_off = wt;
            wt += n;
            entries[w++] = e;
        }
        entries.resize(w);
        head = 0;
        text.truncate(wt);
    }

    void clear() noexcept {
        entries.clear();
        head = 0;
        text.clear();
        if (text.capacity() > arena_keep_bytes) text.release();
    }
};

}  // namespace cudabridge::core::log::detail
