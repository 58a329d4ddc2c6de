// `history [-n N] [--device-id ID] [--kind K] [--severity S] [--since T]`: the event history
// (connections, safety actions, setting changes, plugin refusals), newest last.
#include "app.hpp"
#include "command_args.hpp"
#include "json_output.hpp"
#include "terminal_text.hpp"
#include "time_text.hpp"

#include <cudabridge/core/store.hpp>

#include <Poco/JSON/Parser.h>

#include <boost/program_options.hpp>

#include <chrono>
#include <iostream>
#include <mutex>

namespace cudabridge::cli {

namespace po = boost::program_options;

namespace {

const char* severity_names[] = {"info", "warning", "error", "critical"};

int severity_arg(const std::string& text) {
    for (int i = 0; i < 4; ++i)
        if (text == severity_names[i]) return i;
    if (text == "warn") return 1;
    throw usage_error("'" + text + "' is not a severity (info, warning, error, critical)");
}

const char* severity_name(int s) { return s >= 0 && s < 4 ? severity_names[s] : "unknown"; }

json_object event_json(const core::event_row& e) {
    auto o = make_object();
    o->set("id", e.id);
    o->set("time", format_utc_iso(e.time_ns));
    o->set("time_ns", e.time_ns);
    o->set("device", e.device);
    o->set("category", e.category);
    o->set("severity", std::string(severity_name(e.severity)));
    o->set("kind", e.kind);
    o->set("message", e.message);
    Poco::Dynamic::Var data;
    if (!e.data_json.empty()) {
        try {
            data = Poco::JSON::Parser().parse(e.data_json);
        } catch (const std::exception&) {
            data = e.data_json;
        }
    }
    o->set("data", data);
    return o;
}

int run_history(app& a, const std::vector<std::string>& args) {
    po::options_description d;
    d.add_options()("lines,n", po::value<std::string>()->default_value("50"), "")(
        "device-id", po::value<std::string>(), "")("kind", po::value<std::string>(), "")(
        "severity", po::value<std::string>(), "")("category", po::value<std::string>(), "")(
        "since", po::value<std::string>(), "");
    const po::variables_map vm = parse_options(args, d);
    core::event_query q;
    q.limit = count_arg(vm["lines"].as<std::string>(), "-n", 1, 1000000);
    if (vm.count("kind")) q.kind = vm["kind"].as<std::string>();
    if (vm.count("category")) q.category = vm["category"].as<std::string>();
    if (vm.count("severity")) q.min_severity = severity_arg(vm["severity"].as<std::string>());
    const int64_t now =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    if (vm.count("since")) {
        auto since = parse_since(vm["since"].as<std::string>(), now);
        if (!since)
            throw usage_error("--since '" + vm["since"].as<std::string>() +
                              "' is not a time (90s, 10m, 2h, 7d, a date, @SECONDS)");
        q.since_ns = *since;
    }
    auto& db = a.core(false).db();
    if (vm.count("device-id"))
        q.device = vm["device-id"].as<std::string>();
    else if (a.options().device) {
        // -d N: the N-th device in 'devices' order.
        const auto detected = host::detect(a.session());
        if (static_cast<size_t>(*a.options().device) >= detected.size())
            throw cli_error(exit_no_device, "no device " + std::to_string(*a.options().device) +
                                                " ('cudabridge-cli devices' lists them)");
        q.device = detected[*a.options().device].enclosure.id;
    }
    auto rows = core::query_events(db, q);
    if (a.options().json) {
        auto arr = make_array();
        for (auto it = rows.rbegin(); it != rows.rend(); ++it) arr->add(event_json(*it));
        auto o = make_object();
        o->set("events", arr);
        print_json(o);
        return exit_ok;
    }
    const bool color = a.color();
    for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
        const char* tint = !color ? "" : it->severity >= 2 ? "\033[31m" : it->severity == 1 ? "\033[33m" : "";
        std::cout << format_local_time(it->time_ns) << " " << tint << std::left;
        std::string sev = severity_name(it->severity);
        sev.resize(8, ' ');
        std::cout << sev << (*tint ? "\033[0m" : "") << " " << it->kind;
        if (!it->device.empty()) std::cout << " [" << it->device << "]";
        std::cout << " " << for_stdout(it->message) << "\n";
    }
    if (rows.empty()) std::cout << "No events match.\n";
    return exit_ok;
}

}  // namespace

command history_command() {
    return {"history",
            "",
            "the event history: connections, safety actions, setting changes",
            "history [-n N] [--device-id ID] [--kind K] [--severity S] [--category C] [--since T]",
            "The newest N events (default 50), oldest first. Filters:\n"
            "  --device-id ID  one device's events (or -d N: the N-th in 'devices' order)\n"
            "  --kind K        a kind and its sub-kinds: 'connect' matches connect.detect, ...;\n"
            "                  'safety', 'config', 'device', 'sim' likewise\n"
            "  --severity S    at least: info, warning, error, critical\n"
            "  --category C    EGPU, CLI, ...\n"
            "  --since T       90s, 10m, 2h, 7d, a local date or time, or @SECONDS\n"
            "Examples:\n"
            "  cudabridge-cli history --kind safety --since 1h\n"
            "  cudabridge-cli history --severity error --json",
            false,
            run_history};
}

}  // namespace cudabridge::cli
