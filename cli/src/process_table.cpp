#include "process_table.hpp"

#include "time_text.hpp"

#include <unistd.h>

#include <cstring>
#include <iomanip>

namespace cudabridge::cli {

std::vector<cb_gpu_process> other_processes(const host::device& d) {
    std::vector<cb_gpu_process> all, others;
    if (d.read_processes(all) != CB_OK) return others;
    for (const cb_gpu_process& p : all)
        if (p.pid != static_cast<int32_t>(getpid())) others.push_back(p);
    return others;
}

json_array process_rows(const std::vector<cb_gpu_process>& processes) {
    auto rows = make_array();
    for (const cb_gpu_process& p : processes) {
        auto row = make_object();
        row->set("pid", p.pid);
        row->set("name", std::string(p.name, strnlen(p.name, sizeof p.name)));
        row->set("type", std::string(p.flags & CB_GPU_PROCESS_COMPUTE ? "C" : "-"));
        row->set("used_memory_bytes", p.memory_used);
        row->set("queued_commands", p.queued);
        row->set("started", format_local_time(static_cast<int64_t>(p.start_unix_ns)));
        rows->add(row);
    }
    return rows;
}

void print_process_table(std::ostream& out, const json_array& rows) {
    constexpr uint64_t mib = 1ull << 20;
    out << "Processes\n";
    if (rows->size() == 0) out << "    None\n";
    for (size_t i = 0; i < rows->size(); ++i) {
        const auto row = rows->getObject(static_cast<unsigned>(i));
        const auto line = [&](const char* label, const std::string& value) {
            out << "        " << std::left << std::setw(30) << label << ": " << value << "\n";
        };
        out << "    " << std::left << std::setw(34) << "Process ID"
            << ": " << row->getValue<int32_t>("pid") << "\n";
        line("Type", row->getValue<std::string>("type"));
        line("Name", row->getValue<std::string>("name"));
        line("Used GPU Memory", std::to_string(row->getValue<uint64_t>("used_memory_bytes") / mib) + " MiB");
        line("Queued Commands", std::to_string(row->getValue<uint32_t>("queued_commands")));
        line("Started", row->getValue<std::string>("started"));
    }
}

}  // namespace cudabridge::cli
