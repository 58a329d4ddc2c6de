// `monitor [-i MS] [-c COUNT] [--csv]`: a live view of every connected eGPU, as nvidia-smi dmon
// and nvitop give it: temperature, power, fan, clocks, utilization, memory, P-state, PCIe link,
// error counters and throttle reasons, with a utilization sparkline. The telemetry of a simulated
// GPU is shared between processes, so work running in another program shows here.
#include "app.hpp"
#include "command_args.hpp"
#include "device_text.hpp"
#include "interruption.hpp"
#include "json_output.hpp"
#include "process_table.hpp"
#include "query/read_snapshot.hpp"
#include "time_text.hpp"

#include <cudabridge/core/error.hpp>

#include <boost/program_options.hpp>

#include <chrono>
#include <deque>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include <sys/ioctl.h>
#include <unistd.h>

namespace cudabridge::cli {

namespace po = boost::program_options;

namespace {

struct sample {
    int index = 0;
    std::string id, name;
    bool ok = true;
    std::string error;
    cb_gpu_telemetry t{};
    cb_link_status link{};
    query::gpu_snapshot events;             // link drops, recoveries and the newest event, any process's
    std::vector<cb_gpu_process> processes;  // the other processes using it, as nvitop lists them
};

sample take(host::session& session, host::device& d, int index) {
    sample s;
    s.index = index;
    s.id = d.id();
    s.name = d.properties().name;
    query::read_connection_events(session, d, s.events);
    d.supervise_once();  // a fresh look: a GPU that another process reset is opened again
    // Telemetry only: settings and limits do not change between samples.
    if (d.read_telemetry(s.t) != CB_OK) {
        s.ok = false;
        s.error = core::last_error();
        return s;
    }
    s.link = d.link_status();
    s.processes = other_processes(d);
    return s;
}

// nvitop's thresholds: below 10 % light load (green), from 75 % heavy (red), between (yellow).
const char* load_color(double percent) { return percent >= 75 ? "\033[31m" : percent >= 10 ? "\033[33m" : "\033[32m"; }

std::string tint(const std::string& text, const char* color, bool on) {
    return on ? std::string(color) + text + "\033[0m" : text;
}

std::string sparkline(const std::deque<double>& values) {
    static const char* bars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    std::string out;
    for (double v : values) out += bars[std::min(7, std::max(0, static_cast<int>(v / 100.0 * 7.999)))];
    return out;
}

json_object sample_json(const sample& s, int64_t time_ns) {
    auto o = make_object();
    o->set("time", format_utc_iso(time_ns));
    o->set("index", s.index);
    o->set("id", s.id);
    o->set("ok", s.ok);
    if (!s.ok) {
        o->set("error", s.error);
        return o;
    }
    const auto& t = s.t;
    o->set("temperature_c", t.temperature_c);
    o->set("power_w", t.power_w);
    o->set("power_limit_w", t.power_limit_w);
    o->set("fan_percent", t.fan_percent < 0 ? Poco::Dynamic::Var() : Poco::Dynamic::Var(t.fan_percent));
    o->set("sm_clock_mhz", t.sm_clock_mhz);
    o->set("memory_clock_mhz", t.memory_clock_mhz);
    o->set("gpu_utilization", t.gpu_utilization);
    o->set("memory_utilization", t.memory_utilization);
    o->set("memory_used", t.memory_used);
    o->set("memory_total", t.memory_total);
    o->set("performance_state", pstate_name(t.performance_state));
    o->set("pcie_link_gen", t.pcie_link_gen);
    o->set("pcie_link_width", t.pcie_link_width);
    o->set("link_crc_errors", s.link.crc_errors);
    o->set("link_replays", s.link.replays);
    o->set("link_drops", s.events.link_drops);
    o->set("recoveries", s.events.recoveries);
    o->set("ecc_corrected", t.ecc_corrected);
    o->set("ecc_uncorrected", t.ecc_uncorrected);
    o->set("xid_count", t.xid_count);
    auto reasons = make_array();
    for (const auto& r : throttle_names(t.throttle_reasons)) reasons->add(r);
    o->set("throttle_reasons", reasons);
    o->set("modeled", t.is_simulated != 0);
    o->set("processes", process_rows(s.processes));
    return o;
}

const char* csv_header =
    "time,index,id,temperature_c,power_w,power_limit_w,fan_percent,sm_clock_mhz,memory_clock_mhz,gpu_utilization,"
    "memory_utilization,memory_used,memory_total,performance_state,pcie_link_gen,pcie_link_width,link_crc_errors,"
    "link_replays,ecc_corrected,ecc_uncorrected,xid_count,throttle_reasons,modeled,link_drops,recoveries";

void print_csv(const sample& s, int64_t time_ns) {
    const auto& t = s.t;
    std::cout << format_utc_iso(time_ns) << "," << s.index << "," << s.id << ",";
    if (!s.ok) {
        std::cout << ",,,,,,,,,,,,,,,,,,,,,,\n";
        return;
    }
    std::cout << fixed(t.temperature_c, 1) << "," << fixed(t.power_w, 1) << "," << fixed(t.power_limit_w, 1) << ","
              << (t.fan_percent < 0 ? "" : fixed(t.fan_percent, 0)) << "," << t.sm_clock_mhz << ","
              << t.memory_clock_mhz << "," << fixed(t.gpu_utilization, 1) << "," << fixed(t.memory_utilization, 1)
              << "," << t.memory_used << "," << t.memory_total << "," << t.performance_state << "," << t.pcie_link_gen
              << "," << t.pcie_link_width << "," << s.link.crc_errors << "," << s.link.replays << "," << t.ecc_corrected
              << "," << t.ecc_uncorrected << "," << t.xid_count << "," << join(throttle_names(t.throttle_reasons), "|")
              << "," << (t.is_simulated ? 1 : 0) << "," << s.events.link_drops << "," << s.events.recoveries << "\n";
}

// One plain line per device (a pipe, a file): the same fields as the live view.
void print_line(const sample& s, int64_t time_ns) {
    std::cout << format_local_time(time_ns) << " gpu " << s.index;
    if (!s.ok) {
        std::cout << " unavailable: " << s.error << "\n";
        return;
    }
    const auto& t = s.t;
    std::cout << " temp " << fixed(t.temperature_c, 1) << " C, power " << fixed(t.power_w, 1) << "/"
              << fixed(t.power_limit_w, 0) << " W, fan " << (t.fan_percent < 0 ? "n/a" : fixed(t.fan_percent, 0) + " %")
              << ", clocks " << t.sm_clock_mhz << "/" << t.memory_clock_mhz << " MHz, util "
              << fixed(t.gpu_utilization, 0) << " %, mem " << bytes_text(t.memory_used) << "/"
              << bytes_text(t.memory_total) << ", " << pstate_name(t.performance_state) << ", PCIe gen"
              << t.pcie_link_gen << " x" << t.pcie_link_width << ", errors crc " << s.link.crc_errors << " replay "
              << s.link.replays << " drops " << s.events.link_drops << " ecc " << t.ecc_uncorrected << " xid "
              << t.xid_count << ", recoveries " << s.events.recoveries << ", throttle "
              << (t.throttle_reasons ? join(throttle_names(t.throttle_reasons), ",") : "none")
              << (t.is_simulated ? " (modeled)" : " (measured)") << "\n";
}

// One column of the live view: its heading, width, and how readily it goes when the terminal is
// narrow (a higher drop_rank goes first).
struct column {
    const char* heading;
    size_t width;
    int drop_rank;
};

const std::vector<column>& screen_columns() {
    static const std::vector<column> columns = {{"GPU", 4, 0},
                                                {"NAME", 26, 7},
                                                {"TEMP", 8, 0},
                                                {"POWER", 15, 1},
                                                {"FAN", 6, 9},
                                                {"SM/MEM MHz", 12, 8},
                                                {"UTIL", 7, 0},
                                                {"MEMORY", 22, 2},
                                                {"PSTATE", 7, 10},
                                                {"PCIE", 11, 6},
                                                {"LINK crc/rp/drop", 18, 3},
                                                {"XID/RECOV", 11, 4},
                                                {"THROTTLE", 12, 5}};
    return columns;
}

// Which columns fit `width` characters: the lowest-priority ones go first.
std::vector<bool> columns_that_fit(size_t width) {
    const auto& columns = screen_columns();
    std::vector<bool> shown(columns.size(), true);
    size_t total = 0;
    for (const auto& c : columns) total += c.width;
    while (total > width) {
        size_t worst = columns.size();
        for (size_t i = 0; i < columns.size(); ++i)
            if (shown[i] && columns[i].drop_rank > 0 &&
                (worst == columns.size() || columns[i].drop_rank > columns[worst].drop_rank))
                worst = i;
        if (worst == columns.size()) break;  // only the essential ones are left
        shown[worst] = false;
        total -= columns[worst].width;
    }
    return shown;
}

size_t terminal_width() {
    winsize w{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
    return 80;
}

// The cells of one device's row, in screen_columns() order, each with its colour (or none).
std::vector<std::pair<std::string, const char*>> row_cells(const sample& s) {
    const auto& t = s.t;
    const double mem_pct =
        t.memory_total ? 100.0 * static_cast<double>(t.memory_used) / static_cast<double>(t.memory_total) : 0;
    const double power_pct = t.power_limit_w > 0 ? 100.0 * t.power_w / t.power_limit_w : 0;
    const bool link_errors = s.link.crc_errors + s.link.replays + s.events.link_drops > 0;
    return {
        {std::to_string(s.index), nullptr},
        {s.name.size() > 24 ? s.name.substr(0, 24) : s.name, nullptr},
        {fixed(t.temperature_c, 0) + " C", t.temperature_c >= 85   ? "\033[31m"
                                           : t.temperature_c >= 70 ? "\033[33m"
                                                                   : nullptr},
        {fixed(t.power_w, 0) + "/" + fixed(t.power_limit_w, 0) + " W", load_color(power_pct)},
        {t.fan_percent < 0 ? "n/a" : fixed(t.fan_percent, 0) + "%", nullptr},
        {std::to_string(t.sm_clock_mhz) + "/" + std::to_string(t.memory_clock_mhz), nullptr},
        {fixed(t.gpu_utilization, 0) + "%", load_color(t.gpu_utilization)},
        {bytes_text(t.memory_used) + "/" + bytes_text(t.memory_total), load_color(mem_pct)},
        {pstate_name(t.performance_state), nullptr},
        {"gen" + std::to_string(t.pcie_link_gen) + " x" + std::to_string(t.pcie_link_width), nullptr},
        {std::to_string(s.link.crc_errors) + "/" + std::to_string(s.link.replays) + "/" +
             std::to_string(s.events.link_drops),
         link_errors ? "\033[31m" : nullptr},
        {std::to_string(t.xid_count) + "/" + std::to_string(s.events.recoveries),
         t.xid_count + s.events.recoveries ? "\033[33m" : nullptr},
        {t.throttle_reasons ? join(throttle_names(t.throttle_reasons), ",") : "none", nullptr},
    };
}

void print_screen(const std::vector<sample>& samples, const std::vector<std::deque<double>>& history, int64_t time_ns,
                  uint32_t interval_ms, bool color) {
    std::ostringstream out;
    out << "\033[H\033[2J";  // home, clear: one screen per refresh
    bool modeled = false;
    for (const auto& s : samples) modeled |= s.ok && s.t.is_simulated;
    out << "cudabridge-cli monitor   every " << interval_ms << " ms   " << format_local_time(time_ns) << "   ("
        << (modeled ? "figures modeled by the simulator" : "figures measured on hardware") << ")   Ctrl-C to quit\n\n";
    const auto& columns = screen_columns();
    const std::vector<bool> shown = columns_that_fit(terminal_width());
    auto cell = [&](const std::string& text, size_t width, const char* c) {
        std::string padded = text;
        if (padded.size() < width) padded.resize(width, ' ');
        out << (color && c ? tint(padded, c, true) : padded);
    };
    for (size_t i = 0; i < columns.size(); ++i)
        if (shown[i]) cell(columns[i].heading, columns[i].width, nullptr);
    out << "\n";
    for (size_t k = 0; k < samples.size(); ++k) {
        const auto& s = samples[k];
        if (!s.ok) {
            cell(std::to_string(s.index), columns[0].width, nullptr);
            out << tint("unavailable: " + s.error, "\033[31m", color) << "\n";
            continue;
        }
        const auto cells = row_cells(s);
        for (size_t i = 0; i < columns.size(); ++i)
            if (shown[i]) cell(cells[i].first, columns[i].width, cells[i].second);
        out << "\n    util " << (color ? load_color(s.t.gpu_utilization) : "") << sparkline(history[k])
            << (color ? "\033[0m" : "") << "\n";
        if (!s.events.last_event_kind.empty())
            out << "    last event " << format_local_time(s.events.last_event_ns) << " " << s.events.last_event_kind
                << ": " << s.events.last_event_message << "\n";
        // nvitop's process rows: who uses the GPU, with what memory and work queued.
        for (const cb_gpu_process& p : s.processes)
            out << "    pid " << std::left << std::setw(8) << p.pid << std::setw(3)
                << (p.flags & CB_GPU_PROCESS_COMPUTE ? "C" : "-") << std::setw(11) << bytes_text(p.memory_used)
                << "queued " << std::setw(6) << p.queued << p.name << std::right << "\n";
    }
    std::cout << out.str() << std::flush;
}

int run_monitor(app& a, const std::vector<std::string>& args) {
    po::options_description d;
    d.add_options()("interval,i", po::value<uint32_t>()->default_value(1000), "")("count,c", po::value<std::string>(),
                                                                                  "")("csv", "");
    const po::variables_map vm = parse_options(args, d);
    const uint32_t interval = vm["interval"].as<uint32_t>();
    if (interval < 50 || interval > 3600000) throw usage_error("-i must be between 50 and 3600000 ms");
    // No -c: until Ctrl-C.
    const uint64_t count = vm.count("count") ? count_arg(vm["count"].as<std::string>(), "-c", 1, UINT32_MAX) : 0;
    const bool json = a.options().json, csv = vm.count("csv") > 0;
    if (json && csv) throw usage_error("choose one of --json and --csv");

    a.read_only();
    auto& rt = a.runtime();
    const std::vector<int> which = a.device_indices();
    const bool live = !json && !csv && isatty(STDOUT_FILENO);
    const bool color = live && a.color();
    const interruption_scope ctrl_c;
    if (csv) std::cout << csv_header << "\n";
    std::vector<std::deque<double>> history(which.size());
    for (uint64_t n = 0; count == 0 || n < count; ++n) {
        const int64_t now = unix_now_ns();
        std::vector<sample> samples;
        for (size_t k = 0; k < which.size(); ++k) {
            samples.push_back(take(rt.current_session(), rt.device(which[k]), which[k]));
            history[k].push_back(samples.back().ok ? samples.back().t.gpu_utilization : 0);
            if (history[k].size() > 40) history[k].pop_front();
        }
        if (live) print_screen(samples, history, now, interval, color);
        for (const auto& s : samples) {
            if (json)
                print_json_line(sample_json(s, now));
            else if (csv)
                print_csv(s, now);
            else if (!live)
                print_line(s, now);
        }
        std::cout.flush();
        if (count != 0 && n + 1 >= count) break;
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(interval);
        while (!interruption_requested() && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(std::min<uint32_t>(interval, 20)));
        if (interruption_requested()) break;
    }
    return exit_ok;
}

}  // namespace

command monitor_command() {
    return {"monitor",
            "m",
            "live view of the eGPUs: temperature, power, clocks, load, errors",
            "monitor [-i MS] [-c COUNT] [--csv]",
            "Refreshes every -i MS (default 1000) until Ctrl-C, or -c COUNT times. Per device:\n"
            "temperature, power draw / limit, fan, SM and memory clocks, utilization, memory used /\n"
            "total, performance state, PCIe generation x width, link errors (CRC errors, replays and\n"
            "drops), Xid events and recoveries, throttle reasons, a utilization sparkline, the\n"
            "newest link or safety event, whichever process saw it, and a row per process using the\n"
            "device (pid, C when it computes, memory, commands queued, name), as nvitop shows them;\n"
            "--json gives them as \"processes\". On a narrow terminal the less\n"
            "important columns go first (P-state, fan, clocks, name, ...). Colours follow\n"
            "nvitop: green below 10 %, yellow to 75 %, red above (off with --no-color or NO_COLOR).\n"
            "On a terminal the table redraws in place; piped, it prints one plain line per device and\n"
            "sample. --json prints one JSON object per device and sample (JSON lines); --csv a header\n"
            "and numeric rows. The telemetry is the device's, so work running in other programs shows.\n"
            "Ctrl-C ends it cleanly (exit code 0).\n"
            "Examples:\n"
            "  cudabridge-cli monitor -i 500\n"
            "  cudabridge-cli monitor --json -c 10 > samples.jsonl\n"
            "  cudabridge-cli monitor --csv -i 200 -c 50",
            false,
            run_monitor};
}

}  // namespace cudabridge::cli
