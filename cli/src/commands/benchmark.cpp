// `benchmark [--quick] [--max-size SIZE] [--plot FILE.png]`: copies by size (pageable and pinned,
// each direction), launch latency, elementwise GB/s and matrix-product GFLOP/s on the eGPU, each
// figure device-timed (modeled on a simulated GPU) beside the wall clock (measured here), stored
// in the database with the machine and backend.
#include "app.hpp"
#include "command_args.hpp"
#include "benchmark/plot.hpp"

#include <filesystem>
#include "benchmark/runner.hpp"
#include "device_text.hpp"
#include "interruption.hpp"
#include "json_output.hpp"
#include "text_table.hpp"

#include <cudabridge/core/store.hpp>

#include <boost/program_options.hpp>

#include <fstream>
#include <exception>
#include <iostream>
#include <mutex>
#include <unistd.h>

namespace cudabridge::cli {

namespace po = boost::program_options;

namespace {

uint64_t size_arg(const std::string& text) {
    size_t pos = 0;
    unsigned long long v = 0;
    try {
        v = std::stoull(text, &pos);
    } catch (const std::exception&) {
        throw usage_error("'" + text + "' is not a size (4K, 64M, 1G)");
    }
    const std::string unit = text.substr(pos);
    uint64_t mult = 1;
    if (unit == "K" || unit == "KiB" || unit == "k")
        mult = 1ull << 10;
    else if (unit == "M" || unit == "MiB" || unit == "m")
        mult = 1ull << 20;
    else if (unit == "G" || unit == "GiB" || unit == "g")
        mult = 1ull << 30;
    else if (!unit.empty())
        throw usage_error("'" + text + "' is not a size (4K, 64M, 1G)");
    return v * mult;
}

std::string machine_text() {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    std::ifstream cpu("/proc/cpuinfo");
    std::string line, model = "unknown CPU";
    while (std::getline(cpu, line))
        if (line.rfind("model name", 0) == 0) {
            model = line.substr(line.find(':') + 2);
            break;
        }
    return std::string(host) + " (" + model + ", " + std::to_string(::sysconf(_SC_NPROCESSORS_ONLN)) + " CPUs)";
}

std::string size_label(const bench_figure& f) {
    if (f.group == "transfer") return bytes_text(f.size);
    if (f.group == "matmul") return std::to_string(f.size) + "x" + std::to_string(f.size);
    if (f.group == "elementwise") return std::to_string(f.size) + " elements";
    return "";
}

void progress_bar(size_t done, size_t total, const std::string& what) {
    const int width = 30;
    const int filled = total ? static_cast<int>(width * done / total) : width;
    std::string what_text = what.substr(0, 28);
    what_text.resize(28, ' ');
    std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << done << "/" << total
              << " " << what_text << std::flush;
    if (done >= total) std::cerr << "\r" << std::string(80, ' ') << "\r" << std::flush;
}

json_object figure_json(const bench_figure& f) {
    auto o = make_object();
    o->set("group", f.group);
    o->set("name", f.name);
    o->set("size", f.size);
    o->set("unit", f.unit);
    o->set("device", f.device);
    o->set("wall", f.wall);
    o->set("repetitions", f.repetitions);
    o->set("verified", f.verified);
    return o;
}

size_t store_figures(host::session& s, const std::vector<bench_figure>& figures, const cbDeviceProp& prop,
                     const std::string& machine) {
    std::lock_guard lock(s.store_mutex());
    size_t n = 0;
    for (const auto& f : figures) {
        auto data = figure_json(f);
        data->set("gpu", std::string(prop.name));
        data->set("backend", std::string(prop.isSimulated ? "simulated" : "hardware"));
        data->set("link", std::string(prop.linkName));
        data->set("machine", machine);
        for (int wall = 0; wall < 2; ++wall) {
            data->set("clock", std::string(wall ? "wall" : "device"));
            std::ostringstream text;
            data->stringify(text);
            core::benchmark_row row;
            row.name = "cli.benchmark." + f.group;
            row.metric = f.name + "@" + std::to_string(f.size) + (wall ? ".wall" : ".device");
            row.unit = f.unit;
            row.value = wall ? f.wall : f.device;
            row.modeled = !wall && prop.isSimulated;  // the wall clock is always measured
            row.data_json = text.str();
            core::add_benchmark(s.db(), row);
            ++n;
        }
    }
    return n;
}

// The plot's folder must exist and be writable before the sweep runs, not after.
void check_plot_path(const std::string& file) {
    const std::filesystem::path parent = std::filesystem::path(file).parent_path();
    const std::filesystem::path folder = parent.empty() ? std::filesystem::path(".") : parent;
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec) || ::access(folder.c_str(), W_OK) != 0)
        throw usage_error("--plot " + file + ": the folder " + folder.string() + " does not exist or is not writable");
}

int run_benchmark(app& a, const std::vector<std::string>& args) {
    po::options_description d;
    d.add_options()("quick", "")("max-size", po::value<std::string>(), "")("plot", po::value<std::string>(), "");
    const po::variables_map vm = parse_options(args, d);
    bench_options o;
    if (vm.count("quick")) {
        o.max_bytes = 4ull << 20;
        o.bytes_per_figure = 16ull << 20;
        o.elementwise_elements = 1 << 20;
        o.matmul_n = 256;
        o.launches = 50;
    }
    if (vm.count("max-size")) {
        o.max_bytes = size_arg(vm["max-size"].as<std::string>());
        if (o.max_bytes < o.min_bytes || o.max_bytes > (4ull << 30))
            throw usage_error("--max-size must be between 4K and 4G");
    }
    if (vm.count("plot")) check_plot_path(vm["plot"].as<std::string>());
    const int index = a.device_index();
    auto& rt = a.runtime();
    host::check(rt.set_device(index));
    cbDeviceProp prop{};
    host::check(rt.get_properties(&prop, index));
    const bool json = a.options().json;
    const bool bar = !json && isatty(STDERR_FILENO);
    // Ctrl-C stops the sweep between two figures: what was measured is shown and stored, and
    // the exit code is 130.
    const interruption_scope ctrl_c;
    if (!json)
        std::cout << "Benchmark of " << prop.name << " on " << prop.linkName << " ("
                  << (prop.isSimulated ? "simulated GPU: device figures are modeled, wall figures are measured on this "
                                         "machine's simulator"
                                       : "hardware: every figure is measured")
                  << ")\n"
                  << std::flush;
    // A step that fails ends the sweep: the figures measured before it are still shown, stored and
    // plotted, and the message names the step.
    std::vector<bench_figure> figures;
    std::string step_now;
    std::exception_ptr failure;
    try {
        run_benchmarks(rt, o, figures, [&](size_t done, size_t total, const std::string& what) {
            if (interruption_requested()) return false;
            step_now = what;
            if (bar) progress_bar(done, total, what);
            return true;
        });
    } catch (...) {
        failure = std::current_exception();
    }
    const bool interrupted = interruption_requested();
    if ((interrupted || failure) && bar) std::cerr << "\n";
    const std::string machine = machine_text();
    const size_t stored = store_figures(rt.current_session(), figures, prop, machine);
    if (vm.count("plot") && !interrupted)
        plot_bandwidth(figures, vm["plot"].as<std::string>(),
                       std::string("CudaBridge copy bandwidth: ") + prop.name + " on " + prop.linkName,
                       prop.isSimulated != 0);
    bool all_verified = true;
    for (const auto& f : figures) all_verified &= f.verified;
    if (json) {
        auto out = make_object();
        out->set("device", std::string(prop.name));
        out->set("link", std::string(prop.linkName));
        out->set("simulated", prop.isSimulated != 0);
        out->set("device_clock", std::string(prop.isSimulated ? "modeled" : "measured"));
        out->set("wall_clock", std::string("measured"));
        out->set("machine", machine);
        auto arr = make_array();
        for (const auto& f : figures) arr->add(figure_json(f));
        out->set("figures", arr);
        out->set("stored_rows", stored);
        out->set("interrupted", interrupted);
        if (vm.count("plot") && !interrupted) out->set("plot", vm["plot"].as<std::string>());
        print_json(out);
    } else {
        const std::string device_col = prop.isSimulated ? "DEVICE (modeled)" : "DEVICE (measured)";
        text_table t({"TEST", "SIZE", device_col, "WALL (measured)", "UNIT", "REPS", "CHECK"});
        for (const auto& f : figures)
            t.add({f.group == "transfer" ? f.name : f.group + " " + f.name, size_label(f), fixed(f.device, 3),
                   fixed(f.wall, 3), f.unit, std::to_string(f.repetitions), f.verified ? "ok" : "FAILED"});
        t.print(std::cout);
        std::cout << stored << " figures stored (machine " << machine << ")";
        if (vm.count("plot") && !interrupted) std::cout << "; plot written to " << vm["plot"].as<std::string>();
        std::cout << "\n";
    }
    if (failure) {
        std::cerr << "cudabridge-cli benchmark: the step '" << step_now << "' failed; the " << figures.size()
                  << " figures measured before it are shown" << (stored ? " and stored" : "") << " above\n";
        std::rethrow_exception(failure);
    }
    if (interrupted)
        throw cli_error(exit_interrupted,
                        "interrupted by Ctrl-C after " + std::to_string(figures.size()) + " figures (shown above)");
    if (!all_verified) throw cli_error(exit_error, "some results came back wrong (CHECK column)");
    return exit_ok;
}

}  // namespace

command benchmark_command() {
    return {"benchmark",
            "b",
            "transfer, launch, elementwise and matmul benchmarks",
            "benchmark [--quick] [--max-size SIZE] [--plot FILE.png]",
            "Copy bandwidth from 4 KiB up to --max-size (default 1G) in steps of 4x: host-to-device and\n"
            "device-to-host from pageable and from pinned memory, and device-to-device; kernel launch\n"
            "latency; elementwise add bandwidth (16M float32); float32 matrix product (1024x1024).\n"
            "Each figure is timed by the device's events (the GPU's timer on hardware, the simulator's\n"
            "modeled clock on a simulated GPU) and by this machine's wall clock, and checked. Results\n"
            "are stored in the database with the machine and the backend. A progress bar shows on a\n"
            "terminal. Ctrl-C stops between two figures: those measured are shown and stored, and\n"
            "the exit code is 130.\n"
            "  --quick          up to 4 MiB, smaller kernels (a few seconds)\n"
            "  --max-size SIZE  largest transfer: 64M, 1G, ...\n"
            "  --plot FILE.png  draw bandwidth against size with gnuplot\n"
            "Examples:\n"
            "  cudabridge-cli benchmark\n"
            "  cudabridge-cli benchmark --quick --json\n"
            "  cudabridge-cli benchmark --max-size 256M --plot bandwidth.png",
            false,
            run_benchmark};
}

}  // namespace cudabridge::cli
