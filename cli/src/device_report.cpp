#include "device_report.hpp"

#include "device_text.hpp"
#include "exit_codes.hpp"
#include "time_text.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/gpu_profiles.hpp>
#include <cudabridge/core/store.hpp>

#include <Poco/JSON/Parser.h>
#include <boost/algorithm/string/split.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <map>
#include <mutex>

namespace cudabridge::cli {

namespace {

host::device::ticket enter_or_throw(host::device& d) {
    host::device::ticket t;
    const cb_status st = d.enter(t);
    // A device a safety policy marked failed refuses work: the policy refused it (exit 5), it is
    // not lost.
    if (st != CB_OK)
        throw cli_error(exit_code_for(st) == exit_error || d.held_by_safety_policy() ? exit_refused : exit_code_for(st),
                        core::last_error());
    return t;
}

double number_or(const json_object& o, const char* key, double fallback) {
    return o && o->has(key) ? o->getValue<double>(key) : fallback;
}

// "max_sm_mhz" -> "Max SM (MHz)": acronyms in capitals, a trailing unit in parentheses.
std::string label(const std::string& key) {
    static const std::map<std::string, std::string> words = {
        {"uuid", "UUID"}, {"sm", "SM"},       {"pci", "PCI"}, {"pcie", "PCIe"},          {"gpu", "GPU"},
        {"id", "ID"},     {"iommu", "IOMMU"}, {"dma", "DMA"}, {"h2d", "host-to-device"}, {"d2h", "device-to-host"}};
    static const std::map<std::string, std::string> units = {{"mhz", "MHz"},     {"w", "W"},       {"c", "C"},
                                                             {"gbps", "Gb/s"},   {"gbs", "GB/s"},  {"ms", "ms"},
                                                             {"bytes", "bytes"}, {"bits", "bits"}, {"percent", "%"}};
    std::vector<std::string> tokens;
    boost::split(tokens, key, [](char c) { return c == '_'; });
    std::string unit;
    if (tokens.size() > 1 && units.count(tokens.back())) {
        unit = units.at(tokens.back());
        tokens.pop_back();
    }
    std::string out;
    for (const auto& t : tokens) {
        auto it = words.find(t);
        out += (out.empty() ? "" : " ") + (it != words.end() ? it->second : t);
    }
    if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
    return unit.empty() ? out : out + " (" + unit + ")";
}

// A range in JSON: numbers, {"min": .., "max": ..}; "210-2991" in text.
json_object range_object(uint32_t min, uint32_t max) {
    auto o = make_object();
    o->set("min", min);
    o->set("max", max);
    return o;
}

std::string value_text(const Poco::Dynamic::Var& v) {
    if (v.isEmpty()) return "n/a";
    if (v.type() == typeid(Poco::JSON::Object::Ptr)) {
        auto o = v.extract<Poco::JSON::Object::Ptr>();
        if (o->has("min") && o->has("max")) return value_text(o->get("min")) + "-" + value_text(o->get("max"));
    }
    if (v.isBoolean()) return v.extract<bool>() ? "yes" : "no";
    if (v.type() == typeid(Poco::JSON::Array::Ptr)) {
        auto a = v.extract<Poco::JSON::Array::Ptr>();
        std::string out;
        for (size_t i = 0; i < a->size(); ++i) out += (i ? ", " : "") + value_text(a->get(static_cast<unsigned>(i)));
        return out.empty() ? "none" : out;
    }
    if (v.type() == typeid(double)) {
        // Whole numbers plainly, small rates with their significant digits, the rest to 0.01.
        const double d = v.extract<double>();
        if (d == std::floor(d) && std::fabs(d) < 1e15) return fixed(d, 0);
        if (d != 0 && std::fabs(d) < 0.1) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.3g", d);
            return buf;
        }
        return fixed(d, 2);
    }
    return v.convert<std::string>();
}

// Device memory as nvidia-smi shows it: whole MiB.
std::string mib_text(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

gpu_readings read_gpu(host::device& d) {
    gpu_readings r;
    auto t = enter_or_throw(d);
    r.telemetry.struct_size = sizeof r.telemetry;
    r.settings.struct_size = sizeof r.settings;
    r.limits.struct_size = sizeof r.limits;
    const auto* g = d.gpu();
    cb_status st = g->get_telemetry(d.gpu_instance(), t.handle(), &r.telemetry);
    if (st != CB_OK) throw cli_error(exit_code_for(st), "cannot read the GPU's telemetry: " + core::last_error());
    if (g->get_settings(d.gpu_instance(), t.handle(), &r.settings) != CB_OK) r.settings = {};
    r.have_limits = g->get_setting_limits(d.gpu_instance(), t.handle(), &r.limits) == CB_OK;
    return r;
}

cb_status apply_gpu_settings(host::device& d, const cb_gpu_settings& s, std::string& why) {
    host::device::ticket t;
    cb_status st = d.enter(t);
    if (st == CB_OK) st = d.gpu()->apply_settings(d.gpu_instance(), t.handle(), &s);
    if (st != CB_OK) why = core::last_error();
    return st;
}

json_object stored_profile(host::session& s, uint16_t pci_device_id) {
    std::optional<core::gpu_profile_row> row;
    {
        std::lock_guard lock(s.store_mutex());
        row = core::find_effective_gpu_profile(s.db(), pci_device_id);
    }
    if (!row) return nullptr;
    try {
        return Poco::JSON::Parser().parse(row->data).extract<json_object>();
    } catch (const std::exception&) {
        return nullptr;
    }
}

const std::vector<std::string>& info_section_names() {
    static const std::vector<std::string> names = {"product", "pci",         "memory", "clocks",
                                                   "power",   "temperature", "link",   "backend"};
    return names;
}

json_object info_sections(host::session& s, host::device& d, const gpu_readings& r) {
    const auto& p = d.properties();
    const auto& t = r.telemetry;
    const auto& e = d.enclosure();
    const auto profile = stored_profile(s, p.pci_device_id);
    const bool sim = p.is_simulated != 0;

    auto product = make_object();
    product->set("name", std::string(p.name));
    product->set("architecture", std::string(p.architecture));
    product->set("uuid", std::string(p.uuid));
    product->set("compute_capability", std::to_string(p.compute_major) + "." + std::to_string(p.compute_minor));
    product->set("sm_count", p.sm_count);
    product->set("memory_bus_width_bits", p.memory_bus_width);
    product->set("profile", profile ? profile->optValue<std::string>("key", "") : std::string("none"));

    auto pci = make_object();
    pci->set("bus_id", std::string(p.pci_bus_id));
    pci->set("vendor_id", hex16(p.pci_vendor_id));
    pci->set("device_id", hex16(p.pci_device_id));
    pci->set("subsystem_id", hex16(p.pci_subsystem_id));
    // The GPU's own link, as read at the enclosure's downstream port (the host's tunnel bridge
    // reports a fixed 2.5 GT/s x1 that says nothing).
    pci->set("pcie_link_generation", t.pcie_link_gen);
    pci->set("pcie_link_width", t.pcie_link_width);

    auto memory = make_object();
    memory->set("total_bytes", t.memory_total ? t.memory_total : p.total_memory);
    memory->set("used_bytes", t.memory_used);
    memory->set("free_bytes", (t.memory_total ? t.memory_total : p.total_memory) - t.memory_used);

    auto clocks = make_object();
    clocks->set("sm_mhz", t.sm_clock_mhz);
    clocks->set("memory_mhz", t.memory_clock_mhz);
    clocks->set("max_sm_mhz", p.clock_mhz);
    clocks->set("max_memory_mhz", p.memory_clock_mhz);
    if (r.have_limits) {
        clocks->set("settable_sm_mhz", range_object(r.limits.min_sm_clock_mhz, r.limits.max_sm_clock_mhz));
        clocks->set("settable_memory_mhz", range_object(r.limits.min_memory_clock_mhz, r.limits.max_memory_clock_mhz));
    }
    clocks->set("locked", r.settings.sm_clock_mhz != 0);

    auto power = make_object();
    power->set("draw_w", t.power_w);
    power->set("limit_w", t.power_limit_w);
    if (r.have_limits) {
        power->set("default_limit_w", r.limits.default_power_w);
        power->set("min_limit_w", r.limits.min_power_w);
        power->set("max_limit_w", r.limits.max_power_w);
    }
    power->set("performance_state", pstate_name(t.performance_state));

    auto temperature = make_object();
    temperature->set("gpu_c", t.temperature_c);
    temperature->set("slowdown_c", number_or(profile, "slowdown_temp_c", 0));
    temperature->set("shutdown_c", number_or(profile, "shutdown_temp_c", 0));
    temperature->set("max_operating_c", number_or(profile, "max_operating_temp_c", 0));
    const double limit = s.safety_number("thermal_limit", 0);
    temperature->set("safety_limit_c", limit);
    if (t.fan_percent >= 0) temperature->set("fan_percent", t.fan_percent);

    const auto ls = d.link_status();
    auto link = make_object();
    link->set("enclosure", std::string(e.name));
    link->set("enclosure_id", std::string(e.id));
    link->set("vendor", std::string(e.vendor_name));
    link->set("generation", std::string(generation_name(e.generation)));
    link->set("lanes", e.lanes);
    link->set("lane_speed_gbps", e.lane_speed_gbps);
    link->set("speed_gbps", e.lane_speed_gbps * e.lanes);
    link->set("h2d_bandwidth_gbs", ls.h2d_bandwidth_gbs);
    link->set("d2h_bandwidth_gbs", ls.d2h_bandwidth_gbs);
    link->set("bandwidth", std::string(provenance(ls.is_simulated != 0)));
    link->set("security_level", std::string(security_name(e.security_level)));
    link->set("authorization", std::string(authorization_name(e.authorized)));
    link->set("iommu_dma_protection", e.iommu_dma_protection != 0);
    link->set("up", ls.up != 0);

    auto backend = make_object();
    backend->set("gpu_backend", std::string(p.backend));
    backend->set("gpu_plugin", s.gpu_info().name);
    backend->set("transport_plugin", s.transport_info().name);
    backend->set("simulated", sim);
    backend->set("figures", std::string(sim ? "modeled by the simulator" : "measured on hardware"));
    try {
        auto tb = Poco::JSON::Parser().parse(s.transport_control(R"({"op":"backend"})")).extract<json_object>();
        backend->set("transport_backend",
                     std::string(tb->optValue<bool>("simulated", false) ? "simulated fabric" : "linux sysfs"));
        backend->set("transport_reason", tb->optValue<std::string>("reason", ""));
    } catch (const std::exception&) {
    }
    try {
        auto dr = Poco::JSON::Parser().parse(s.gpu_control(R"({"op":"drivers"})")).extract<json_object>();
        auto kd = dr->getObject("kernel_driver");
        backend->set("kernel_driver",
                     std::string(kd && kd->optValue<bool>("available", false) ? "available" : "not available"));
        if (kd) backend->set("kernel_driver_reason", kd->optValue<std::string>("reason", ""));
    } catch (const std::exception&) {
    }

    auto out = make_object();
    out->set("product", product);
    out->set("pci", pci);
    out->set("memory", memory);
    out->set("clocks", clocks);
    out->set("power", power);
    out->set("temperature", temperature);
    out->set("link", link);
    out->set("backend", backend);
    return out;
}

json_object status_sections(host::session& s, host::device& d, const gpu_readings& r) {
    const auto h = d.health();
    const auto& t = r.telemetry;
    std::optional<core::session_row> row;
    std::vector<core::event_row> events;
    {
        std::lock_guard lock(s.store_mutex());
        row = core::find_session(s.db(), d.session_id());
        core::event_query q;
        q.device = d.id();
        q.since_ns = row ? row->started_ns : 0;
        q.limit = 10000;
        events = core::query_events(s.db(), q);
    }
    uint64_t recoveries = 0, warnings = 0;
    std::string last_recovery;
    for (const auto& e : events) {  // newest first
        const bool recovery = e.kind == "safety.soft_reset" || e.kind == "safety.hard_reset" ||
                              e.kind == "safety.reconnect" || e.kind == "safety.emergency_stop";
        if (recovery) {
            ++recoveries;
            if (last_recovery.empty()) last_recovery = e.kind.substr(7) + " " + format_local_time(e.time_ns);
        }
        warnings += e.kind == "safety.warn";
    }

    auto connection = make_object();
    connection->set("state", std::string(host::state_name(d.state())));
    connection->set("device", d.name());
    connection->set("device_id", d.id());
    connection->set("gpu", std::string(d.properties().name));
    connection->set("pci_bus_id", d.function_id());

    auto health = make_object();
    health->set("temperature_c", t.temperature_c);
    health->set("power_w", t.power_w);
    health->set("power_limit_w", t.power_limit_w);
    health->set("link_up", h.sample.link_up != 0);
    // The link's own recent figure (every process's traffic) when the transport gives one: this
    // process has only just started sampling.
    const cb_link_status link = d.link_status();
    health->set("error_rate",
                CB_HAS_MEMBER(&link, cb_link_status, recent_error_rate) ? link.recent_error_rate : h.sample.error_rate);
    health->set("error_rate_threshold", s.safety_number("error_rate_threshold", 0));
    health->set("packets", h.sample.packets);
    health->set("packet_errors", h.sample.packet_errors);
    health->set("heartbeat_age_ms", h.sample.heartbeat_age_ms);
    health->set("pending_work_ms", h.sample.oldest_pending_ms);
    // How long that work has not moved (the hang check); -1 when the GPU family cannot tell.
    health->set("stalled_work_ms",
                h.sample.stalled_ms == UINT64_MAX ? int64_t{-1} : static_cast<int64_t>(h.sample.stalled_ms));
    // How long the kernel now running has run (a kernel time limit judges it); -1: cannot tell.
    health->set("kernel_running_ms", h.sample.kernel_running_ms == UINT64_MAX
                                         ? int64_t{-1}
                                         : static_cast<int64_t>(h.sample.kernel_running_ms));
    health->set("recoveries", recoveries);
    health->set("warnings", warnings);
    health->set("last_recovery", last_recovery.empty() ? std::string("none") : last_recovery);
    health->set("last_action", h.last_action.empty() ? std::string("none") : h.last_action);
    health->set("throttle_reasons", [&] {
        auto a = make_array();
        for (const auto& n : throttle_names(t.throttle_reasons)) a->add(n);
        return a;
    }());
    health->set("figures", std::string(provenance(t.is_simulated != 0)));

    auto session = make_object();
    session->set("id", d.session_id());
    if (row) {
        session->set("started", format_local_time(row->started_ns));
        session->set("state", row->state);
    }
    session->set("events", events.size());

    auto out = make_object();
    out->set("connection", connection);
    out->set("health", health);
    out->set("session", session);
    return out;
}

void print_sections(std::ostream& out, const json_object& sections, const std::vector<std::string>& only) {
    // getNames keeps the insertion order of objects made with JSON_PRESERVE_KEY_ORDER.
    for (const auto& name : sections->getNames()) {
        if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
        auto section = sections->getObject(name);
        if (!section) continue;
        out << label(name) << "\n";
        for (const auto& key : section->getNames()) {
            const bool mib = name == "memory" && key.size() > 6 && key.compare(key.size() - 6, 6, "_bytes") == 0;
            const std::string shown = mib ? label(key.substr(0, key.size() - 6)) : label(key);
            out << "    " << std::left << std::setw(34) << shown << ": "
                << (mib ? mib_text(section->getValue<uint64_t>(key)) : value_text(section->get(key))) << "\n";
        }
    }
}

}  // namespace cudabridge::cli
