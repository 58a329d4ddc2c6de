// `status`: the connection and its health, per connected eGPU: state, temperature, power, link
// error rate, heartbeat age, recoveries this session, pending work, the session.
#include "app.hpp"
#include "device_report.hpp"

#include <iostream>
#include <optional>

namespace cudabridge::cli {

namespace {

// The GPU's readings; when the device refuses work (an emergency stop, a failed mark), what the
// supervisor's last sample knows instead, and why it refused: status shows the state it is
// refused for, never nothing.
gpu_readings readings_or_last_sample(host::device& d, std::optional<cli_error>& refused) {
    try {
        return read_gpu(d);
    } catch (const cli_error& e) {
        refused = e;
        gpu_readings r;
        const auto h = d.health();
        r.telemetry.struct_size = sizeof r.telemetry;
        r.telemetry.temperature_c = h.sample.temperature_c;
        r.telemetry.power_w = h.sample.power_w;
        r.telemetry.power_limit_w = h.sample.power_limit_w;
        r.telemetry.ecc_uncorrected = h.sample.ecc_uncorrected;
        r.telemetry.last_xid = h.sample.last_xid;
        return r;
    }
}

int run_status(app& a, const std::vector<std::string>& args) {
    if (!args.empty()) throw usage_error("status takes no arguments");
    a.read_only();
    auto& rt = a.runtime();
    const int n = rt.device_count();
    if (n == 0) {
        const std::string unreachable = a.unreachable_egpu();
        if (a.options().json) {
            auto o = make_object();
            o->set("connected", false);
            o->set("unreachable", !unreachable.empty());
            o->set("devices", make_array());
            o->set("reason", unreachable.empty() ? rt.startup_error() : unreachable);
            print_json(o);
        } else if (!unreachable.empty()) {
            std::cout << "State: unreachable (" << unreachable << ")\n";
        } else {
            std::cout << "State: disconnected (no eGPU is connected; 'cudabridge-cli connect' connects one)\n";
        }
        return unreachable.empty() ? exit_no_device : exit_device_lost;
    }
    const std::vector<int> which = a.device_indices();
    auto devices = make_array();
    int code = exit_ok;
    for (int i : which) {
        auto& d = rt.device(i);
        d.supervise_once();  // a fresh heartbeat and health sample, not a stale one
        std::optional<cli_error> refused;
        const auto sections = status_sections(rt.current_session(), d, readings_or_last_sample(d, refused));
        if (refused) code = refused->code();
        if (a.options().json) {
            auto o = make_object();
            o->set("index", i);
            o->set("id", d.id());
            for (const auto& name : sections->getNames()) o->set(name, sections->getObject(name));
            if (refused) o->set("refused", std::string(refused->what()));
            devices->add(o);
        } else {
            if (i != which.front()) std::cout << "\n";
            std::cout << "GPU " << i << ": " << d.properties().name << "\n";
            if (refused) std::cout << "Refused: " << refused->what() << " (figures from the last health sample)\n";
            print_sections(std::cout, sections);
        }
    }
    if (a.options().json) {
        auto o = make_object();
        o->set("connected", true);
        o->set("devices", devices);
        print_json(o);
    }
    return code;
}

}  // namespace

command status_command() {
    return {"status",
            "s",
            "show the connection state and health indicators",
            "status",
            "For each connected eGPU (or the one -d N names): the connection state, temperature,\n"
            "power, the link's error rate against the policy's threshold, heartbeat age, recoveries\n"
            "and warnings this session, pending work, and the session. Exit code 3 when no eGPU is\n"
            "connected, 5 when the device refuses work (an emergency stop, a failed mark); the output\n"
            "still says so, with the last health sample's figures.\n"
            "Examples:\n"
            "  cudabridge-cli status\n"
            "  cudabridge-cli status --json",
            false,
            run_status};
}

}  // namespace cudabridge::cli
