// The connection sequence: detect, compatibility, authorization, tunnel, GPU initialisation,
// monitoring. Each step is timed, logged and recorded; a failure undoes the steps before it in
// reverse order and throws connect_error naming the step.
#include "connection/device_impl.hpp"

#include "connection/device_facts.hpp"

#include <cudabridge/core/store.hpp>

#include <sys/random.h>

#include <functional>

namespace cudabridge::host {
namespace {

std::string hex16(uint16_t v) {
    char b[8];
    std::snprintf(b, sizeof b, "%04x", v);
    return b;
}

// Undo actions of the steps done so far, run in reverse on failure.
class rollback {
public:
    void push(std::string what, std::function<void()> undo) { undo_.emplace_back(std::move(what), std::move(undo)); }
    void run() noexcept {
        for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
            try {
                it->second();
            } catch (...) {
            }
        }
        undo_.clear();
    }
    void clear() noexcept { undo_.clear(); }

private:
    std::vector<std::pair<std::string, std::function<void()>>> undo_;
};

class sequence {
public:
    sequence(session& s, const connect_options& o)
        : s_(s), o_(o), d_(std::make_unique<device_impl>(s)), log_(s, "", "connect", d_->steps, o.on_step) {}

    std::unique_ptr<device_impl> run() {
        if (o_.observe) return join_only();
        const detected_device chosen = step("detect", [&] { return choose(); });
        take_enclosure(chosen);
        if (chosen.connected_elsewhere && o_.allow_attach && try_attach(chosen)) return std::move(d_);
        step("compatibility", [&] { return check_compatibility(chosen, std::nullopt); });
        step("authorization", [&] { return authorize(chosen); });
        step("tunnel", [&] { return open_tunnel(chosen); });
        step("gpu_init", [&] { return init_gpu(); });
        step("monitoring", [&] { return start_monitoring(); });
        undo_.clear();
        d_->set_state(device_state::connected, CB_OK, "state",
                      std::string("connected: ") + d_->properties.name + " on " + d_->name);
        return std::move(d_);
    }

    // boltctl authorize: the steps up to the authorization, which stays; the tunnel and the GPU
    // are left for a later connect. Returns the steps' records.
    std::vector<step_record> authorize_only() {
        const detected_device chosen = step("detect", [&] { return choose(); });
        take_enclosure(chosen);
        if (chosen.connected_elsewhere) {
            detail_ = "already connected";
        } else {
            step("compatibility", [&] { return check_compatibility(chosen, std::nullopt); });
            step("authorization", [&] { return authorize(chosen); });
        }
        undo_.clear();
        d_->state.store(device_state::disconnected);
        return d_->steps;
    }

private:
    void take_enclosure(const detected_device& chosen) {
        d_->enclosure = chosen.enclosure;
        d_->id = chosen.enclosure.id;
        d_->name = chosen.enclosure.name;
        log_.set_device(d_->id);
        d_->shared = std::make_unique<shared_connection_state>(connection_state_folder(s_.db().path()), d_->id);
        d_->seen_resets = d_->shared->resets();
        d_->seen_engine_resets = d_->shared->engine_resets();
    }

    // connect_options::observe: the join of try_attach, silently, or connect_error; never a
    // connection sequence of this process's own.
    std::unique_ptr<device_impl> join_only() {
        log_.silence();
        const uint64_t t0 = monotonic_ns();
        detected_device chosen;
        try {
            chosen = choose();
        } catch (const core::error& e) {
            throw connect_error(e.status(), "detect", e.what(), d_->steps);
        }
        take_enclosure(chosen);
        d_->observer = true;
        if (!chosen.connected_elsewhere) {
            log_.done("attach", t0, false, "not connected");
            throw connect_error(CB_ERR_NOT_FOUND, "attach", d_->id + " is not connected: there is nothing to join",
                                d_->steps);
        }
        if (!try_attach(chosen))
            throw connect_error(CB_ERR_DEVICE_LOST, "attach", "could not join the connection: " + attach_error_,
                                d_->steps);
        return std::move(d_);
    }

    // Runs one step; on failure rolls everything back and throws connect_error.
    template <typename F>
    auto step(const std::string& name, F&& body) -> decltype(body()) {
        const uint64_t t0 = monotonic_ns();
        d_->state.store(state_for(name));
        try {
            auto result = body();
            log_.done(name, t0, true, detail_);
            detail_.clear();
            return result;
        } catch (const core::error& e) {
            fail(name, t0, e.status(), e.what());
        } catch (const std::exception& e) {
            fail(name, t0, CB_ERR_INTERNAL, e.what());
        }
    }

    [[noreturn]] void fail(const std::string& name, uint64_t t0, cb_status status, const std::string& why) {
        log_.done(name, t0, false, why);
        undo_.run();
        d_->state.store(device_state::disconnected);
        throw connect_error(status, name, "connect failed at " + name + ": " + why, d_->steps);
    }

    static device_state state_for(const std::string& step) {
        if (step == "detect") return device_state::detecting;
        if (step == "compatibility") return device_state::checking;
        if (step == "authorization") return device_state::authorizing;
        if (step == "tunnel") return device_state::tunneling;
        return device_state::initializing;
    }

    detected_device choose() {
        auto all = detect(s_);
        if (all.empty())
            throw core::error(CB_ERR_NO_DEVICE, "no eGPU enclosure found by the " + s_.transport_info().name +
                                                    " transport (nothing plugged in, or no USB4 / Thunderbolt domain)");
        const std::string& want = o_.device;
        if (want.empty() || want == "auto") {
            for (const auto& d : all)
                if (d.function || !d.gpu_model.empty() || d.advertised_vendor_id) return pick(d, all.size());
            return pick(all.front(), all.size());
        }
        for (size_t i = 0; i < all.size(); ++i)
            if (want == all[i].enclosure.id || want == all[i].enclosure.name || want == std::to_string(i))
                return pick(all[i], all.size());
        throw core::error(CB_ERR_NOT_FOUND, "no eGPU '" + want + "' among the " + std::to_string(all.size()) +
                                                " found (give an index, a unique id or a name)");
    }

    detected_device pick(const detected_device& d, size_t of) {
        detail_ = std::string(d.enclosure.name) + " (" + d.enclosure.id + "), " + std::to_string(of) + " found" +
                  (d.enclosure.is_simulated ? ", simulated" : "");
        return d;
    }

    int check_compatibility(const detected_device& d, const std::optional<cb_endpoint_info>& function) {
        const cb_device_facts facts = device_facts(s_, d, function);
        cb_verdict v{};
        v.struct_size = sizeof v;
        const cb_status st = s_.safety()->check_compatibility(s_.safety_instance(), &facts, &v);
        if (st != CB_OK)
            throw core::error(st, "the " + s_.safety_info().name + " policy could not decide: " + core::last_error());
        if (!v.compatible)
            throw core::error(CB_ERR_UNSUPPORTED,
                              std::string("refused by the ") + s_.safety_info().name + " safety policy: " + v.reason);
        detail_ = v.reason;
        return 0;
    }

    int authorize(const detected_device& d) {
        const cb_endpoint_info& e = d.enclosure;
        core::known_device_row known;
        {
            std::lock_guard lock(s_.store_mutex());
            known = core::remember_device(s_.db(), e.id, e.name, e.vendor_name);
        }
        if (!o_.policy.empty()) {  // boltctl enroll --policy: stored whatever the domain's level
            std::lock_guard lock(s_.store_mutex());
            core::set_device_policy(s_.db(), e.id, o_.policy);
            known.policy = o_.policy;
        }
        if (e.security_level == CB_SECURITY_SECURE) return authorize_secure(e, known);
        if (e.authorized != CB_AUTH_NONE || e.security_level == CB_SECURITY_NONE) {
            detail_ = std::string("already authorized (security ") + security_name(e.security_level) + ")";
            return 0;
        }
        check(s_.transport()->authorize(s_.transport_instance(), e.id, CB_AUTH_AUTHORIZED, nullptr, 0), "authorize");
        undo_deauthorize(e.id);
        detail_ = "authorized (security user, policy " + known.policy + ")";
        return 0;
    }

    int authorize_secure(const cb_endpoint_info& e, const core::known_device_row& known) {
        if (!known.key.empty()) {
            d_->key = known.key;
            if (e.authorized != CB_AUTH_NONE) {
                detail_ = "already authorized (security secure)";
                return 0;
            }
            check(s_.transport()->authorize(s_.transport_instance(), e.id, CB_AUTH_SECURE, known.key.data(),
                                            known.key.size()),
                  "challenge the stored key");
            undo_deauthorize(e.id);
            detail_ = "authorized with the stored key (security secure, challenge passed)";
            return 0;
        }
        if (!o_.enroll)
            throw core::error(CB_ERR_PERMISSION, std::string("device ") + e.id +
                                                     " is in a secure domain and not enrolled: connect it once with "
                                                     "--enroll to store its key (cudabridge-cli connect --enroll " +
                                                     e.id + ")");
        std::vector<uint8_t> key(32);
        if (::getrandom(key.data(), key.size(), 0) != static_cast<ssize_t>(key.size()))
            throw core::error(CB_ERR_INTERNAL, "no random bytes for a new key");
        if (e.authorized == CB_AUTH_NONE) {
            check(s_.transport()->authorize(s_.transport_instance(), e.id, CB_AUTH_AUTHORIZED, key.data(), key.size()),
                  "enroll a new key");
            undo_deauthorize(e.id);
        }
        std::lock_guard lock(s_.store_mutex());
        core::set_device_key(s_.db(), e.id, key);
        core::set_device_policy(s_.db(), e.id, o_.policy.empty() ? "auto" : o_.policy);
        d_->key = key;
        detail_ = "enrolled: a new key stored in the device and in the database (policy " +
                  (o_.policy.empty() ? std::string("auto") : o_.policy) + ")";
        return 0;
    }

    void undo_deauthorize(const std::string& id) {
        undo_.push("deauthorize", [this, id] { s_.transport()->deauthorize(s_.transport_instance(), id.c_str()); });
    }

    int open_tunnel(const detected_device& d) {
        auto refreshed = find_enclosure(d.enclosure.id);
        if (!refreshed.function)
            throw core::error(CB_ERR_NO_DEVICE, std::string("no PCI function appeared behind ") + d.enclosure.id +
                                                    " after authorization (empty enclosure?)");
        // What the enclosure advertised is checked again against the function itself.
        check_compatibility(refreshed, refreshed.function);
        d_->function = *refreshed.function;
        d_->function_id = d_->function.id;
        std::string error;
        raise_if(d_->open_tunnel(error), error);
        undo_.push("close the tunnel", [this] { d_->close_tunnel(); });
        detail_ = d_->function_id + " (" + hex16(d_->function.pci_vendor_id) + ":" + hex16(d_->function.pci_device_id) +
                  "), PCIe gen " + std::to_string(d_->function.pcie_link_gen) + " x" +
                  std::to_string(d_->function.pcie_link_width);
        return 0;
    }

    detected_device find_enclosure(const std::string& id) {
        for (auto& d : detect(s_))
            if (id == d.enclosure.id) return d;
        throw core::error(CB_ERR_DEVICE_LOST, "enclosure " + id + " went away during the connection");
    }

    int init_gpu() {
        std::string error;
        raise_if(d_->open_gpu(error), error);
        undo_.push("close the GPU", [this] { d_->close_gpu(); });
        detail_ = d_->properties.name + std::string(", ") + std::to_string(d_->properties.total_memory >> 20) +
                  " MiB, " + d_->properties.backend +
                  (d_->profile_json.empty() ? ", no model profile" : ", profile applied");
        return 0;
    }

    int start_monitoring() {
        {
            std::lock_guard lock(s_.store_mutex());
            d_->session_id = core::begin_session(s_.db(), d_->id, "{\"function\":\"" + d_->function_id + "\"}");
        }
        d_->epoch = d_->shared->publish_connected(d_->session_id);
        undo_.push("end the session", [this] {
            d_->shared->publish_ended(shared_link_state::disconnected);
            std::lock_guard lock(s_.store_mutex());
            core::end_session(s_.db(), d_->session_id, "failed", "connection rolled back");
        });
        d_->start_supervisor();
        detail_ = "session " + std::to_string(d_->session_id) + ", heartbeat every " +
                  std::to_string(static_cast<int>(s_.safety_number("heartbeat_interval_ms", 1000))) + " ms";
        return 0;
    }

    // Joins a connection another process made: tunnel and GPU opened here, nothing else.
    bool try_attach(const detected_device& d) {
        if (!d.function) return false;
        d_->attached = true;
        d_->function = *d.function;
        d_->function_id = d_->function.id;
        d_->session_id = d_->shared->session_id();
        d_->epoch = d_->shared->epoch();
        std::string error;
        const uint64_t t0 = monotonic_ns();
        cb_status st = d_->open_tunnel(error);
        if (st == CB_OK) {
            st = d_->open_gpu(error);
            if (st != CB_OK && o_.reset_unanswering) st = reset_function_and_reopen(error);
            if (st != CB_OK) d_->close_tunnel();
        }
        if (st != CB_OK) {
            log_.done("attach", t0, false, error + (o_.observe ? "" : "; connecting afresh"));
            attach_error_ = error;
            d_->attached = false;
            return false;
        }
        log_.done("attach", t0, true, "joined session " + std::to_string(d_->session_id) + ": " + d_->properties.name);
        if (!d_->observer) d_->start_supervisor();  // an observer's look never acts on the device
        d_->set_state(device_state::connected, CB_OK, "state", "attached to the connection of another process");
        return true;
    }

    // The GPU behind the tunnel did not answer: a function-level reset through the link (the
    // transport's, so it works while the GPU itself is hung), then the GPU is opened again.
    cb_status reset_function_and_reopen(std::string& error) {
        const uint64_t t0 = monotonic_ns();
        const std::string before = error;
        const cb_status reset = s_.transport()->reset_link(s_.transport_instance(), d_->link, CB_RESET_FUNCTION);
        log_.done("function_reset", t0, reset == CB_OK,
                  reset == CB_OK
                      ? "the GPU did not answer (" + before + "): its PCIe function was reset through the link"
                      : "the GPU did not answer, and the function-level reset failed: " + core::last_error());
        if (reset != CB_OK) return reset;
        s_.record_event(d_->id, "EGPU", CB_SEVERITY_WARNING, "connect.function_reset",
                        "a GPU that did not answer was reset through the link (" + before + ")");
        error.clear();
        return d_->open_gpu(error);
    }

    static void check(cb_status st, const std::string& what) {
        if (st != CB_OK)
            throw core::error(
                st, what + ": " + (core::last_error().empty() ? core::status_description(st) : core::last_error()));
    }

    static void raise_if(cb_status st, const std::string& message) {
        if (st != CB_OK) throw core::error(st, message);
    }

    session& s_;
    const connect_options& o_;
    std::unique_ptr<device_impl> d_;
    step_log log_;
    rollback undo_;
    std::string detail_;
    std::string attach_error_;  // why the last try_attach failed
};

}  // namespace

std::unique_ptr<device> connect(session& s, const connect_options& options) {
    auto impl = sequence(s, options).run();
    return std::unique_ptr<device>(new device(std::move(impl)));
}

std::vector<step_record> authorize(session& s, const connect_options& options) {
    return sequence(s, options).authorize_only();
}

}  // namespace cudabridge::host
