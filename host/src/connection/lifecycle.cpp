// Opening and closing the tunnel and the GPU, and the recovery rungs built from them: soft
// reset, hard reset, reconnect. Callers hold the device's gate exclusively.
#include "connection/device_impl.hpp"

#include <cb_log.h>

#include <cudabridge/core/gpu_profiles.hpp>
#include <cudabridge/core/store.hpp>

#include <chrono>
#include <thread>

namespace cudabridge::host {
namespace {

std::string why(cb_status st, const std::string& what) {
    const std::string& detail = core::last_error();
    return what + ": " + (detail.empty() ? core::status_description(st) : detail);
}

}  // namespace

cb_status device_impl::open_tunnel(std::string& error) {
    cb_link* l = nullptr;
    const cb_status st = s.transport()->open_link(s.transport_instance(), function_id.c_str(), &l);
    if (st != CB_OK) {
        error = why(st, "cannot open the PCIe tunnel to " + function_id);
        return st;
    }
    link = l;
    return CB_OK;
}

void device_impl::close_tunnel() noexcept {
    if (link) s.transport()->close_link(s.transport_instance(), link);
    link = nullptr;
}

cb_status device_impl::open_gpu(std::string& error) {
    cb_bool claimed = 0;
    cb_status st = s.gpu()->claim(s.gpu_instance(), &function, &claimed);
    if (st != CB_OK || !claimed) {
        error = st != CB_OK ? why(st, "the " + s.gpu_info().name + " family cannot look at " + function_id)
                            : "the " + s.gpu_info().name + " GPU family does not drive " + function_id +
                                  " (vendor or class not its own)";
        return st != CB_OK ? st : CB_ERR_UNSUPPORTED;
    }
    {
        std::lock_guard lock(s.store_mutex());
        auto row = core::find_effective_gpu_profile(s.db(), function.pci_device_id);
        profile_json = row ? row->data : std::string();
    }
    cb_gpu_open_params p{};
    p.struct_size = sizeof p;
    p.ordinal = -1;
    p.transport = s.transport();
    p.transport_instance = s.transport_instance();
    p.link = link;
    p.endpoint = &function;
    p.profile_json = profile_json.empty() ? nullptr : profile_json.c_str();
    cb_gpu_device* h = nullptr;
    st = s.gpu()->open_device(s.gpu_instance(), &p, &h);
    if (st != CB_OK) {
        error = why(st, "GPU initialisation failed");
        return st;
    }
    cb_gpu_properties props{};
    props.struct_size = sizeof props;
    st = s.gpu()->get_properties(s.gpu_instance(), h, &props);
    if (st != CB_OK) {
        error = why(st, "the GPU does not report its properties");
        s.gpu()->close_device(s.gpu_instance(), h);
        return st;
    }
    handle = h;
    properties = props;
    return CB_OK;
}

void device_impl::close_gpu() noexcept {
    if (handle) s.gpu()->close_device(s.gpu_instance(), handle);
    handle = nullptr;
}

cb_status device_impl::reopen_gpu(std::string& error) {
    close_gpu();
    if (!link) {
        error = "no tunnel to " + function_id;
        return CB_ERR_DEVICE_LOST;
    }
    // The link's status first: it brings in what other processes did to the device (a reset
    // that ended a hang), which the GPU's registers are read through.
    cb_link_status l{};
    l.struct_size = sizeof l;
    if (s.transport()->link_status(s.transport_instance(), link, &l) != CB_OK || !l.up) {
        error = "the link to " + name + " is down";
        return CB_ERR_LINK_DOWN;
    }
    return open_gpu(error);
}

void device_impl::look_again() noexcept {
    std::unique_lock lock(gate);
    // A process using the device connected it again (a reconnect, a manual reset after a replug):
    // this view follows the new connection, as a query started now would join it.
    if (shared->state() == shared_link_state::connected && !shared->still_connected(epoch)) epoch = shared->epoch();
    std::string error;
    cb_status st = reopen_gpu(error);  // still lost: the next sample says so and tries again
    // The link this view looked through went with a drop or a replug that the process using the
    // device recovered from: look through a new one (the function may have a new id after a replug).
    if (st != CB_OK) {
        close_gpu();
        close_tunnel();
        for (const auto& d : detect(s))
            if (id == d.enclosure.id && d.function) {
                function = *d.function;
                function_id = function.id;
            }
        st = open_tunnel(error);
        if (st == CB_OK) st = open_gpu(error);
    }
    if (st == CB_OK) seen_again();
}

// The GPU answers again: a view that saw it lost is connected, as status and query in a new
// process say.
void device_impl::seen_again() {
    device_state lost = device_state::lost;
    if (state.compare_exchange_strong(lost, device_state::connected)) set_refusal({});
}

void device_impl::release_runtime(bool usable) noexcept {
    if (!release_hook) return;
    try {
        release_hook(usable);
    } catch (...) {
    }
}

cb_status device_impl::reauthorize(std::string& error) {
    cb_status st = CB_OK;
    for (const auto& d : detect(s)) {
        if (id != d.enclosure.id) continue;
        if (d.enclosure.authorized != CB_AUTH_NONE || d.enclosure.security_level == CB_SECURITY_NONE) return CB_OK;
        st = key.empty()
                 ? s.transport()->authorize(s.transport_instance(), id.c_str(), CB_AUTH_AUTHORIZED, nullptr, 0)
                 : s.transport()->authorize(s.transport_instance(), id.c_str(), CB_AUTH_SECURE, key.data(), key.size());
        if (st != CB_OK) error = why(st, "cannot authorize " + id + " again");
        return st;
    }
    error = "enclosure " + id + " is not there (unplugged?)";
    return CB_ERR_NO_DEVICE;
}

cb_status device_impl::soft_reset(std::string& error) {
    work_abandons.fetch_add(1, std::memory_order_acq_rel);
    const cb_status st = s.gpu()->reset(s.gpu_instance(), handle, CB_RESET_SOFT);
    if (st != CB_OK) error = why(st, "soft reset failed");
    // The engines are the device's: every other process's queued work goes with them.
    if (st == CB_OK) seen_engine_resets.store(shared->publish_engine_reset());
    return st;
}

void device_impl::stop_local_work() noexcept {
    work_abandons.fetch_add(1, std::memory_order_acq_rel);
    std::shared_lock lock(gate);
    if (handle) s.gpu()->reset(s.gpu_instance(), handle, CB_RESET_SOFT);
}

cb_status device_impl::hard_reset(std::string& error) {
    // Drained and exclusive: the runtime forgets what the reset is about to drop.
    release_runtime(false);
    memory_epoch.fetch_add(1);
    work_abandons.fetch_add(1, std::memory_order_acq_rel);
    cb_status st = s.gpu()->reset(s.gpu_instance(), handle, CB_RESET_HARD);
    seen_resets.store(shared->publish_reset());  // every other process's context goes with it
    if (st != CB_OK) {
        // A hung function ignores register writes; a function-level reset through the link
        // does not depend on the GPU listening.
        st = s.gpu()->reset(s.gpu_instance(), handle, CB_RESET_FUNCTION);
    }
    uint64_t counter = 0;
    if (st == CB_OK) st = s.gpu()->heartbeat(s.gpu_instance(), handle, &counter);
    if (st != CB_OK) error = why(st, "hard reset did not bring the GPU back");
    return st;
}

cb_status device_impl::reconnect(std::string& error) {
    release_runtime(false);
    memory_epoch.fetch_add(1);
    work_abandons.fetch_add(1, std::memory_order_acq_rel);
    seen_resets.store(shared->publish_reset());
    close_gpu();
    close_tunnel();
    cb_status st = reauthorize(error);
    if (st != CB_OK) return st;
    // After a replug the PCI function can take a moment to come back.
    for (int i = 0; i < 20; ++i) {
        bool present = false;
        for (const auto& d : detect(s))
            if (id == d.enclosure.id && d.function) {
                function = *d.function;
                function_id = function.id;
                present = true;
            }
        if (present) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    st = open_tunnel(error);
    if (st != CB_OK) return st;
    st = open_gpu(error);
    if (st != CB_OK) close_tunnel();
    return st;
}

void device_impl::detach() noexcept {
    stop_supervisor();
    std::unique_lock lock(gate);
    if (handle) {
        release_runtime(true);
        close_gpu();
    }
    close_tunnel();
    state.store(device_state::disconnected);
}

device_impl::~device_impl() { detach(); }

}  // namespace cudabridge::host
