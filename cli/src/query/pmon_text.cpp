#include "query/pmon_text.hpp"

#include <cstdio>

namespace cudabridge::cli::query {

namespace {

constexpr const char* engines[] = {"sm", "mem", "enc", "dec", "jpg", "ofa"};

std::string cell(const std::string& text) {
    char b[32];
    std::snprintf(b, sizeof b, "%7s", text.c_str());
    return b;
}

// The per-process engine shares: the simulated GPU does not split its utilization by process.
std::string engine_cells(const pmon_columns& c) {
    std::string out;
    if (c.utilization)
        for (size_t i = 0; i < std::size(engines); ++i) out += cell("-");
    return out;
}

}  // namespace

std::vector<std::string> pmon_heading(const pmon_columns& c) {
    std::string names = "# gpu         pid   type", units = "# Idx           #    C/G";
    if (c.utilization)
        for (const char* e : engines) names += cell(e), units += cell("%");
    if (c.memory) names += cell("fb"), units += cell("MB");
    return {names + "    command", units + "    name"};
}

std::vector<std::string> pmon_lines(int gpu, const std::vector<cb_gpu_process>& processes, const pmon_columns& c) {
    std::vector<std::string> out;
    char b[64];
    for (const cb_gpu_process& p : processes) {
        std::snprintf(b, sizeof b, "%5d %11d %6s", gpu, p.pid, p.flags & CB_GPU_PROCESS_COMPUTE ? "C" : "-");
        std::string line = b + engine_cells(c);
        if (c.memory) line += cell(std::to_string(p.memory_used >> 20));
        out.push_back(line + "    " + p.name);
    }
    if (out.empty()) {
        std::snprintf(b, sizeof b, "%5d %11s %6s", gpu, "-", "-");
        std::string line = b + engine_cells(c);
        if (c.memory) line += cell("-");
        out.push_back(line + "    -");
    }
    return out;
}

}  // namespace cudabridge::cli::query
