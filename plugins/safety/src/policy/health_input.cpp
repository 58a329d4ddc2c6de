#include "policy/health_input.hpp"

#include "policy/text.hpp"

#include <cudabridge/cpp/records.hpp>

#include <algorithm>
#include <cstring>

namespace cudabridge::plugins::safety {

namespace {

// Copies one record of `stride` bytes into a zeroed full-size sample; fields past the record's
// own struct_size stay zero.
std::optional<std::string> read_sample(const unsigned char* record, size_t stride, size_t index,
                                       cb_health_sample& out) {
    const uint32_t size = sdk::caller_size(record);
    if (size < sample_size_v1_0 || size > stride)
        return printf_text(
            "health sample %zu has struct_size %u; expected %zu (the first "
            "sample's) and at least %zu (ABI 1.0)",
            index, size, stride, sample_size_v1_0);
    out = cb_health_sample{};
    std::memcpy(&out, record, std::min<size_t>(size, sizeof out));
    out.struct_size = static_cast<uint32_t>(std::min<size_t>(size, sizeof out));
    return std::nullopt;
}

}  // namespace

std::optional<std::string> read_health_input(const cb_health_history* h, health_input& out) {
    if (h == nullptr) return std::string("health history is NULL");
    const cb_health_history& history = *h;
    if (history.struct_size < history_size_v1_0)
        return printf_text("health history struct_size %u is smaller than the ABI 1.0 size %zu", history.struct_size,
                           history_size_v1_0);
    if (history.samples == nullptr) return std::string("health history has no samples (NULL)");
    if (history.sample_count == 0) return std::string("health history has no samples (count 0)");

    const auto* base = reinterpret_cast<const unsigned char*>(history.samples);
    const uint32_t stride = sdk::caller_size(base);
    if (stride < sample_size_v1_0 || stride > sample_size_limit)
        return printf_text(
            "health sample struct_size %u is not a valid record size (ABI 1.0 is "
            "%zu bytes)",
            stride, sample_size_v1_0);

    out = health_input{};
    out.recovery_attempts = history.recovery_attempts;
    if (CB_HAS_MEMBER(h, cb_health_history, emergency_stopped)) out.emergency_stopped = history.emergency_stopped != 0;
    if (CB_HAS_MEMBER(h, cb_health_history, failed)) out.failed = history.failed != 0;

    const size_t last = history.sample_count - 1;
    if (auto why = read_sample(base + last * stride, stride, last, out.current)) return why;
    if (last > 0) {
        cb_health_sample before{};
        if (auto why = read_sample(base + (last - 1) * stride, stride, last - 1, before)) return why;
        out.previous = before;
    }
    return std::nullopt;
}

}  // namespace cudabridge::plugins::safety
