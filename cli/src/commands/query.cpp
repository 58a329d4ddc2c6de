// `query --gpu=FIELD,... [--format=csv[,noheader][,nounits]|json] [-l SEC | -lms MS] [-c N]`:
// nvidia-smi's --query-gpu for the eGPUs, with its field names, units and CSV shape, plus link.*
// and safety.* fields of CudaBridge's own. `--help-query` lists the fields. Reading only: the
// device is read through the work gate, nothing is recorded.
#include "app.hpp"
#include "suggest.hpp"
#include "command_args.hpp"
#include "interruption.hpp"
#include "process_table.hpp"
#include "query/compute_apps.hpp"
#include "query/device_ids.hpp"
#include "query/read_snapshot.hpp"
#include "query/render.hpp"
#include "time_text.hpp"

#include <boost/program_options.hpp>

#include <chrono>
#include <functional>
#include <iostream>
#include <optional>
#include <thread>

namespace cudabridge::cli {

namespace po = boost::program_options;

namespace {

// nvidia-smi spells the millisecond loop "-lms"; Boost reads that as -l with the value "ms".
std::vector<std::string> with_long_loop_ms(const std::vector<std::string>& args) {
    std::vector<std::string> out;
    out.reserve(args.size());
    for (const auto& a : args) {
        if (a == "-lms")
            out.emplace_back("--loop-ms");
        else if (a.rfind("-lms=", 0) == 0)
            out.push_back("--loop-ms=" + a.substr(5));
        else
            out.push_back(a);
    }
    return out;
}

// Takes a reading now and, with an interval, again every interval_ms until `count` readings
// (0: until Ctrl-C). Ctrl-C ends it after a whole reading, with exit code 130.
int repeat_readings(uint64_t interval_ms, uint64_t count, const std::function<void(int64_t now)>& reading) {
    const interruption_scope ctrl_c;
    for (uint64_t n = 0; count == 0 || n < count; ++n) {
        reading(unix_now_ns());
        std::cout.flush();
        if (interruption_requested()) return exit_interrupted;
        if (count != 0 && n + 1 >= count) break;
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(interval_ms);
        while (!interruption_requested() && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(std::min<uint64_t>(interval_ms, 20)));
        if (interruption_requested()) return exit_interrupted;
    }
    return exit_ok;
}

// One JSON reading: {"time": ..., key: rows}; a looping query prints one per line.
void print_reading(int64_t now, const char* key, const json_array& rows, bool looping) {
    auto o = make_object();
    o->set("time", format_utc_iso(now));
    o->set(key, rows);
    if (looping)
        print_json_line(o);
    else
        print_json(o);
}

// The eGPUs a query reads: every one (or -d N's), or those -i / --id names, in its order.
std::vector<int> chosen_devices(app& a, const std::optional<std::string>& ids) {
    std::vector<int> which = a.device_indices();
    if (!ids) return which;
    auto& rt = a.runtime();
    const query::field& uuid = *query::find_field("uuid");
    const query::field& bus = *query::find_field("pci.bus_id");
    std::vector<query::device_identity> known;
    for (int i : which) {
        const auto s = query::read_snapshot(rt.current_session(), rt.device(i), i, rt.device_count(), 0);
        known.push_back({i, query::value_text(uuid, uuid.read(s), false), query::value_text(bus, bus.read(s), false)});
    }
    std::string unknown;
    which = query::pick_devices(*ids, known, unknown);
    if (which.empty())
        throw cli_error(exit_no_device,
                        "no eGPU has the id '" + unknown +
                            "' (an index, a UUID or a PCI bus id; 'cudabridge-cli query -L' lists them)");
    return which;
}

// --query-compute-apps: one line per process computing on each eGPU (none: the heading alone).
int run_compute_apps(app& a, const std::string& list, const query::output_format& format, uint64_t interval_ms,
                     uint64_t count, const std::optional<std::string>& ids) {
    if (query::has_empty_entry(list)) throw usage_error("an empty field name in '" + list + "'");
    std::string unknown;
    const auto fields = query::parse_compute_app_fields(list, unknown);
    if (!unknown.empty())
        throw usage_error("unknown field '" + unknown +
                          "' ('cudabridge-cli query --help-query-compute-apps' lists them)");
    if (fields.empty()) throw usage_error("--query-compute-apps names no field");
    a.read_only();
    auto& rt = a.runtime();
    const std::vector<int> which = chosen_devices(a, ids);
    if (!format.json && format.header) std::cout << query::compute_apps_heading(fields) << "\n" << std::flush;
    return repeat_readings(interval_ms, count, [&](int64_t now) {
        auto rows = make_array();
        for (int index : which) {
            auto& d = rt.device(index);
            const auto gpu = query::read_snapshot(rt.current_session(), d, index, static_cast<int>(which.size()), now);
            for (const cb_gpu_process& p : other_processes(d)) {
                if (!(p.flags & CB_GPU_PROCESS_COMPUTE)) continue;  // attached only: no compute context
                const query::compute_app app{&gpu, p};
                if (format.json)
                    rows->add(query::compute_app_json(fields, app));
                else
                    std::cout << query::compute_app_row(fields, app, format.units) << "\n";
            }
        }
        if (format.json) print_reading(now, "processes", rows, interval_ms != 0);
    });
}

// Every field's name and alias, for a typo's suggestion.
std::vector<std::string> field_names() {
    std::vector<std::string> names;
    for (const auto& f : query::all_fields()) {
        names.push_back(f.name);
        names.insert(names.end(), f.aliases.begin(), f.aliases.end());
    }
    return names;
}

// nvidia-smi -L: "GPU 0: NAME (UUID: GPU-...)", one line per eGPU.
int list_gpus(app& a, const std::optional<std::string>& ids) {
    a.read_only();
    auto& rt = a.runtime();
    const query::field& name = *query::find_field("name");
    const query::field& uuid = *query::find_field("uuid");
    for (int i : chosen_devices(a, ids)) {
        const auto s = query::read_snapshot(rt.current_session(), rt.device(i), i, rt.device_count(), 0);
        std::cout << "GPU " << i << ": " << query::value_text(name, name.read(s), false)
                  << " (UUID: " << query::value_text(uuid, uuid.read(s), false) << ")\n";
    }
    return exit_ok;
}

int run_query(app& a, const std::vector<std::string>& raw) {
    po::options_description d;
    d.add_options()("query-gpu", po::value<std::string>(), "")("format", po::value<std::string>(), "")(
        "loop,l", po::value<std::string>(), "")("loop-ms", po::value<std::string>(), "")(
        "count,c", po::value<std::string>(), "")("help-query", "")("help-query-gpu", "")(
        "query-compute-apps", po::value<std::string>(), "")("help-query-compute-apps", "")("list-gpus,L", "")(
        "id,i", po::value<std::string>(), "");
    const po::variables_map vm = parse_options(with_long_loop_ms(raw), d);

    if (vm.count("help-query") || vm.count("help-query-gpu")) {
        std::cout << query::help_query_text();
        return exit_ok;
    }
    if (vm.count("help-query-compute-apps")) {
        std::cout << query::help_compute_apps_text();
        return exit_ok;
    }
    if (vm.count("query-compute-apps") && (vm.count("query-gpu") || a.options().gpu))
        throw usage_error("choose one of --query-gpu and --query-compute-apps");

    std::string why;
    const auto format = query::parse_format(vm.count("format") ? vm["format"].as<std::string>()
                                            : a.options().json ? "json"
                                                               : "csv",
                                            why);
    if (!format) throw usage_error(why);
    if (a.options().json && !format->json) throw usage_error("--json and --format=csv: choose one");

    if (vm.count("loop") && vm.count("loop-ms")) throw usage_error("choose one of -l SEC and -lms MS");
    uint64_t interval_ms = 0;  // 0: one reading
    if (vm.count("loop")) interval_ms = 1000 * count_arg(vm["loop"].as<std::string>(), "-l", 1, 86400);
    if (vm.count("loop-ms")) interval_ms = count_arg(vm["loop-ms"].as<std::string>(), "-lms", 10, 86400000);
    // -c bounds a loop (and is 1 without one).
    const uint64_t count = vm.count("count") ? count_arg(vm["count"].as<std::string>(), "-c", 1, UINT32_MAX)
                           : interval_ms     ? 0
                                             : 1;

    std::optional<std::string> ids;
    if (vm.count("id")) ids = vm["id"].as<std::string>();
    if (ids && a.options().device) throw usage_error("choose one of -d N and -i ID");
    if (vm.count("list-gpus")) return list_gpus(a, ids);
    if (vm.count("query-compute-apps"))
        return run_compute_apps(a, vm["query-compute-apps"].as<std::string>(), *format, interval_ms, count, ids);

    // `--gpu=FIELDS` reaches the command as the global --gpu (the GPU family plugin's option):
    // here it is the field list, unless nvidia-smi's own --query-gpu gives that.
    std::optional<std::string> list;
    std::optional<app> own;  // an app without the global --gpu, when that was the field list
    if (vm.count("query-gpu")) {
        list = vm["query-gpu"].as<std::string>();
    } else if (a.options().gpu) {
        list = *a.options().gpu;
        global_options g = a.options();
        g.gpu.reset();
        own.emplace(g);
    }
    if (!list) throw usage_error("name the fields: --gpu=FIELD,FIELD,... ('query --help-query' lists them)");
    if (query::has_empty_entry(*list)) throw usage_error("an empty field name in '" + *list + "'");
    std::string unknown;
    const auto fields = query::parse_field_list(*list, unknown);
    if (!unknown.empty())
        throw usage_error(
            "unknown field '" + unknown + "'" + did_you_mean(unknown, field_names()) +
            " ('cudabridge-cli query --help-query' lists the fields" +
            (vm.count("query-gpu") ? std::string() : "; with a GPU family plugin, give the fields as --query-gpu=...") +
            ")");
    if (fields.empty()) throw usage_error("--gpu names no field ('query --help-query' lists them)");

    app& use = own ? *own : a;
    use.read_only();
    auto& rt = use.runtime();
    const std::vector<int> which = chosen_devices(use, ids);
    if (!format->json && format->header) std::cout << query::csv_heading(fields) << "\n" << std::flush;
    std::vector<bool> warned(which.size(), false);
    return repeat_readings(interval_ms, count, [&](int64_t now) {
        auto devices = make_array();
        for (size_t k = 0; k < which.size(); ++k) {
            const auto s = query::read_snapshot(rt.current_session(), rt.device(which[k]), which[k],
                                                static_cast<int>(which.size()), now);
            if (!s.telemetry && !warned[k]) {
                std::cerr << "cudabridge-cli query: GPU " << which[k] << " gives no telemetry (" << s.telemetry_error
                          << "); its readings show [N/A]\n";
                warned[k] = true;
            }
            if (format->json)
                devices->add(query::json_row(fields, s));
            else
                std::cout << query::csv_row(fields, s, format->units) << "\n";
        }
        if (format->json) print_reading(now, "devices", devices, interval_ms != 0);
    });
}

}  // namespace

command query_command() {
    return {"query",
            "",
            "query GPU fields as nvidia-smi --query-gpu does (CSV or JSON)",
            "query --gpu=FIELD[,FIELD...] [--format FORMAT] [-i ID] [-l SEC | -lms MS] [-c N] | query --help-query\n"
            "       query --query-compute-apps=FIELD[,...] [--format FORMAT] [-l SEC | -lms MS] [-c N]",
            "Prints the fields named, one line per connected eGPU (or the one -d N names), in\n"
            "nvidia-smi's CSV: the names and units are nvidia-smi's (\"120.50 W\", \"1024 MiB\", \"35 %\",\n"
            "[N/A] where a value is not available); link.* and safety.* fields are CudaBridge's own,\n"
            "for the Thunderbolt / USB4 link and the safety policy. --help-query lists every field,\n"
            "its unit, and whether it is modeled on a simulated GPU.\n"
            "  --gpu=FIELDS          the fields, comma-separated (also nvidia-smi's --query-gpu=FIELDS;\n"
            "                        give that form to choose a GPU family plugin with --gpu)\n"
            "  --format=FORMAT       csv (default), with noheader and/or nounits: csv,noheader,nounits;\n"
            "                        or json (also -j): numbers as numbers, null for [N/A]\n"
            "  -l, --loop SEC        read again every SEC seconds until Ctrl-C (exit code 130)\n"
            "  -lms, --loop-ms MS    read again every MS milliseconds\n"
            "  -c, --count N         stop after N readings\n"
            "  -i, --id ID[,ID...]   only these eGPUs, each named by index, UUID or PCI bus id, as\n"
            "                        nvidia-smi -i (exit code 3 when none has the id)\n"
            "  --help-query          list the fields (also nvidia-smi's --help-query-gpu)\n"
            "  -L, --list-gpus       one line per eGPU, as nvidia-smi -L: \"GPU 0: NAME (UUID: GPU-...)\"\n"
            "  --query-compute-apps=FIELDS  instead, one line per process computing on an eGPU, as\n"
            "                        nvidia-smi lists them: pid, process_name, used_gpu_memory [MiB],\n"
            "                        gpu_uuid, gpu_bus_id, gpu_name, gpu_serial, timestamp\n"
            "  --help-query-compute-apps  list those fields\n"
            "Reading only: nothing is recorded, and no connection is made (exit code 3 when no eGPU is\n"
            "connected).\n"
            "Examples:\n"
            "  cudabridge-cli query --gpu=name,temperature.gpu,power.draw,memory.used --format=csv\n"
            "  cudabridge-cli query --gpu=utilization.gpu,link.crc_errors --format=csv,noheader,nounits -lms 500\n"
            "  cudabridge-cli query --help-query\n"
            "  cudabridge-cli query --query-compute-apps=pid,process_name,used_memory --format=csv",
            false,
            run_query};
}

}  // namespace cudabridge::cli
