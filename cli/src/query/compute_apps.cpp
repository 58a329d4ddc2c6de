#include "query/compute_apps.hpp"

#include "query/fields.hpp"

#include <cstring>
#include <sstream>

namespace cudabridge::cli::query {
namespace {

constexpr uint64_t mib = 1ull << 20;

std::string process_name(const cb_gpu_process& p) { return std::string(p.name, strnlen(p.name, sizeof p.name)); }

// The value as text, or nullopt-like "" for a field this reading does not have (prints [N/A]).
std::string text_of(const compute_app_field& f, const compute_app& a, bool units) {
    const gpu_snapshot& g = *a.gpu;
    if (f.name == "timestamp") return nvidia_smi_timestamp(g.time_ns);
    if (f.name == "gpu_name") return g.name;
    if (f.name == "gpu_bus_id") return nvidia_smi_bus_id(g.pci_bus_id);
    if (f.name == "gpu_uuid") return g.uuid;
    if (f.name == "pid") return std::to_string(a.process.pid);
    if (f.name == "process_name") return process_name(a.process);
    if (f.name == "used_gpu_memory") return std::to_string(a.process.memory_used / mib) + (units ? " MiB" : "");
    return "[N/A]";  // gpu_serial: a board serial the simulator does not model
}

}  // namespace

const std::vector<compute_app_field>& compute_app_fields() {
    static const std::vector<compute_app_field> fields = {
        {"timestamp", {}, "", "The time of the reading, as nvidia-smi prints it."},
        {"gpu_name", {}, "", "The product name of the GPU the process uses."},
        {"gpu_bus_id", {}, "", "The PCI bus id of that GPU."},
        {"gpu_serial", {}, "", "The board serial number ([N/A] on a simulated GPU)."},
        {"gpu_uuid", {}, "", "The GPU's UUID."},
        {"pid", {}, "", "The process id."},
        {"process_name", {"name"}, "", "The process name (/proc/PID/comm)."},
        {"used_gpu_memory", {"used_memory"}, "MiB", "Device memory the process has allocated."},
    };
    return fields;
}

std::vector<const compute_app_field*> parse_compute_app_fields(std::string_view list, std::string& unknown) {
    std::vector<const compute_app_field*> out;
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        std::string_view name = list.substr(start, comma - start);
        start = comma + 1;
        while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
        while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
        if (name.empty()) continue;
        const compute_app_field* found = nullptr;
        for (const auto& f : compute_app_fields()) {
            if (f.name == name) found = &f;
            for (const auto& alias : f.aliases)
                if (alias == name) found = &f;
        }
        if (!found) {
            unknown = std::string(name);
            return {};
        }
        out.push_back(found);
    }
    return out;
}

std::string compute_apps_heading(const std::vector<const compute_app_field*>& fields) {
    std::string out;
    for (const auto* f : fields)
        out += (out.empty() ? "" : ", ") + f->name + (f->unit.empty() ? "" : " [" + f->unit + "]");
    return out;
}

std::string compute_app_row(const std::vector<const compute_app_field*>& fields, const compute_app& app, bool units) {
    std::string out;
    for (const auto* f : fields) out += (out.empty() ? "" : ", ") + text_of(*f, app, units);
    return out;
}

json_object compute_app_json(const std::vector<const compute_app_field*>& fields, const compute_app& app) {
    auto values = make_object();
    for (const auto* f : fields) {
        if (f->name == "pid")
            values->set(f->name, app.process.pid);
        else if (f->name == "used_gpu_memory")
            values->set(f->name, app.process.memory_used / mib);
        else if (f->name == "gpu_serial")
            values->set(f->name, Poco::Dynamic::Var());
        else
            values->set(f->name, text_of(*f, app, false));
    }
    auto o = make_object();
    o->set("index", app.gpu->index);
    o->set("values", values);
    return o;
}

std::string help_compute_apps_text() {
    std::ostringstream out;
    out << "Fields of --query-compute-apps (one line per process computing on an eGPU):\n";
    for (const auto& f : compute_app_fields()) {
        out << "  " << f.name;
        for (const auto& a : f.aliases) out << " (or " << a << ")";
        out << (f.unit.empty() ? "" : " [" + f.unit + "]") << "\n      " << f.description << "\n";
    }
    return out.str();
}

}  // namespace cudabridge::cli::query
