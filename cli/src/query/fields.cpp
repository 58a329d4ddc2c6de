#include "query/fields.hpp"

#include <cudabridge/cpp/hex_text.hpp>
#include <cudabridge/host/link_names.hpp>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <numeric>

namespace cudabridge::cli::query {

namespace {

constexpr uint64_t mib = 1024ull * 1024ull;

// The telemetry, or nullptr when the device refused to give it.
const cb_gpu_telemetry* tel(const gpu_snapshot& s) { return s.telemetry ? &*s.telemetry : nullptr; }

int64_t rounded(double v) { return static_cast<int64_t>(std::llround(v)); }

uint64_t total_bytes(const gpu_snapshot& s) {
    const auto* t = tel(s);
    return t && t->memory_total ? t->memory_total : s.total_memory;
}

field_value whole_or_none(bool have, int64_t v) { return have ? field_value::whole(v) : field_value::none(); }

field_value power_limit_bound(const gpu_snapshot& s, double cb_gpu_setting_limits::*member) {
    if (!s.limits || (*s.limits).*member <= 0) return field_value::none();
    return field_value::real((*s.limits).*member, 2);
}

std::vector<field> make_fields() {
    using o = origin;
    using v = field_value;
    return {
        {"timestamp",
         {},
         o::host,
         "",
         "The time of the reading: \"YYYY/MM/DD HH:MM:SS.msec\", local time.",
         [](const gpu_snapshot& s) { return v::words(nvidia_smi_timestamp(s.time_ns)); }},
        {"count",
         {},
         o::host,
         "",
         "How many GPUs the reading covers (every connected one, or the one -d names).",
         [](const gpu_snapshot& s) { return v::whole(s.gpu_count); }},
        {"index",
         {},
         o::identity,
         "",
         "The GPU's index, as -d N names it (0 based).",
         [](const gpu_snapshot& s) { return v::whole(s.index); }},
        {"name",
         {"gpu_name"},
         o::identity,
         "",
         "The product name of the GPU.",
         [](const gpu_snapshot& s) { return v::words(s.name); }},
        {"uuid",
         {"gpu_uuid"},
         o::identity,
         "",
         "The GPU's globally unique id, \"GPU-\" and 32 hex digits.",
         [](const gpu_snapshot& s) { return v::words(s.uuid); }},
        {"pci.bus_id",
         {"gpu_bus_id"},
         o::identity,
         "",
         "The GPU's PCI bus id, \"domain:bus:device.function\" in hex.",
         [](const gpu_snapshot& s) { return v::words(nvidia_smi_bus_id(s.pci_bus_id)); }},
        {"compute_cap",
         {},
         o::identity,
         "",
         "The CUDA compute capability, major.minor.",
         [](const gpu_snapshot& s) {
             return v::words(std::to_string(s.compute_major) + "." + std::to_string(s.compute_minor));
         }},
        {"memory.total",
         {},
         o::identity,
         "MiB",
         "Total device memory, MiB.",
         [](const gpu_snapshot& s) { return v::whole(static_cast<int64_t>(total_bytes(s) / mib)); }},
        {"memory.used",
         {},
         o::telemetry,
         "MiB",
         "Device memory allocated by every process using the GPU, MiB.",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return whole_or_none(t != nullptr, t ? static_cast<int64_t>(t->memory_used / mib) : 0);
         }},
        {"memory.free",
         {},
         o::telemetry,
         "MiB",
         "Device memory not allocated (total less used), MiB.",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             if (!t) return v::none();
             const uint64_t total = total_bytes(s);
             const uint64_t used = std::min(t->memory_used, total);
             return v::whole(static_cast<int64_t>(total / mib - used / mib));
         }},
        {"temperature.gpu",
         {},
         o::telemetry,
         "",
         "Core GPU temperature, degrees C (printed without a unit).",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return whole_or_none(t != nullptr, t ? rounded(t->temperature_c) : 0);
         }},
        {"power.draw",
         {},
         o::telemetry,
         "W",
         "Power drawn by the whole board, W.",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return t ? v::real(t->power_w, 2) : v::none();
         }},
        {"power.limit",
         {},
         o::setting,
         "W",
         "The power limit set (the software cap the board keeps to), W.",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return t && t->power_limit_w > 0 ? v::real(t->power_limit_w, 2) : v::none();
         }},
        {"enforced.power.limit",
         {},
         o::setting,
         "W",
         "The power limit in force, W (here the same as power.limit).",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return t && t->power_limit_w > 0 ? v::real(t->power_limit_w, 2) : v::none();
         }},
        {"power.default_limit",
         {},
         o::identity,
         "W",
         "The power limit the board starts with, W.",
         [](const gpu_snapshot& s) { return power_limit_bound(s, &cb_gpu_setting_limits::default_power_w); }},
        {"power.min_limit",
         {},
         o::identity,
         "W",
         "The lowest power limit that can be set, W.",
         [](const gpu_snapshot& s) { return power_limit_bound(s, &cb_gpu_setting_limits::min_power_w); }},
        {"power.max_limit",
         {},
         o::identity,
         "W",
         "The highest power limit that can be set, W.",
         [](const gpu_snapshot& s) { return power_limit_bound(s, &cb_gpu_setting_limits::max_power_w); }},
        {"fan.speed",
         {},
         o::telemetry,
         "%",
         "Fan speed as a percentage of its maximum; [N/A] when the board has no readout.",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return whole_or_none(t != nullptr && t->fan_percent >= 0, t ? rounded(t->fan_percent) : 0);
         }},
        {"pstate",
         {},
         o::telemetry,
         "",
         "The performance state, P0 (most) to P12 (least).",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return t && t->performance_state >= 0 ? v::words("P" + std::to_string(t->performance_state)) : v::none();
         }},
        {"clocks.sm",
         {"clocks.current.sm"},
         o::telemetry,
         "MHz",
         "Current SM clock, MHz.",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return whole_or_none(t != nullptr, t ? t->sm_clock_mhz : 0);
         }},
        {"clocks.mem",
         {"clocks.current.memory"},
         o::telemetry,
         "MHz",
         "Current memory clock, MHz.",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return whole_or_none(t != nullptr, t ? t->memory_clock_mhz : 0);
         }},
        {"clocks.max.sm",
         {},
         o::identity,
         "MHz",
         "Highest SM clock the GPU runs at, MHz.",
         [](const gpu_snapshot& s) { return whole_or_none(s.max_sm_clock_mhz != 0, s.max_sm_clock_mhz); }},
        {"clocks.max.memory",
         {"clocks.max.mem"},
         o::identity,
         "MHz",
         "Highest memory clock, MHz.",
         [](const gpu_snapshot& s) { return whole_or_none(s.max_memory_clock_mhz != 0, s.max_memory_clock_mhz); }},
        {"utilization.gpu",
         {},
         o::telemetry,
         "%",
         "Percent of the last sample period a kernel was running.",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return whole_or_none(t != nullptr, t ? rounded(t->gpu_utilization) : 0);
         }},
        {"utilization.memory",
         {},
         o::telemetry,
         "%",
         "Percent of the last sample period device memory was read or written.",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return whole_or_none(t != nullptr, t ? rounded(t->memory_utilization) : 0);
         }},
        {"pcie.link.gen.current",
         {"pcie.link.gen.gpucurrent"},
         o::telemetry,
         "",
         "The GPU's PCIe generation, read at the enclosure's port (the tunnel inside the cable).",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return whole_or_none(t != nullptr && t->pcie_link_gen != 0, t ? t->pcie_link_gen : 0);
         }},
        {"pcie.link.width.current",
         {},
         o::telemetry,
         "",
         "The GPU's PCIe lane count, read at the enclosure's port.",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return whole_or_none(t != nullptr && t->pcie_link_width != 0, t ? t->pcie_link_width : 0);
         }},
        {"clocks_event_reasons.active",
         {"clocks_throttle_reasons.active"},
         o::telemetry,
         "",
         "Why the clocks are held down, as NVML's bitmask (0x...04 power cap, 0x...20 thermal, ...).",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             if (!t) return v::none();
             return v::words(sdk::hex_text(t->throttle_reasons, 16));
         }},
        {"ecc.errors.corrected.volatile.total",
         {},
         o::telemetry,
         "",
         "Memory errors the ECC corrected since connect.",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return whole_or_none(t != nullptr, t ? static_cast<int64_t>(t->ecc_corrected) : 0);
         }},
        {"ecc.errors.uncorrected.volatile.total",
         {},
         o::telemetry,
         "",
         "Memory errors the ECC detected and could not correct since connect.",
         [](const gpu_snapshot& s) {
             const auto* t = tel(s);
             return whole_or_none(t != nullptr, t ? static_cast<int64_t>(t->ecc_uncorrected) : 0);
         }},
        {"link.state",
         {},
         o::link,
         "",
         "The Thunderbolt / USB4 link: up or down.",
         [](const gpu_snapshot& s) { return v::words(s.link.up ? "up" : "down"); }},
        {"link.generation",
         {},
         o::link,
         "",
         "The link's generation (Thunderbolt 3, Thunderbolt 4, USB4, ...).",
         [](const gpu_snapshot& s) { return v::words(host::generation_name(s.link_generation)); }},
        {"link.lanes",
         {},
         o::link,
         "",
         "Lanes the link uses (1 or 2).",
         [](const gpu_snapshot& s) { return whole_or_none(s.link_lanes != 0, s.link_lanes); }},
        {"link.speed",
         {},
         o::link,
         "Gb/s",
         "The link's line rate, lanes times the lane speed, Gb/s.",
         [](const gpu_snapshot& s) {
             return s.link_lanes && s.link_lane_speed_gbps > 0 ? v::real(s.link_lane_speed_gbps * s.link_lanes, 0)
                                                               : v::none();
         }},
        {"link.bandwidth.h2d",
         {},
         o::link,
         "GB/s",
         "Usable payload bandwidth host to device through the PCIe tunnel, GB/s.",
         [](const gpu_snapshot& s) {
             return s.link.h2d_bandwidth_gbs > 0 ? v::real(s.link.h2d_bandwidth_gbs, 2) : v::none();
         }},
        {"link.bandwidth.d2h",
         {},
         o::link,
         "GB/s",
         "Usable payload bandwidth device to host, GB/s.",
         [](const gpu_snapshot& s) {
             return s.link.d2h_bandwidth_gbs > 0 ? v::real(s.link.d2h_bandwidth_gbs, 2) : v::none();
         }},
        {"link.packets",
         {},
         o::link,
         "",
         "Packets the link delivered intact, every process's traffic.",
         [](const gpu_snapshot& s) { return v::whole(static_cast<int64_t>(s.link.packets)); }},
        {"link.crc_errors",
         {},
         o::link,
         "",
         "Packets that failed the receiver's CRC check (each replayed or given up).",
         [](const gpu_snapshot& s) { return v::whole(static_cast<int64_t>(s.link.crc_errors)); }},
        {"link.replays",
         {},
         o::link,
         "",
         "Packets sent again after a failed check.",
         [](const gpu_snapshot& s) { return v::whole(static_cast<int64_t>(s.link.replays)); }},
        {"link.uncorrectable_errors",
         {},
         o::link,
         "",
         "Transfers that failed for good (replays spent).",
         [](const gpu_snapshot& s) { return v::whole(static_cast<int64_t>(s.link.uncorrectable_errors)); }},
        {"link.error_rate",
         {},
         o::link,
         "",
         "CRC failures per packet over the last one to two seconds of traffic.",
         [](const gpu_snapshot& s) { return v::real(s.link.recent_error_rate, 6); }},
        {"link.recoveries",
         {},
         o::store,
         "",
         "Recoveries since the connection began (soft and hard resets, reconnects, emergency stops), any process's.",
         [](const gpu_snapshot& s) { return v::whole(static_cast<int64_t>(s.recoveries)); }},
        {"link.drops",
         {},
         o::store,
         "",
         "Times the link went down since the connection began (surprise removal, link failure), any process's.",
         [](const gpu_snapshot& s) { return v::whole(static_cast<int64_t>(s.link_drops)); }},
        {"safety.state",
         {},
         o::store,
         "",
         "The device's state: connected, recovering, emergency-stop, failed, lost, ...",
         [](const gpu_snapshot& s) { return s.state.empty() ? v::none() : v::words(s.state); }},
        {"safety.interventions",
         {},
         o::store,
         "",
         "Safety policy actions since the connection began (warnings, throttles, resets, stops), any process's.",
         [](const gpu_snapshot& s) {
             return v::whole(
                 static_cast<int64_t>(std::accumulate(s.interventions.begin(), s.interventions.end(), uint64_t{0},
                                                      [](uint64_t sum, const auto& kv) { return sum + kv.second; })));
         }},
    };
}

}  // namespace

bool modeled_on_simulator(origin o) noexcept { return o == origin::telemetry || o == origin::link; }

field_value field_value::whole(int64_t v) {
    field_value f;
    f.type = kind::integer;
    f.integer = v;
    return f;
}

field_value field_value::real(double v, int decimals) {
    field_value f;
    f.type = kind::number;
    f.number = v;
    f.decimals = decimals;
    return f;
}

field_value field_value::words(std::string v) {
    field_value f;
    f.type = kind::text;
    f.text = std::move(v);
    return f;
}

const std::vector<field>& all_fields() {
    static const std::vector<field> fields = [] {
        std::vector<field> all = make_fields();
        for (field& f : nvidia_smi_fields(all)) all.push_back(std::move(f));
        return all;
    }();
    return fields;
}

const field* find_field(std::string_view name) {
    for (const auto& f : all_fields()) {
        if (f.name == name) return &f;
        for (const auto& a : f.aliases)
            if (a == name) return &f;
    }
    return nullptr;
}

bool has_empty_entry(std::string_view list) {
    if (list.find_first_not_of(", ") == std::string_view::npos) return false;  // names nothing at all
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        if (list.substr(start, comma - start).find_first_not_of(' ') == std::string_view::npos) return true;
        start = comma + 1;
    }
    return false;
}

std::vector<requested_field> parse_field_list(std::string_view list, std::string& unknown) {
    unknown.clear();
    std::vector<requested_field> out;
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        std::string_view name = list.substr(start, comma - start);
        while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
        while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
        if (!name.empty()) {
            const field* f = find_field(name);
            if (f == nullptr) {
                unknown = std::string(name);
                return {};
            }
            out.push_back({f, std::string(name)});
        }
        start = comma + 1;
    }
    return out;
}

std::string value_text(const field& f, const field_value& v, bool units) {
    std::string text;
    switch (v.type) {
    case field_value::kind::missing:
        return "[N/A]";
    case field_value::kind::integer:
        text = std::to_string(v.integer);
        break;
    case field_value::kind::number: {
        char b[64];
        std::snprintf(b, sizeof b, "%.*f", v.decimals, v.number);
        text = b;
        break;
    }
    case field_value::kind::text:
        return v.text;
    }
    return units && !f.unit.empty() ? text + " " + f.unit : text;
}

std::string heading(const field& f, const std::string& as_typed) {
    return f.unit.empty() ? as_typed : as_typed + " [" + f.unit + "]";
}

std::string nvidia_smi_timestamp(int64_t unix_ns) {
    const std::time_t secs = static_cast<std::time_t>(unix_ns / 1000000000);
    const int ms = static_cast<int>((unix_ns % 1000000000) / 1000000);
    std::tm tm{};
    localtime_r(&secs, &tm);
    char b[48];
    std::snprintf(b, sizeof b, "%04d/%02d/%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
    return b;
}

std::string nvidia_smi_bus_id(std::string_view id) {
    // "DDDD:BB:DD.F" (or "BB:DD.F"): the domain widened to 8 digits, hex digits in upper case.
    std::string out(id);
    const size_t first = out.find(':');
    if (first == std::string::npos) return out;
    const bool has_domain = out.find(':', first + 1) != std::string::npos;
    std::string domain = has_domain ? out.substr(0, first) : std::string();
    std::string rest = has_domain ? out.substr(first + 1) : out;
    if (domain.size() < 8) domain.insert(0, 8 - domain.size(), '0');
    out = domain + ":" + rest;
    for (char& c : out)
        if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
    return out;
}

}  // namespace cudabridge::cli::query
