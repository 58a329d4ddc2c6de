// One health sample: a heartbeat that reaches the GPU, its telemetry, the link's counters since
// the last sample, the age of the oldest unfinished work and how long the GPU has not moved it,
// and the integrity failures and refused DMA mappings the runtime reported. Taken under the
// shared gate, so it never races a recovery.
#include "connection/device_impl.hpp"

namespace cudabridge::host {

cb_health_sample device_impl::take_sample() {
    cb_health_sample h{};
    h.struct_size = sizeof h;
    h.time_ns = monotonic_ns();
    h.integrity_failure = integrity_failures.exchange(0) > 0;
    h.dma_map_refusals = dma_refusals.exchange(0);
    std::shared_lock lock(gate);
    if (!handle || !link) {
        h.link_up = 0;
        h.device_lost = 1;
        h.heartbeat_age_ms = last_heartbeat_ok_ns_ ? (h.time_ns - last_heartbeat_ok_ns_) / 1000000 : 0;
        return h;
    }
    uint64_t counter = 0;
    const cb_status hb = s.gpu()->heartbeat(s.gpu_instance(), handle, &counter);
    if (hb == CB_OK) last_heartbeat_ok_ns_ = h.time_ns;
    if (!last_heartbeat_ok_ns_) last_heartbeat_ok_ns_ = h.time_ns;
    h.heartbeat_age_ms = (h.time_ns - last_heartbeat_ok_ns_) / 1000000;
    h.device_lost = hb == CB_ERR_DEVICE_LOST || hb == CB_ERR_LINK_DOWN;

    cb_gpu_telemetry t{};
    t.struct_size = sizeof t;
    if (s.gpu()->get_telemetry(s.gpu_instance(), handle, &t) == CB_OK) {
        h.temperature_c = t.temperature_c;
        h.power_w = t.power_w;
        h.power_limit_w = t.power_limit_w;
        h.ecc_uncorrected = t.ecc_uncorrected;
        h.last_xid = t.last_xid;
    }

    cb_link_status l{};
    l.struct_size = sizeof l;
    if (s.transport()->link_status(s.transport_instance(), link, &l) == CB_OK) {
        h.link_up = l.up;
        h.packets = l.packets;
        h.packet_errors = l.crc_errors + l.replays;
        // Between this process's own samples; the counters are the link's, so the traffic of
        // every process that uses it counts.
        if (have_last_link_ && l.packets >= last_link_.packets && l.crc_errors >= last_link_.crc_errors) {
            const uint64_t sends = (l.packets - last_link_.packets) + (l.crc_errors - last_link_.crc_errors);
            const uint64_t errors = l.crc_errors - last_link_.crc_errors;
            // CRC failures per packet sent: a packet that never got through counts too.
            if (sends) h.error_rate = static_cast<double>(errors) / static_cast<double>(sends);
        }
        last_link_ = l;
        have_last_link_ = true;
    } else {
        h.link_up = 0;
    }
    // The transport says the link is down: until a sample finds it up again or a reconnect
    // succeeds, calls fail at once with CB_ERR_LINK_DOWN.
    const bool was_down = link_down.exchange(h.link_up == 0, std::memory_order_acq_rel);
    // A drop and its end are events of the device, for history, status, query and monitor.
    if (!observer && was_down != (h.link_up == 0)) {
        if (h.link_up == 0)
            record(CB_SEVERITY_ERROR, "link.down", "the link to " + name + " went down");
        else
            record(CB_SEVERITY_INFO, "link.up", "the link to " + name + " is up again");
    }
    if (pending_probe) {
        const pending_work w = pending_probe();
        h.oldest_pending_ms = w.oldest_ms;
        h.stalled_ms = w.stalled_ms;
    }
    h.kernel_running_ms = kernel_running_ms();
    return h;
}

// UINT64_MAX where the family cannot tell; 0 where it does not answer (the heartbeat's to judge).
uint64_t device_impl::kernel_running_ms() const {
    const cb_gpu_table* t = s.gpu();
    if (!CB_HAS_FIELD(t, cb_gpu_table, kernel_running) || !t->kernel_running) return UINT64_MAX;
    uint64_t ms = 0;
    const cb_status st = t->kernel_running(s.gpu_instance(), handle, &ms);
    if (st == CB_ERR_UNSUPPORTED) return UINT64_MAX;
    return st == CB_OK ? ms : 0;
}

}  // namespace cudabridge::host
