// Device memory the package's arrays leave behind, kept for the next array of the same size on
// the same stream, as CuPy's memory pool does. Freeing device memory waits for the work queued
// on it (as cudaFree does), which would make every temporary of an expression synchronize; work
// on one stream runs in order, so the next array on that stream may reuse a block at once.
// Touched with the GIL held only (arrays are made and dropped by Python code).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace cudabridge::python {

// One pooled block: where it is, and on which device.
struct pooled_block {
    void* ptr = nullptr;
    int device = 0;
};

class buffer_pool {
public:
    // The pool holds at most this many bytes; a block past it is freed.
    static constexpr size_t limit = size_t{1} << 30;

    // A block of `nbytes` last used on `stream` of `device`; null when there is none.
    void* take(int device, uint64_t stream, size_t nbytes);
    // Keeps the block for reuse; false when the pool is full (the caller frees it).
    bool keep(int device, uint64_t stream, size_t nbytes, void* ptr);
    // Empties the pool; the caller frees what it returns.
    std::vector<pooled_block> drain();
    size_t bytes() const { return bytes_; }

private:
    using key = std::tuple<int, uint64_t, size_t>;  // device, stream, bytes
    std::map<key, std::vector<void*>> blocks_;
    size_t bytes_ = 0;
};

}  // namespace cudabridge::python
