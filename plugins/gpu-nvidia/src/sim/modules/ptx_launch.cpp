#include "sim/modules/ptx_launch.hpp"

#include "common/host_kernels/host_kernel_launch.hpp"

#include <algorithm>
#include <cstring>

namespace cudabridge::nv {
namespace {

constexpr uint32_t block_magic = 0x58545043;  // "CPTX"

struct block_header : launch_block_target {
    uint32_t dynamic_shared;
    uint32_t param_bytes;
    uint32_t unmapped_count;
    uint32_t host_window_count;
    uint64_t symbols;
    uint32_t stack_bytes;
    uint32_t flags;  // 1: cooperative
    uint64_t heap_address;
    uint64_t heap_bytes;
};
static_assert(sizeof(block_header) == 88);

constexpr uint64_t page_bytes = uint64_t{1} << 16;

}  // namespace

cb_status check_ptx_launch(const ptx_launch& l, const std::string& where, std::string& error) {
    if (cb_status st = check_launch_shape(l.grid, l.block, where, error); st != CB_OK) return st;
    if (l.dynamic_shared > max_ptx_dynamic_shared) {
        error = where + ": " + std::to_string(l.dynamic_shared) + " bytes of dynamic shared memory (at most " +
                std::to_string(max_ptx_dynamic_shared) + ")";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (l.unmapped.size() > max_unmapped_ranges) {
        error = where + ": " + std::to_string(l.unmapped.size()) + " unmapped ranges (at most " +
                std::to_string(max_unmapped_ranges) + ")";
        return CB_ERR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < l.unmapped.size(); ++i) {
        const address_range& r = l.unmapped[i];
        if (r.first >= r.end || (i > 0 && r.first < l.unmapped[i - 1].end)) {
            error = where + ": unmapped ranges out of order";
            return CB_ERR_INVALID_ARGUMENT;
        }
    }
    if (l.host_windows.size() > max_host_windows) {
        error = where + ": " + std::to_string(l.host_windows.size()) + " host windows (at most " +
                std::to_string(max_host_windows) + ")";
        return CB_ERR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < l.host_windows.size(); ++i) {
        const host_window& w = l.host_windows[i];
        const bool ordered = i == 0 || w.address >= l.host_windows[i - 1].address + l.host_windows[i - 1].size;
        if (w.size == 0 || w.address + w.size < w.address || !ordered) {
            error = where + ": host windows empty, wrapping or out of order";
            return CB_ERR_INVALID_ARGUMENT;
        }
    }
    if (l.stack_bytes > max_stack_bytes) {
        error = where + ": a stack of " + std::to_string(l.stack_bytes) + " bytes per thread (at most " +
                std::to_string(max_stack_bytes) + ")";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (l.heap_address + l.heap_bytes < l.heap_address) {
        error = where + ": the device heap wraps around";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (l.params.size() > max_ptx_param_bytes) {
        error = where + ": " + std::to_string(l.params.size()) + " bytes of parameters (at most " +
                std::to_string(max_ptx_param_bytes) + ")";
        return CB_ERR_INVALID_ARGUMENT;
    }
    return CB_OK;
}

std::vector<address_range> unmapped_pages(const std::vector<address_range>& free_blocks) {
    std::vector<address_range> pages;
    for (const address_range& b : free_blocks) {
        const uint64_t first = (b.first + page_bytes - 1) / page_bytes * page_bytes;
        const uint64_t end = b.end / page_bytes * page_bytes;
        if (first < end) pages.push_back({first, end});
    }
    if (pages.size() > max_unmapped_ranges) {
        std::nth_element(
            pages.begin(), pages.begin() + max_unmapped_ranges, pages.end(),
            [](const address_range& a, const address_range& b) { return a.end - a.first > b.end - b.first; });
        pages.resize(max_unmapped_ranges);
        std::sort(pages.begin(), pages.end(),
                  [](const address_range& a, const address_range& b) { return a.first < b.first; });
    }
    return pages;
}

std::vector<uint8_t> encode_ptx_launch(const ptx_launch& l) {
    block_header h{};
    h.magic = block_magic;
    copy_launch_target(h, l);
    h.dynamic_shared = l.dynamic_shared;
    h.param_bytes = static_cast<uint32_t>(l.params.size());
    h.unmapped_count = static_cast<uint32_t>(l.unmapped.size());
    h.symbols = l.symbols;
    h.stack_bytes = l.stack_bytes;
    h.flags = l.cooperative ? 1u : 0u;
    h.heap_address = l.heap_address;
    h.heap_bytes = l.heap_bytes;
    h.host_window_count = static_cast<uint32_t>(l.host_windows.size());
    const size_t ranges = l.unmapped.size() * sizeof(address_range);
    const size_t windows = l.host_windows.size() * sizeof(host_window);
    std::vector<uint8_t> out(sizeof h + l.params.size() + ranges + windows);
    std::memcpy(out.data(), &h, sizeof h);
    if (!l.params.empty()) std::memcpy(out.data() + sizeof h, l.params.data(), l.params.size());
    if (ranges) std::memcpy(out.data() + sizeof h + l.params.size(), l.unmapped.data(), ranges);
    if (windows) std::memcpy(out.data() + sizeof h + l.params.size() + ranges, l.host_windows.data(), windows);
    return out;
}

cb_status decode_ptx_launch(const void* data, size_t size, ptx_launch& out, std::string& error) {
    block_header h{};
    if (size < sizeof h) {
        error = "PTX launch block: " + std::to_string(size) + " bytes, shorter than its header";
        return CB_ERR_INVALID_ARGUMENT;
    }
    std::memcpy(&h, data, sizeof h);
    const uint64_t ranges = uint64_t{h.unmapped_count} * sizeof(address_range);
    if (h.magic != block_magic || h.unmapped_count > max_unmapped_ranges || h.host_window_count > max_host_windows ||
        size != sizeof h + h.param_bytes + ranges + uint64_t{h.host_window_count} * sizeof(host_window)) {
        error = "PTX launch block: bad magic or size";
        return CB_ERR_INVALID_ARGUMENT;
    }
    out = ptx_launch{};
    copy_launch_target(out, h);
    out.dynamic_shared = h.dynamic_shared;
    out.symbols = h.symbols;
    out.stack_bytes = h.stack_bytes;
    out.cooperative = (h.flags & 1u) != 0;
    out.heap_address = h.heap_address;
    out.heap_bytes = h.heap_bytes;
    const auto* bytes = static_cast<const uint8_t*>(data);
    out.params.assign(bytes + sizeof h, bytes + sizeof h + h.param_bytes);
    out.unmapped.resize(h.unmapped_count);
    if (h.unmapped_count)
        std::memcpy(out.unmapped.data(), bytes + sizeof h + h.param_bytes, h.unmapped_count * sizeof(address_range));
    out.host_windows.resize(h.host_window_count);
    if (h.host_window_count)
        std::memcpy(out.host_windows.data(), bytes + sizeof h + h.param_bytes + ranges,
                    h.host_window_count * sizeof(host_window));
    return check_ptx_launch(out, "PTX launch block", error);
}

}  // namespace cudabridge::nv
