#include "samples.hpp"

#include "text.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace conservative {

namespace {

constexpr size_t abi_1_0_sample_size = offsetof(cb_health_sample, oldest_pending_ms);
constexpr size_t abi_1_0_history_size = offsetof(cb_health_history, emergency_stopped);

cb_health_sample sample_at(const unsigned char* first, size_t stride, size_t index) {
    cb_health_sample s{};
    std::memcpy(&s, first + index * stride, std::min(stride, sizeof s));
    s.struct_size = static_cast<uint32_t>(std::min(stride, sizeof s));
    return s;
}

}  // namespace

std::optional<std::string> read_history(const cb_health_history* history, health_view& out) {
    if (history == nullptr) return std::string("the history is NULL");
    const cb_health_history& h = *history;
    if (h.struct_size < abi_1_0_history_size) return format_text("history struct_size %u is too small", h.struct_size);
    if (h.samples == nullptr || h.sample_count == 0) return std::string("the history holds no sample");
    // The host lays samples out at its own record size, which the first one states.
    const size_t stride = h.samples[0].struct_size;
    if (stride < abi_1_0_sample_size) return format_text("sample struct_size %zu is too small", stride);
    const auto* first = reinterpret_cast<const unsigned char*>(h.samples);
    out = health_view{};
    out.current = sample_at(first, stride, h.sample_count - 1);
    if (h.sample_count > 1) out.previous = sample_at(first, stride, h.sample_count - 2);
    out.emergency_stopped = CB_HAS_MEMBER(history, cb_health_history, emergency_stopped) && h.emergency_stopped != 0;
    out.failed = CB_HAS_MEMBER(history, cb_health_history, failed) && h.failed != 0;
    return std::nullopt;
}

}  // namespace conservative
