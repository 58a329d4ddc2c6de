#include "runtime/copy_run.hpp"

#include <algorithm>
#include <cstring>

namespace cudabridge::host {

device_span span_with(const copy_run& r, uint64_t dst, size_t size) {
    if (r.empty()) return {dst, size};
    const uint64_t start = std::min(r.start, dst);
    const uint64_t end = std::max(r.start + r.bytes.size(), dst + size);
    return {start, end - start};
}

bool joins(const copy_run& r, const cbStream_st* stream, uint64_t dst, size_t size) {
    if (size == 0 || size > copy_run::largest_copy) return false;
    if (r.empty()) return true;
    if (stream != r.stream) return false;
    const uint64_t end = r.start + r.bytes.size();
    const bool gap = dst > end || dst + size < r.start;
    return !gap && span_with(r, dst, size).size <= copy_run::largest_span;
}

void extend(copy_run& r, cbStream_st* stream, cb_gpu_stream* plugin_stream, uint64_t dst, const void* src,
            size_t size) {
    if (r.empty()) {
        r.stream = stream;
        r.plugin_stream = plugin_stream;
        r.start = dst;
        r.bytes.clear();
    }
    const device_span span = span_with(r, dst, size);
    // Grow at the front (the earlier bytes move up) or at the back, then lay the copy over it.
    if (span.start < r.start) r.bytes.insert(r.bytes.begin(), static_cast<size_t>(r.start - span.start), 0);
    r.bytes.resize(static_cast<size_t>(span.size));
    r.start = span.start;
    std::memcpy(r.bytes.data() + (dst - r.start), src, size);
    ++r.copies;
}

void clear(copy_run& r) {
    r.bytes.clear();
    r.copies = 0;
    r.stream = nullptr;
    r.plugin_stream = nullptr;
}

}  // namespace cudabridge::host
