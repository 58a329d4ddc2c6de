// Safe disconnect, in the order the evidence in docs/removal-and-pcie-errors.md §1.4 asks for: refuse new work,
// drain (bounded), free what the runtime holds, stop monitoring, close the GPU and the tunnel,
// deauthorize when configured. The connection ends for every process: the shared epoch moves on
// so other processes answer device-lost on their next call.
#include "connection/device_impl.hpp"

#include <cb_log.h>

#include "connection/device_facts.hpp"
#include "connection/process_list.hpp"

#include <cudabridge/core/parameters.hpp>
#include <cudabridge/core/store.hpp>
#include <cudabridge/cpp/bool_text.hpp>

#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>
#include <string>

namespace cudabridge::host {
namespace {

bool deauthorize_by_default(session& s) {
    std::lock_guard lock(s.store_mutex());
    const auto v = core::get_setting(s.db(), "global", "session.deauthorize_on_disconnect");
    return v && sdk::parse_bool(*v).value_or(false);
}

// Processes other than this one that use the device (allocated or queued work).
std::vector<cb_gpu_process> other_users(session& s, cb_gpu_device* handle) {
    std::vector<cb_gpu_process> all, others;
    if (list_processes(s.gpu(), s.gpu_instance(), handle, all) != CB_OK) return others;  // nobody known
    for (const cb_gpu_process& p : all)
        if (p.pid != static_cast<int32_t>(getpid()) && (p.flags & CB_GPU_PROCESS_COMPUTE)) others.push_back(p);
    return others;
}

std::string busy_list(const std::vector<cb_gpu_process>& others) {
    std::string text;
    for (const cb_gpu_process& p : others) {
        if (!p.queued) continue;
        text += (text.empty() ? "" : ", ") + std::string(p.name) + " (pid " + std::to_string(p.pid) + ", " +
                std::to_string(p.queued) + " command" + (p.queued == 1 ? "" : "s") + " queued)";
    }
    return text;
}

}  // namespace

// Waits up to timeout_ms for the other processes using the device to finish their queued work:
// true when some still have work queued (`others` lists who uses the device).
bool device_impl::others_still_busy(uint32_t timeout_ms, std::vector<cb_gpu_process>& others) {
    const uint64_t deadline = monotonic_ns() + uint64_t{timeout_ms} * 1'000'000;
    for (;;) {
        {
            std::shared_lock lock(gate);
            others = other_users(s, handle);
        }
        if (busy_list(others).empty()) return false;
        if (monotonic_ns() >= deadline) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

disconnect_report device_impl::disconnect(const disconnect_options& o) {
    disconnect_report r;
    step_log log(s, id, "disconnect", r.steps, nullptr);

    uint64_t t0 = monotonic_ns();
    if (o.force) {
        std::shared_lock lock(gate);
        r.others = other_users(s, handle);  // their work is aborted with the rest: say whose
    } else if (others_still_busy(o.drain_timeout_ms, r.others)) {
        r.refused = true;
        log.done("refuse", t0, false,
                 "another process has work queued on the device: " + busy_list(r.others) + " (--force aborts it)");
        return r;
    }
    t0 = monotonic_ns();
    set_state(device_state::disconnecting, CB_OK, "state",
              o.force ? "disconnecting (forced): pending work is aborted" : "disconnecting: new work is refused");
    log.done("refuse", t0, true, "new work answers device-lost");

    t0 = monotonic_ns();
    if (!o.force && handle) {
        // device_synchronize runs on a helper thread so the drain can give up on time.
        auto drained = std::async(std::launch::async, [this] {
            std::shared_lock lock(gate);
            return s.gpu()->device_synchronize(s.gpu_instance(), handle);
        });
        r.drained = drained.wait_for(std::chrono::milliseconds(o.drain_timeout_ms)) == std::future_status::ready;
        const cb_status st = r.drained ? drained.get() : CB_ERR_TIMEOUT;
        if (!r.drained) {
            // Abort what is left: the GPU drops its queue, waiters wake with an error.
            s.gpu()->reset(s.gpu_instance(), handle, CB_RESET_SOFT);
            drained.wait();
        }
        log.done("drain", t0, r.drained,
                 r.drained
                     ? (st == CB_OK ? "all queued work completed"
                                    : "queue drained; the last work failed: " + std::string(core::status_name(st)))
                     : "timed out after " + std::to_string(o.drain_timeout_ms) + " ms: the rest was aborted");
    } else {
        r.drained = false;
        if (handle) s.gpu()->reset(s.gpu_instance(), handle, CB_RESET_SOFT);
        log.done("drain", t0, true,
                 o.force ? "skipped (--force): pending work aborted with device-lost" : "no GPU open");
    }

    {
        std::unique_lock lock(gate);  // no runtime call is in flight past this point
        t0 = monotonic_ns();
        release_runtime(!o.force);
        log.done("free", t0, true, "allocations, streams, events and modules released");

        lock.unlock();
        t0 = monotonic_ns();
        stop_supervisor();
        log.done("monitoring", t0, true, "supervisor stopped");
        lock.lock();

        t0 = monotonic_ns();
        close_gpu();
        close_tunnel();
        log.done("tunnel", t0, true, "GPU closed, PCIe tunnel torn down");
    }

    const bool deauth = o.deauthorize.value_or(deauthorize_by_default(s));
    t0 = monotonic_ns();
    if (deauth && !attached) {
        const cb_status st = s.transport()->deauthorize(s.transport_instance(), id.c_str());
        log.done("deauthorize", t0, st == CB_OK,
                 st == CB_OK ? "device deauthorized" : "could not deauthorize: " + core::last_error());
    } else {
        log.done("deauthorize", t0, true,
                 deauth ? "skipped: attached to another process's connection"
                        : "skipped (session.deauthorize_on_disconnect is off)");
    }

    shared->publish_ended(shared_link_state::disconnected);
    try {
        std::lock_guard lock(s.store_mutex());
        core::end_session(s.db(), session_id, "disconnected", o.force ? "forced disconnect" : "safe disconnect");
    } catch (const std::exception& e) {
        s.log_line(CB_LOG_ERROR, CB_LOG_CAT_EGPU, std::string("could not end the session row: ") + e.what(), id);
    }
    set_state(device_state::disconnected, CB_OK, "state", "disconnected");
    return r;
}

}  // namespace cudabridge::host
