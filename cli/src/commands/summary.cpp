// `summary`, and `cudabridge-cli` without a command: nvidia-smi's summary table of the connected
// eGPUs and the processes using them. With none connected, the help instead (a first run says
// what the program does rather than that nothing is there). Reading only, as `query`.
#include "app.hpp"
#include "process_table.hpp"
#include "query/read_snapshot.hpp"
#include "query/summary_table.hpp"
#include "time_text.hpp"

#include <ctime>
#include <iostream>

#ifndef CB_VERSION_STRING
#define CB_VERSION_STRING "0.0.0"
#endif

namespace cudabridge::cli {

namespace {

// "Tue Dec  8 01:30:00 2026", as nvidia-smi heads its table.
std::string heading_time(int64_t unix_ns) {
    const std::time_t secs = static_cast<std::time_t>(unix_ns / 1000000000);
    std::tm tm{};
    localtime_r(&secs, &tm);
    char b[64];
    std::strftime(b, sizeof b, "%a %b %e %H:%M:%S %Y", &tm);
    return b;
}

int run_summary(app& a, const std::vector<std::string>& args) {
    if (!args.empty()) throw usage_error("summary takes no arguments");
    a.read_only();
    auto& rt = a.runtime();
    if (rt.device_count() == 0 && !a.options().device) return app::find_command("help")->run(a, {});
    const int64_t now = unix_now_ns();
    std::vector<query::summary_gpu> gpus;
    for (int i : a.device_indices()) {
        auto& d = rt.device(i);
        gpus.push_back({query::read_snapshot(rt.current_session(), d, i, rt.device_count(), now), other_processes(d)});
    }
    std::cout << query::summary_table(gpus, CB_VERSION_STRING, heading_time(now));
    return exit_ok;
}

}  // namespace

command summary_command() {
    return {"summary",
            "",
            "nvidia-smi's summary table of the eGPUs and their processes (also: no command at all)",
            "summary",
            "Prints the table nvidia-smi prints without arguments: per eGPU its index, name, bus id,\n"
            "fan, temperature, performance state, power draw and limit, memory used and total, GPU\n"
            "utilization and compute mode, then the processes using the eGPUs with their memory. The\n"
            "heading says whether the figures are measured or modeled (a simulated eGPU). Without a\n"
            "command, cudabridge-cli prints this table when an eGPU is connected, and its help when\n"
            "none is. Reading only: nothing is recorded.\n"
            "Examples:\n  cudabridge-cli\n  cudabridge-cli summary -d 0",
            false,
            run_summary};
}

}  // namespace cudabridge::cli
