#include "sim/device_model/apertures.hpp"

#include <algorithm>
#include <cstring>

namespace cudabridge::nv {
namespace {

bool inside(uint64_t bar_size, uint64_t offset, uint32_t size) {
    return offset <= bar_size && size <= bar_size - offset;
}

// The VRAM bytes an aperture access reaches: [0, backed) of the access is VRAM at `at`, the rest
// is past its end.
struct backed_span {
    uint8_t* at = nullptr;
    uint64_t backed = 0;
};

backed_span resolve(const vram& memory, uint64_t window, uint64_t offset, uint32_t size) {
    backed_span s;
    if (window > memory.size() || offset > memory.size() - window) return s;
    const uint64_t start = window + offset;
    s.backed = std::min<uint64_t>(size, memory.size() - start);
    if (s.backed) s.at = memory.at_offset(start, s.backed);
    if (!s.at) s.backed = 0;
    return s;
}

}  // namespace

bool valid_access_size(uint32_t size) {
    return size == 1 || size == 2 || size == 4 || size == 8 || (size != 0 && size % 4 == 0);
}

cb_status bar1_read(const vram& memory, uint64_t bar1_size, uint64_t window, uint64_t offset, void* data,
                    uint32_t size) {
    if (!data || !valid_access_size(size) || !inside(bar1_size, offset, size)) return CB_ERR_INVALID_ARGUMENT;
    const backed_span s = resolve(memory, window, offset, size);
    auto* out = static_cast<uint8_t*>(data);
    if (s.backed) std::memcpy(out, s.at, s.backed);
    std::memset(out + s.backed, 0, size - s.backed);
    return CB_OK;
}

cb_status bar1_write(const vram& memory, uint64_t bar1_size, uint64_t window, uint64_t offset, const void* data,
                     uint32_t size) {
    if (!data || !valid_access_size(size) || !inside(bar1_size, offset, size)) return CB_ERR_INVALID_ARGUMENT;
    const backed_span s = resolve(memory, window, offset, size);
    if (s.backed) std::memcpy(s.at, data, s.backed);
    return CB_OK;
}

uint8_t* bar1_map(vram& memory, uint64_t bar1_size, uint64_t window, uint64_t offset, uint64_t size) {
    if (size == 0 || offset > bar1_size || size > bar1_size - offset) return nullptr;
    if (window > memory.size() || offset > memory.size() - window) return nullptr;
    return memory.map_for_host(window + offset, size);
}

cb_status bar3_read(const lazy_memory& memory, uint64_t offset, void* data, uint32_t size) {
    if (!data || !valid_access_size(size)) return CB_ERR_INVALID_ARGUMENT;
    const uint8_t* at = memory.at(offset, size);
    if (!at) return CB_ERR_INVALID_ARGUMENT;
    std::memcpy(data, at, size);
    return CB_OK;
}

cb_status bar3_write(const lazy_memory& memory, uint64_t offset, const void* data, uint32_t size) {
    if (!data || !valid_access_size(size)) return CB_ERR_INVALID_ARGUMENT;
    uint8_t* at = memory.at(offset, size);
    if (!at) return CB_ERR_INVALID_ARGUMENT;
    std::memcpy(at, data, size);
    return CB_OK;
}

}  // namespace cudabridge::nv
