#include "buffer_pool.hpp"

namespace cudabridge::python {

void* buffer_pool::take(int device, uint64_t stream, size_t nbytes) {
    auto it = blocks_.find(key{device, stream, nbytes});
    if (it == blocks_.end() || it->second.empty()) return nullptr;
    void* ptr = it->second.back();
    it->second.pop_back();
    bytes_ -= nbytes;
    return ptr;
}

bool buffer_pool::keep(int device, uint64_t stream, size_t nbytes, void* ptr) {
    if (bytes_ + nbytes > limit) return false;
    blocks_[key{device, stream, nbytes}].push_back(ptr);
    bytes_ += nbytes;
    return true;
}

std::vector<pooled_block> buffer_pool::drain() {
    std::vector<pooled_block> out;
    for (auto& [k, ptrs] : blocks_)
        for (void* p : ptrs) out.push_back(pooled_block{p, std::get<0>(k)});
    blocks_.clear();
    bytes_ = 0;
    return out;
}

}  // namespace cudabridge::python
