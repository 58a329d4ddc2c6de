#include "decision.hpp"

#include "text.hpp"

#include <optional>

namespace conservative {

namespace {

constexpr const char* manual = "run 'cudabridge-cli reset' to bring it back";

bool grew(const health_view& h, uint64_t cb_health_sample::*counter) {
    return h.previous && h.current.*counter > (*h.previous).*counter;
}

// A new Xid: reported now and not in the sample before. The first sample is a baseline, as its
// Xid may date from before the connection.
uint32_t new_xid(const health_view& h) {
    const uint32_t xid = h.current.last_xid;
    return xid != 0 && h.previous && h.previous->last_xid != xid ? xid : 0;
}

// The first fault the current sample shows, as a phrase; none when healthy.
std::optional<std::string> fault_of(const health_view& h, const parameters& p) {
    const cb_health_sample& s = h.current;
    const bool v1_3 = CB_HAS_MEMBER(&s, cb_health_sample, device_lost);
    if (s.link_up == 0) return std::string("link down");
    if (v1_3 && s.device_lost != 0) return std::string("the device stopped answering");
    if (s.heartbeat_age_ms > p.heartbeat_timeout_ms)
        return format_text("no heartbeat for %llu ms", static_cast<unsigned long long>(s.heartbeat_age_ms));
    // Stuck is work the device has not moved (ABI 1.13), not merely old work: a long queue that
    // keeps moving is busy. UINT64_MAX: the GPU family cannot tell.
    const bool v1_13 = CB_HAS_MEMBER(&s, cb_health_sample, stalled_ms);
    if (v1_13 && s.stalled_ms != UINT64_MAX && s.stalled_ms > p.heartbeat_timeout_ms)
        return format_text("work stuck for %llu ms", static_cast<unsigned long long>(s.stalled_ms));
    if (s.integrity_failure != 0) return std::string("a data-integrity check failed");
    if (grew(h, &cb_health_sample::ecc_uncorrected)) return std::string("new uncorrected ECC errors");
    if (const uint32_t xid = new_xid(h)) return format_text("the GPU reported Xid %u", xid);
    if (s.error_rate > p.error_rate_threshold)
        return format_text("link error rate %.3g over the %.3g threshold", s.error_rate, p.error_rate_threshold);
    return std::nullopt;
}

}  // namespace

decision decide(const health_view& h, const parameters& p) {
    const cb_health_sample& s = h.current;
    if (h.failed) return {CB_ACTION_MARK_FAILED, format_text("marked failed; %s.", manual)};
    if (s.temperature_c >= p.thermal_limit_c)
        return {CB_ACTION_EMERGENCY_STOP, format_text("temperature %.1f C is at or over the conservative %.0f C "
                                                      "limit: emergency stop.",
                                                      s.temperature_c, p.thermal_limit_c)};
    // A warning keeps one text while it lasts (no figures that change), so the host records it once.
    if (h.emergency_stopped)
        return {CB_ACTION_WARN, format_text("stopped: this policy never resumes on its own; once the GPU "
                                            "is below %.0f C, %s.",
                                            p.thermal_limit_c, manual)};
    if (auto fault = fault_of(h, p))
        return {CB_ACTION_MARK_FAILED,
                format_text("%s: marked failed instead of recovering automatically; %s.", fault->c_str(), manual)};
    if (s.temperature_c >= p.thermal_limit_c - p.warn_margin_c)
        return {CB_ACTION_WARN,
                format_text("temperature within %.0f C of the %.0f C limit.", p.warn_margin_c, p.thermal_limit_c)};
    if (s.error_rate > p.error_rate_threshold / 2)
        return {CB_ACTION_WARN, format_text("link error rate over half the %.3g threshold.", p.error_rate_threshold)};
    return {CB_ACTION_NONE, format_text("healthy: %.1f C.", s.temperature_c)};
}

}  // namespace conservative
