// `pmon [-s u|m|um] [--delay SEC] [-c N]`: nvidia-smi pmon's scrolling per-process table for the
// eGPUs: a line per process using each eGPU every interval, with its type and, with -s m, the
// device memory it holds. Reading only, as `query`.
#include "app.hpp"
#include "command_args.hpp"
#include "interruption.hpp"
#include "process_table.hpp"
#include "query/pmon_text.hpp"

#include <boost/program_options.hpp>

#include <chrono>
#include <iostream>
#include <thread>

namespace cudabridge::cli {

namespace po = boost::program_options;

namespace {

query::pmon_columns parse_columns(const std::string& text) {
    query::pmon_columns c{false, false};
    for (char letter : text) {
        if (letter == 'u')
            c.utilization = true;
        else if (letter == 'm')
            c.memory = true;
        else
            throw usage_error(std::string("-s: unknown metric group '") + letter + "' (u: utilization, m: memory)");
    }
    if (text.empty()) throw usage_error("-s names no metric group (u, m or um)");
    return c;
}

int run_pmon(app& a, const std::vector<std::string>& raw) {
    po::options_description d;
    d.add_options()("select,s", po::value<std::string>(), "")("delay", po::value<std::string>(), "")(
        "count,c", po::value<std::string>(), "");
    const po::variables_map vm = parse_options(raw, d);
    const query::pmon_columns columns =
        vm.count("select") ? parse_columns(vm["select"].as<std::string>()) : query::pmon_columns{};
    const uint64_t delay_s = vm.count("delay") ? count_arg(vm["delay"].as<std::string>(), "--delay", 1, 10) : 1;
    const uint64_t count = vm.count("count") ? count_arg(vm["count"].as<std::string>(), "-c", 1, UINT32_MAX) : 0;
    a.read_only();
    auto& rt = a.runtime();
    const std::vector<int> which = a.device_indices();
    for (const auto& line : query::pmon_heading(columns)) std::cout << line << "\n";
    const interruption_scope ctrl_c;
    for (uint64_t n = 0; count == 0 || n < count; ++n) {
        for (int i : which)
            for (const auto& line : query::pmon_lines(i, other_processes(rt.device(i)), columns))
                std::cout << line << "\n";
        std::cout.flush();
        if (count != 0 && n + 1 >= count) break;
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(delay_s);
        while (!interruption_requested() && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (interruption_requested()) return exit_interrupted;
    }
    return exit_ok;
}

}  // namespace

command pmon_command() {
    return {"pmon",
            "",
            "nvidia-smi pmon's per-process table of the eGPUs, scrolling",
            "pmon [-s u|m|um] [--delay SEC] [-c N]",
            "Prints, every --delay seconds (1 by default, 1 to 10; nvidia-smi's -d, which here picks a\n"
            "device), a line per process using each eGPU, as\n"
            "nvidia-smi pmon does: GPU index, pid, type (C: it computes), the engines' shares (sm mem enc\n"
            "dec jpg ofa, \"-\": the simulated GPU does not split its utilization by process) and, with\n"
            "-s m, the device memory the process holds (fb, MB). A GPU no process uses gets a line of\n"
            "dashes. -c N stops after N samples; Ctrl-C ends it (exit code 130). Reading only.\n"
            "Examples:\n  cudabridge-cli pmon -c 5\n  cudabridge-cli pmon -s um --delay 2",
            false,
            run_pmon};
}

}  // namespace cudabridge::cli
