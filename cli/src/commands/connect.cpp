// `connect [DEVICE|auto] [--enroll]` and `disconnect [--force] [--timeout MS]`: the six-step
// connection sequence and the safe disconnect, each step shown as it completes.
#include "app.hpp"
#include "command_args.hpp"
#include "device_text.hpp"
#include "process_table.hpp"
#include "json_output.hpp"

#include <boost/program_options.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <unistd.h>
#include <iomanip>
#include <iostream>

namespace cudabridge::cli {

namespace po = boost::program_options;

namespace {

std::string ms_text(uint64_t ns) { return fixed(static_cast<double>(ns) / 1e6, 1) + " ms"; }

json_array steps_json(const std::vector<host::step_record>& steps) {
    auto arr = make_array();
    for (const auto& s : steps) {
        auto o = make_object();
        o->set("name", s.name);
        o->set("ok", s.ok);
        o->set("duration_ms", static_cast<double>(s.duration_ns) / 1e6);
        o->set("detail", s.detail);
        arr->add(o);
    }
    return arr;
}

void print_step(const host::step_record& s, size_t number, size_t of, bool color) {
    const char* mark = s.ok ? (color ? "\033[32m ok \033[0m" : " ok ") : (color ? "\033[31mFAIL\033[0m" : "FAIL");
    std::cout << "  [" << number;
    if (of) std::cout << "/" << of;
    std::cout << "] " << std::left << std::setw(14) << s.name << mark << " " << std::right << std::setw(9)
              << ms_text(s.duration_ns) << "  " << s.detail << "\n"
              << std::flush;
}

json_object device_summary(host::device& d) {
    auto o = make_object();
    o->set("id", d.id());
    o->set("name", d.name());
    o->set("gpu", std::string(d.properties().name));
    o->set("pci_bus_id", d.function_id());
    o->set("state", std::string(host::state_name(d.state())));
    o->set("session_id", d.session_id());
    o->set("simulated", d.properties().is_simulated != 0);
    // The link's usable bandwidth, as `info` gives it (the compatibility step's figure is the
    // PCIe tunnel's nominal rate, which the GPU profile's minimum is stated in).
    const cb_link_status l = d.link_status();
    o->set("h2d_bandwidth_gbs", l.h2d_bandwidth_gbs);
    o->set("d2h_bandwidth_gbs", l.d2h_bandwidth_gbs);
    o->set("bandwidth", std::string(l.is_simulated ? "modeled" : "measured"));
    return o;
}

bool matches(host::device& d, const std::string& want, int index) {
    return want.empty() || want == "auto" || want == d.id() || want == d.name() || want == std::to_string(index);
}

// connect's and authorize's arguments: [DEVICE|auto] [--enroll] [--policy auto|manual].
host::connect_options connection_options(const std::vector<std::string>& args) {
    po::options_description opts;
    opts.add_options()("enroll", "secure domains: enroll the device (store a new key) on its first connection")(
        "policy", po::value<std::string>(), "")("device", po::value<std::string>()->default_value("auto"), "");
    po::positional_options_description pos;
    pos.add("device", 1);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    host::connect_options o;
    const std::string want = vm["device"].as<std::string>();
    if (want.empty()) throw usage_error("an empty device name: give an index, an id, a name or 'auto'");
    o.device = want == "auto" ? "" : want;
    o.enroll = vm.count("enroll") > 0;
    if (vm.count("policy")) {
        o.policy = vm["policy"].as<std::string>();
        if (o.policy != "auto" && o.policy != "manual")
            throw usage_error("--policy must be auto (connect when seen) or manual, not '" + o.policy + "'");
    }
    return o;
}

// --json's answer when a step failed: {"<done_key>": false, "failed_step", "error", "steps"}.
void print_failure(const char* done_key, const host::connect_error& e) {
    auto r = make_object();
    r->set(done_key, false);
    r->set("failed_step", e.step());
    r->set("error", std::string(e.what()));
    r->set("steps", steps_json(e.steps()));
    print_json(r);
}

int run_connect(app& a, const std::vector<std::string>& args) {
    host::connect_options o = connection_options(args);
    const std::string want = o.device.empty() ? "auto" : o.device;

    auto& rt = a.runtime();
    for (int i = 0; i < rt.device_count(); ++i) {
        auto& d = rt.device(i);
        if (!matches(d, want, i)) continue;
        if (a.options().json) {
            auto r = make_object();
            r->set("connected", true);
            r->set("already_connected", true);
            r->set("device", device_summary(d));
            r->set("steps", make_array());
            print_json(r);
        } else {
            std::cout << "Already connected: " << d.properties().name << " in " << d.name() << " (" << d.id()
                      << "), session " << d.session_id() << "\n";
        }
        return exit_ok;
    }

    const bool json = a.options().json, color = a.color();
    size_t n = 0;
    if (!json) {
        std::cout << "Connecting " << (o.device.empty() ? "the first usable eGPU" : "eGPU '" + o.device + "'")
                  << " (transport " << rt.current_session().transport_info().name << ")\n";
        o.on_step = [&](const host::step_record& s) { print_step(s, ++n, 6, color); };
    }
    std::unique_ptr<host::device> dev;
    try {
        dev = host::connect(rt.current_session(), o);
    } catch (const host::connect_error& e) {
        if (json) print_failure("connected", e);
        throw;
    }
    if (json) {
        auto r = make_object();
        r->set("connected", true);
        r->set("already_connected", false);
        r->set("device", device_summary(*dev));
        r->set("steps", steps_json(dev->connect_steps()));
        print_json(r);
    } else {
        uint64_t total = 0;
        for (const auto& s : dev->connect_steps()) total += s.duration_ns;
        const auto& e = dev->enclosure();
        const cb_link_status l = dev->link_status();
        std::cout << "Connected: " << dev->properties().name << " in " << dev->name() << " ("
                  << generation_name(e.generation) << ", " << e.lanes << " x " << fixed(e.lane_speed_gbps, 0)
                  << " Gb/s), session " << dev->session_id() << ", " << ms_text(total) << "\n"
                  << "Usable bandwidth: " << fixed(l.h2d_bandwidth_gbs, 2) << " GB/s host-to-device, "
                  << fixed(l.d2h_bandwidth_gbs, 2) << " GB/s device-to-host ("
                  << (l.is_simulated ? "modeled" : "measured") << ", as 'cudabridge-cli info' shows it)\n"
                  << "The connection stays up for other programs; 'cudabridge-cli disconnect' ends it.\n";
    }
    rt.adopt(std::move(dev));
    return exit_ok;
}

// boltctl authorize: the enclosure authorized (its PCIe tunnel allowed), the GPU not brought up.
int run_authorize(app& a, const std::vector<std::string>& args) {
    host::connect_options o = connection_options(args);
    const bool json = a.options().json, color = a.color();
    size_t n = 0;
    if (!json) o.on_step = [&](const host::step_record& s) { print_step(s, ++n, 3, color); };
    std::vector<host::step_record> steps;
    try {
        steps = host::authorize(a.session(), o);
    } catch (const host::connect_error& e) {
        if (json) print_failure("authorized", e);
        throw;
    }
    if (json) {
        auto r = make_object();
        r->set("authorized", true);
        r->set("steps", steps_json(steps));
        print_json(r);
    } else {
        std::cout << "Authorized: the PCIe tunnel may come up; the GPU is not initialized ('cudabridge-cli connect'"
                     " brings it up).\n";
    }
    return exit_ok;
}

int run_disconnect(app& a, const std::vector<std::string>& args) {
    po::options_description opts;
    // Read signed: Boost reads "-1" into an unsigned as 4294967295 without a word.
    opts.add_options()("timeout", po::value<int64_t>()->default_value(10000), "drain timeout in ms");
    const po::variables_map vm = parse_options(args, opts);
    const int64_t timeout_ms = vm["timeout"].as<int64_t>();
    if (timeout_ms < 0 || timeout_ms > 3600000)
        throw usage_error("--timeout must be 0 to 3600000 ms, not " + std::to_string(timeout_ms));
    // --force is the emergency exit: it also reaches a GPU that no longer answers.
    if (a.options().force) a.reset_unanswering_gpus();
    auto& d = a.device();
    host::disconnect_options o;
    o.force = a.options().force;
    o.drain_timeout_ms = static_cast<uint32_t>(timeout_ms);
    const bool json = a.options().json, color = a.color();
    const std::string id = d.id(), name = d.name();
    const int64_t session_id = d.session_id();
    if (!json)
        std::cout << (o.force ? "Force-disconnecting " : "Disconnecting ") << name << " (" << id << "), session "
                  << session_id << (o.force ? ": pending work is aborted" : ": draining pending work") << "\n";
    // On a terminal, a line that counts the seconds while the drain waits for queued work.
    std::atomic<bool> done{false};
    std::thread ticker;
    if (!json && isatty(STDOUT_FILENO)) {
        ticker = std::thread([&] {
            const auto t0 = std::chrono::steady_clock::now();
            while (!done.load()) {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                if (s >= 0.3 && !done.load())
                    std::cout << "\r  draining ... " << fixed(s, 1) << " s (up to "
                              << fixed(o.drain_timeout_ms / 1000.0, 0) << " s)" << std::flush;
            }
        });
    }
    host::disconnect_report report;
    try {
        report = d.disconnect(o);
    } catch (...) {
        done.store(true);
        if (ticker.joinable()) ticker.join();
        throw;
    }
    done.store(true);
    if (ticker.joinable()) {
        ticker.join();
        std::cout << "\r" << std::string(60, ' ') << "\r";
    }
    if (json) {
        auto r = make_object();
        r->set("disconnected", !report.refused);
        r->set("refused", report.refused);
        r->set("id", id);
        r->set("session_id", session_id);
        r->set("forced", o.force);
        r->set("drained", report.drained);
        r->set("steps", steps_json(report.steps));
        r->set("processes", process_rows(report.others));
        print_json(r);
        return report.refused ? exit_refused : exit_ok;
    }
    size_t n = 0;
    for (const auto& s : report.steps) print_step(s, ++n, report.steps.size(), color);
    if (!report.others.empty()) {
        std::cout << (report.refused ? "Other processes using the eGPU:\n"
                                     : "Other processes were using the eGPU; their next call reports it lost:\n");
        print_process_table(std::cout, process_rows(report.others));
    }
    if (report.refused) {
        std::cout << "Not disconnected: another process still has work queued on the eGPU. Let it finish, "
                     "or 'cudabridge-cli disconnect --force' to abort its work.\n";
        return exit_refused;
    }
    std::cout << "Disconnected" << (report.drained ? "" : " (the drain timed out: what was left was aborted)")
              << ". It is safe to unplug the cable.\n";
    return exit_ok;
}

}  // namespace

command connect_command() {
    return {"connect",
            "c",
            "connect an eGPU: detect, check, authorize, tunnel, initialise, monitor",
            "connect [DEVICE|auto] [--enroll] [--policy auto|manual]",
            "Runs the six steps of the connection sequence, each shown as it completes with its time:\n"
            "detect, compatibility (the safety policy's verdict), authorization (per the domain's\n"
            "security level), tunnel (the PCIe link), gpu_init (the model profile applied) and\n"
            "monitoring (the safety supervisor). A failure names the step and undoes the ones before.\n"
            "DEVICE is an enclosure's unique id, its name, or its index in 'devices' order; auto (the\n"
            "default) takes the first usable eGPU. The connection stays up after the command, for\n"
            "other programs to attach to.\n"
            "  --enroll   in a secure domain, store a new key for the device (first connection)\n"
            "  --policy auto|manual  the policy stored for the device, as boltctl enroll --policy\n"
            "             (an enrolment stores auto unless told otherwise)\n"
            "Exit codes: 3 no eGPU found, 5 refused by the safety policy or authorization.\n"
            "Examples:\n"
            "  cudabridge-cli connect\n"
            "  cudabridge-cli connect --enroll 0\n"
            "  cudabridge-cli --json connect",
            false,
            run_connect};
}

command authorize_command() {
    return {"authorize",
            "",
            "authorize an enclosure without bringing its GPU up (boltctl authorize)",
            "authorize [DEVICE|auto] [--enroll] [--policy auto|manual]",
            "Runs the first steps of 'connect' only: detect, compatibility (the safety policy's\n"
            "verdict) and authorization (per the domain's security level; --enroll and --policy as\n"
            "connect takes them). The authorization stays; the PCIe tunnel and the GPU are left for\n"
            "'connect'. A device already connected is left as it is.\n"
            "Exit codes: 3 no eGPU found, 5 refused by the safety policy or authorization.\n"
            "Examples:\n  cudabridge-cli authorize\n  cudabridge-cli authorize --enroll 1",
            false,
            run_authorize};
}

command disconnect_command() {
    return {"disconnect",
            "dc",
            "safely disconnect the eGPU (or --force)",
            "disconnect [--force] [--timeout MS]",
            "Refuses new work, drains what is queued (up to --timeout ms, default 10000), frees the\n"
            "device's memory, stops monitoring and closes the tunnel. Every program attached to the\n"
            "device sees it as lost on its next call, and the command lists them first (PID, name,\n"
            "device memory, queued commands). When another process still has work queued after\n"
            "--timeout ms, it refuses (exit 5) and changes nothing; --force (-f) aborts pending\n"
            "work, this process's and the others', instead of waiting for it.\n"
            "Examples:\n"
            "  cudabridge-cli disconnect\n"
            "  cudabridge-cli disconnect --force",
            false,
            run_disconnect};
}

}  // namespace cudabridge::cli
