#include "query/summary_table.hpp"

#include "query/fields.hpp"

#include <cmath>
#include <cstdio>

namespace cudabridge::cli::query {

namespace {

constexpr uint64_t mib = 1024ull * 1024ull;
const std::string gpu_rule =
    "+-----------------------------------------+------------------------+----------------------+\n";
const std::string wide_rule =
    "+-----------------------------------------------------------------------------------------+\n";

// `left` and `right` in `width` characters, the gap between them filled with spaces; `left`
// shortened with "..." when both do not fit.
std::string spread(std::string left, const std::string& right, size_t width) {
    if (left.size() + right.size() + 1 > width && width > right.size() + 4)
        left = left.substr(0, width - right.size() - 4) + "...";
    const size_t gap = width > left.size() + right.size() ? width - left.size() - right.size() : 1;
    return left + std::string(gap, ' ') + right;
}

std::string format(const char* f, auto... values) {
    char b[160];
    std::snprintf(b, sizeof b, f, values...);
    return b;
}

std::string gpu_row(const std::string& a, const std::string& b, const std::string& c) {
    return "|" + a + " |" + b + " |" + c + " |\n";
}

std::string gpu_block(const gpu_snapshot& s) {
    const auto* t = s.telemetry ? &*s.telemetry : nullptr;
    const std::string fan = t && t->fan_percent >= 0 ? format("%3d%%", int(std::lround(t->fan_percent))) : " N/A";
    const std::string temp = t ? format("%3dC", int(std::lround(t->temperature_c))) : " N/A";
    const std::string perf =
        t && t->performance_state >= 0 ? format("%6s", ("P" + std::to_string(t->performance_state)).c_str()) : "   N/A";
    const std::string power =
        t ? format("%dW / %4dW", int(std::lround(t->power_w)), int(std::lround(t->power_limit_w))) : "N/A / N/A";
    const uint64_t total = t && t->memory_total ? t->memory_total : s.total_memory;
    const std::string memory = t ? format("%lluMiB / %6lluMiB", static_cast<unsigned long long>(t->memory_used / mib),
                                          static_cast<unsigned long long>(total / mib))
                                 : format("N/A / %6lluMiB", static_cast<unsigned long long>(total / mib));
    const std::string util = t ? format("%7d%%", int(std::lround(t->gpu_utilization))) : "    N/A";
    const std::string ecc = t ? std::to_string(t->ecc_uncorrected) : "N/A";
    return gpu_row(spread(format("%4d  ", s.index) + s.name, "On", 40),
                   spread("   " + nvidia_smi_bus_id(s.pci_bus_id), "Off", 23), spread("", ecc, 21)) +
           gpu_row(spread(fan + "  " + temp + perf, power, 40), spread("", memory, 23), spread(util, "Default", 21)) +
           gpu_row(std::string(40, ' '), std::string(23, ' '), spread("", "N/A", 21));
}

std::string process_block(const std::vector<summary_gpu>& gpus) {
    std::string out = "\n" + wide_rule;
    out += "| Processes:                                                                              |\n";
    out += "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n";
    out += "|        ID   ID                                                               Usage      |\n";
    out += "|=========================================================================================|\n";
    bool any = false;
    for (const auto& g : gpus)
        for (const cb_gpu_process& p : g.processes) {
            any = true;
            const char* type = p.flags & CB_GPU_PROCESS_COMPUTE ? "C" : "-";
            const std::string left = format("  %4d   N/A  N/A  %14d  %5s   ", g.reading.index, p.pid, type) + p.name;
            out += "|" + spread(left, format("%lluMiB", static_cast<unsigned long long>(p.memory_used / mib)), 88) +
                   " |\n";
        }
    if (!any) out += "|  No running processes found                                                             |\n";
    return out + wide_rule;
}

}  // namespace

std::string summary_table(const std::vector<summary_gpu>& gpus, const std::string& version,
                          const std::string& time_text) {
    bool modeled = false;
    for (const auto& g : gpus) modeled = modeled || g.reading.simulated;
    std::string out = time_text + "\n" + wide_rule;
    out += "|" +
           spread(" CudaBridge " + version + "     Figures: " + (modeled ? "modeled (simulated eGPU)" : "measured"),
                  "CUDA Version: 13.0     ", 89) +
           "|\n";
    out += gpu_rule;
    out += "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n";
    out += "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n";
    out += "|                                         |                        |               MIG M. |\n";
    out += "|=========================================+========================+======================|\n";
    for (size_t i = 0; i < gpus.size(); ++i) {
        out += gpu_block(gpus[i].reading);
        out += i + 1 < gpus.size()
                   ? "+-----------------------------------------+------------------------+----------------------+\n"
                   : gpu_rule;
    }
    return out + process_block(gpus);
}

}  // namespace cudabridge::cli::query
