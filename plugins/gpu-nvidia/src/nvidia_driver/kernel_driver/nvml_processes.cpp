#include "nvidia_driver/kernel_driver/nvml_processes.hpp"

#include "common/errors/fail.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace cudabridge::nv {
namespace {

std::string process_name(unsigned int pid) {
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(comm, name);
    return name;
}

// When the process started, from /proc/PID/stat's starttime (clock ticks after boot, proc(5))
// and /proc/stat's btime; 0 when either is unreadable.
uint64_t process_start_unix_ns(unsigned int pid) {
    std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
    const size_t after_name = stat.rfind(')');  // the name may hold spaces and parentheses
    if (after_name == std::string::npos) return 0;
    std::istringstream fields(stat.substr(after_name + 1));
    std::string field;
    unsigned long long start_ticks = 0;
    for (int i = 3; i <= 22 && fields >> field; ++i)  // fields 3.. follow the name; 22 is starttime
        if (i == 22) start_ticks = std::strtoull(field.c_str(), nullptr, 10);
    std::ifstream system_stat("/proc/stat");
    unsigned long long boot_s = 0;
    for (std::string line; std::getline(system_stat, line);)
        if (line.rfind("btime ", 0) == 0) boot_s = std::strtoull(line.c_str() + 6, nullptr, 10);
    const long ticks = ::sysconf(_SC_CLK_TCK);
    if (start_ticks == 0 || boot_s == 0 || ticks <= 0) return 0;
    return (boot_s * 1'000'000'000ull) + start_ticks * (1'000'000'000ull / static_cast<unsigned long long>(ticks));
}

cb_gpu_process record_of(const nvml::nvmlProcessInfo_t& info) {
    cb_gpu_process p{};
    p.struct_size = sizeof p;
    p.pid = static_cast<int32_t>(info.pid);
    p.memory_used = info.usedGpuMemory == nvml::NVML_VALUE_NOT_AVAILABLE ? 0 : info.usedGpuMemory;
    p.start_unix_ns = process_start_unix_ns(info.pid);
    p.flags = CB_GPU_PROCESS_COMPUTE;
    const std::string name = process_name(info.pid);
    std::snprintf(p.name, sizeof p.name, "%s", name.c_str());
    return p;
}

}  // namespace

cb_status read_compute_processes(const nvml_library& nvml, int index, std::vector<cb_gpu_process>& out,
                                 std::string& error) {
    const auto list = nvml.api().nvmlDeviceGetComputeRunningProcesses;
    if (list == nullptr)
        return fail(error, CB_ERR_UNSUPPORTED, "this NVML has no nvmlDeviceGetComputeRunningProcesses");
    nvml::nvmlDevice_t dev = nullptr;
    if (cb_status s = nvml.device(static_cast<unsigned>(index), dev, &error); s != CB_OK) return s;
    // Asked with no room first, NVML says how many there are (or that there are none); the list
    // may grow before the next call, so ask again with the count it reports.
    std::vector<nvml::nvmlProcessInfo_t> infos;
    for (int attempt = 0; attempt < 4; ++attempt) {
        unsigned int count = static_cast<unsigned int>(infos.size());
        const nvml::nvmlReturn_t r = list(dev, &count, infos.data());
        if (r == nvml::NVML_ERROR_INSUFFICIENT_SIZE) {
            infos.resize(count + 8);
            continue;
        }
        if (cb_status s = nvml.check(r, "nvmlDeviceGetComputeRunningProcesses", &error); s != CB_OK) return s;
        out.clear();
        for (unsigned int i = 0; i < count && i < infos.size(); ++i) out.push_back(record_of(infos[i]));
        return CB_OK;
    }
    return fail(error, CB_ERR_BUSY, "nvmlDeviceGetComputeRunningProcesses: the list kept growing");
}

}  // namespace cudabridge::nv
