// diag level 1: is the software in place and sane? Nothing here moves data to the GPU.
#include "diag/checks.hpp"

#include "device_text.hpp"

#include <cudabridge/core/parameters.hpp>
#include <cudabridge/core/paths.hpp>
#include <cudabridge/core/gpu_profiles.hpp>
#include <cudabridge/core/store.hpp>

#include <Poco/JSON/Parser.h>

#include <filesystem>
#include <mutex>
#include <utility>
#include <unistd.h>

namespace cudabridge::cli {

namespace fs = std::filesystem;

const char* verdict_name(verdict v) noexcept {
    switch (v) {
    case verdict::pass:
        return "PASS";
    case verdict::warn:
        return "WARN";
    default:
        return "FAIL";
    }
}

namespace {

void emit(diag_context& c, const std::string& test, verdict v, const std::string& reason,
          json_object details = nullptr) {
    c.report({1, test, v, reason, std::move(details)});
}

void check_plugins(diag_context& c) {
    auto& s = c.rt.current_session();
    auto& reg = s.context().plugins();
    size_t refused = 0;
    std::string refused_text;
    for (const auto& f : reg.files())
        if (!f.ok) {
            ++refused;
            refused_text += (refused_text.empty() ? "" : "; ") + f.path + ": " + f.reason;
        }
    auto d = make_object();
    d->set("libraries", reg.files().size());
    d->set("refused", refused);
    d->set("transport", s.transport_info().name + " " + core::version_string(s.transport_info().version));
    d->set("gpu", s.gpu_info().name + " " + core::version_string(s.gpu_info().version));
    d->set("safety", s.safety_info().name + " " + core::version_string(s.safety_info().version));
    if (refused)
        emit(c, "plugins", verdict::warn, std::to_string(refused) + " plugin file(s) refused: " + refused_text, d);
    else
        emit(c, "plugins", verdict::pass,
             std::to_string(reg.files().size()) + " libraries load; transport " + s.transport_info().name + ", gpu " +
                 s.gpu_info().name + ", safety " + s.safety_info().name,
             d);
}

void check_store(diag_context& c) {
    auto& s = c.rt.current_session();
    std::string answer;
    try {
        std::lock_guard lock(s.store_mutex());
        answer = s.db().integrity_check();
    } catch (const std::exception& e) {
        answer = e.what();
    }
    auto d = make_object();
    d->set("path", s.db().path().string());
    d->set("integrity_check", answer);
    if (answer == "ok")
        emit(c, "store_integrity", verdict::pass, "SQLite integrity_check: ok (" + s.db().path().string() + ")", d);
    else
        emit(c, "store_integrity", verdict::fail, "SQLite integrity_check: " + answer, d);
}

void check_driver(diag_context& c) {
    auto& s = c.rt.current_session();
    json_object drivers, backend;
    try {
        drivers = Poco::JSON::Parser().parse(s.gpu_control(R"({"op":"drivers"})")).extract<json_object>();
        backend = Poco::JSON::Parser().parse(s.transport_control(R"({"op":"backend"})")).extract<json_object>();
    } catch (const std::exception& e) {
        emit(c, "driver", verdict::warn, std::string("the plugins could not say which backends run: ") + e.what());
        return;
    }
    auto kd = drivers->getObject("kernel_driver");
    const bool available = kd && kd->optValue<bool>("available", false);
    const bool simulated_fabric = backend->optValue<bool>("simulated", true);
    auto d = make_object();
    d->set("kernel_driver", kd ? Poco::Dynamic::Var(kd) : Poco::Dynamic::Var());
    d->set("transport_backend", backend);
    const std::string why = kd ? kd->optValue<std::string>("reason", "") : std::string("not reported");
    if (available)
        emit(c, "driver", verdict::pass, "NVIDIA's driver is available (" + why + ")", d);
    else if (simulated_fabric)
        emit(c, "driver", verdict::pass,
             "NVIDIA's driver is not available here (" + why + "); the simulated fabric runs (" +
                 backend->optValue<std::string>("reason", "") + "), driven by the userspace driver",
             d);
    else
        emit(c, "driver", verdict::warn,
             "Thunderbolt hardware is present but NVIDIA's driver is not available (" + why +
                 "): a tunnelled GPU cannot be driven here",
             d);
}

bool writable_dir(const fs::path& p) {
    std::error_code ec;
    fs::create_directories(p, ec);
    return ::access(p.c_str(), W_OK | X_OK) == 0;
}

void check_permissions(diag_context& c) {
    auto& s = c.rt.current_session();
    const fs::path db_dir = s.db().path().parent_path();
    const fs::path logs = core::default_log_dir();
    std::vector<std::string> problems;
    if (!writable_dir(db_dir)) problems.push_back("the store's folder " + db_dir.string() + " is not writable");
    if (!writable_dir(logs)) problems.push_back(logs.string() + " is not writable (the file log sink)");
    if (!writable_dir(db_dir / "connections"))
        problems.push_back((db_dir / "connections").string() + " is not writable (connection state)");
    bool linux_backend = false;
    try {
        auto b = Poco::JSON::Parser().parse(s.transport_control(R"({"op":"backend"})")).extract<json_object>();
        linux_backend = !b->optValue<bool>("simulated", true);
    } catch (const std::exception&) {
    }
    const bool root = ::geteuid() == 0;
    auto d = make_object();
    d->set("root", root);
    d->set("store_folder", db_dir.string());
    if (!problems.empty()) {
        std::string text;
        for (const auto& p : problems) text += (text.empty() ? "" : "; ") + p;
        emit(c, "permissions", verdict::fail, text, d);
    } else if (linux_backend && !root) {
        emit(c, "permissions", verdict::warn,
             "not root: authorizing Thunderbolt devices and changing GPU settings on this machine need root", d);
    } else {
        emit(c, "permissions", verdict::pass,
             "the store, log and connection folders are writable" + std::string(root ? " (running as root)" : ""), d);
    }
}

void check_settings(diag_context& c) {
    auto& s = c.rt.current_session();
    std::vector<std::string> bad;
    {
        std::lock_guard lock(s.store_mutex());
        for (const auto& row : core::list_settings(s.db(), "global")) {
            auto p = core::find_parameter(s.db(), row.key);
            if (!p) continue;  // a setting of a plugin not loaded now
            if (auto why = core::check_parameter_value(*p, row.value)) bad.push_back(row.key + ": " + *why);
        }
    }
    const double interval = s.safety_number("heartbeat_interval_ms", 1000);
    const double timeout = s.safety_number("heartbeat_timeout_ms", 5000);
    if (timeout <= interval)
        bad.push_back("heartbeat_timeout_ms (" + fixed(timeout, 0) + ") is not above heartbeat_interval_ms (" +
                      fixed(interval, 0) + "): every beat would count as missed");
    if (c.device >= 0) {
        auto& d = c.rt.device(c.device);
        const double limit = s.safety_number("thermal_limit", 90);
        // The profile's shutdown temperature is where the board cuts power itself.
        try {
            std::optional<core::gpu_profile_row> row;
            {
                std::lock_guard lock(s.store_mutex());
                row = core::find_effective_gpu_profile(s.db(), d.properties().pci_device_id);
            }
            if (row) {
                auto p = Poco::JSON::Parser().parse(row->data).extract<json_object>();
                const double shutdown = p->optValue<double>("shutdown_temp_c", 0);
                if (shutdown > 0 && limit >= shutdown)
                    bad.push_back("the safety thermal_limit (" + fixed(limit, 0) +
                                  " C) is not below the board's shutdown "
                                  "temperature (" +
                                  fixed(shutdown, 0) + " C)");
            }
        } catch (const std::exception&) {
        }
    }
    if (bad.empty())
        emit(c, "settings", verdict::pass, "every stored setting is valid and consistent");
    else {
        std::string text;
        for (const auto& b : bad) text += (text.empty() ? "" : "; ") + b;
        emit(c, "settings", verdict::warn, text);
    }
}

void check_link_state(diag_context& c) {
    if (c.device < 0) {
        if (!c.unreachable.empty())
            emit(c, "connection", verdict::fail, c.unreachable);
        else
            emit(c, "connection", verdict::warn,
                 "no eGPU is connected: the level 2 and 3 tests need one ('cudabridge-cli connect')");
        return;
    }
    auto& d = c.rt.device(c.device);
    const auto& e = d.enclosure();
    const auto ls = d.link_status();
    auto det = make_object();
    det->set("state", std::string(host::state_name(d.state())));
    det->set("generation", std::string(generation_name(e.generation)));
    det->set("lanes", e.lanes);
    det->set("security_level", std::string(security_name(e.security_level)));
    det->set("link_up", ls.up != 0);
    if (!ls.up || d.state() != host::device_state::connected)
        emit(c, "connection", verdict::fail,
             std::string("the device is ") + host::state_name(d.state()) + (ls.up ? "" : " and its link is down"), det);
    else
        emit(c, "connection", verdict::pass,
             std::string("connected and authorized (security ") + security_name(e.security_level) + ") on " +
                 generation_name(e.generation) + ", " + std::to_string(e.lanes) + " lane(s)",
             det);
}

}  // namespace

void software_checks(diag_context& c) {
    check_plugins(c);
    check_store(c);
    check_driver(c);
    check_permissions(c);
    check_settings(c);
    check_link_state(c);
}

}  // namespace cudabridge::cli
