#include "policy/classify.hpp"

#include "policy/text.hpp"

#include <algorithm>
#include <cmath>

namespace cudabridge::plugins::safety {

namespace {

struct xid_rule {
    uint32_t xid;
    cb_safety_action entry;
    const char* meaning;  // nullptr: shown as the bare number
};

// Levels after NVIDIA's Xid catalog and its health-validation checks (see the README):
// application-level faults restart the worker (soft reset), ECC / GSP / stopped-processing
// faults need a drained GPU reset, and a GPU that fell off the bus needs the link rebuilt.
constexpr xid_rule xid_rules[] = {
    {8, CB_ACTION_SOFT_RESET, "channel idle timeout"},
    {11, CB_ACTION_SOFT_RESET, "invalid push buffer"},
    {13, CB_ACTION_SOFT_RESET, "graphics engine exception"},
    {31, CB_ACTION_SOFT_RESET, "MMU fault"},
    {43, CB_ACTION_SOFT_RESET, nullptr},
    {46, CB_ACTION_HARD_RESET, "GPU stopped processing"},
    {48, CB_ACTION_HARD_RESET, "double-bit ECC error"},
    {79, CB_ACTION_RECONNECT, "GPU has fallen off the bus"},
    {94, CB_ACTION_SOFT_RESET, "contained ECC error"},
    {95, CB_ACTION_HARD_RESET, "uncontained ECC error"},
    {119, CB_ACTION_HARD_RESET, "GSP RPC timeout"},
    {120, CB_ACTION_HARD_RESET, "GSP error"},
};

const xid_rule* find_xid(uint32_t xid) {
    for (const auto& r : xid_rules)
        if (r.xid == xid) return &r;
    return nullptr;
}

std::string xid_text(uint32_t xid) {
    const char* meaning = xid_meaning(xid);
    return meaning ? printf_text("Xid %u (%s)", xid, meaning) : printf_text("Xid %u", xid);
}

}  // namespace

uint32_t new_xid(const health_input& in) {
    const uint32_t xid = in.current.last_xid;
    if (xid == 0 || !in.previous || in.previous->last_xid == xid) return 0;
    return xid;
}

cb_safety_action xid_entry_rung(uint32_t xid) {
    const xid_rule* r = find_xid(xid);
    return r ? r->entry : CB_ACTION_NONE;
}

const char* xid_meaning(uint32_t xid) {
    const xid_rule* r = find_xid(xid);
    return r ? r->meaning : nullptr;
}

std::vector<fault> classify(const health_input& in, const parameters& p) {
    const cb_health_sample& s = in.current;
    // ABI 1.3 fields: read_health_input leaves them zero for an older record; check anyway so
    // the rule does not depend on that.
    const bool has_v13 = CB_HAS_MEMBER(&s, cb_health_sample, device_lost);
    const bool device_lost = has_v13 && s.device_lost != 0;
    // A hang is work the device has not moved (ABI 1.13 stalled_ms), never old work alone: a deep
    // queue that keeps retiring commands is healthy however old its oldest item. An older host
    // gives only the age, and a family that cannot tell progress gives UINT64_MAX: neither is
    // judged here (the heartbeat still catches a device that stopped answering).
    const bool has_v113 = CB_HAS_MEMBER(&s, cb_health_sample, stalled_ms);
    const uint64_t stalled_ms = has_v113 && s.stalled_ms != UINT64_MAX ? s.stalled_ms : 0;

    std::vector<fault> faults;
    if (s.link_up == 0) faults.push_back({CB_ACTION_RECONNECT, "link down (device gone)"});
    if (const uint32_t xid = new_xid(in); xid_entry_rung(xid) != CB_ACTION_NONE)
        faults.push_back({xid_entry_rung(xid), xid_text(xid)});
    if (device_lost && s.link_up != 0)
        faults.push_back({CB_ACTION_HARD_RESET, "device stopped answering on a live link"});
    if (s.heartbeat_age_ms > p.heartbeat_timeout_ms)
        faults.push_back({CB_ACTION_HARD_RESET,
                          printf_text("no heartbeat for %llu ms (timeout %u ms)",
                                      static_cast<unsigned long long>(s.heartbeat_age_ms), p.heartbeat_timeout_ms)});
    if (stalled_ms > p.heartbeat_timeout_ms)
        faults.push_back(
            {CB_ACTION_HARD_RESET, printf_text("no progress for %llu ms with work pending (timeout %u ms): engine hung",
                                               static_cast<unsigned long long>(stalled_ms), p.heartbeat_timeout_ms)});
    // A kernel time limit (off by default): a kernel that runs on, even one that keeps moving, is
    // stopped once past it, as a display GPU's watchdog stops it.
    const bool has_v116 = CB_HAS_MEMBER(&s, cb_health_sample, kernel_running_ms);
    if (has_v116 && p.kernel_time_limit_ms > 0 && s.kernel_running_ms != UINT64_MAX &&
        s.kernel_running_ms > p.kernel_time_limit_ms)
        faults.push_back({CB_ACTION_SOFT_RESET,
                          printf_text("a kernel has run for %llu ms, past the kernel time limit (%u ms)",
                                      static_cast<unsigned long long>(s.kernel_running_ms), p.kernel_time_limit_ms)});
    if (s.integrity_failure != 0) faults.push_back({CB_ACTION_HARD_RESET, "a data-integrity check failed"});
    // An exhausted IOMMU: a hard reset releases the runtime's memory and its mappings, a reconnect
    // every mapping of the link.
    if (has_v113 && s.dma_map_refusals > 0)
        faults.push_back({CB_ACTION_HARD_RESET, count_text(s.dma_map_refusals, "DMA mapping", "DMA mappings") +
                                                    " refused by the IOMMU (no room to map)"});
    if (in.previous && s.ecc_uncorrected > in.previous->ecc_uncorrected) {
        const auto added = static_cast<unsigned long long>(s.ecc_uncorrected - in.previous->ecc_uncorrected);
        faults.push_back(
            {CB_ACTION_HARD_RESET, count_text(added, "new uncorrected ECC error", "new uncorrected ECC errors")});
    }
    if (s.error_rate > p.error_rate_threshold)  // false for NaN: no figure, no fault
        faults.push_back({CB_ACTION_SOFT_RESET,
                          printf_text("error rate %s over the %s threshold", percent_text(s.error_rate).c_str(),
                                      percent_text(p.error_rate_threshold).c_str())});

    std::stable_sort(faults.begin(), faults.end(), [](const fault& a, const fault& b) { return a.entry > b.entry; });
    return faults;
}

}  // namespace cudabridge::plugins::safety
