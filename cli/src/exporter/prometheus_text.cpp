#include "exporter/prometheus_text.hpp"

#include "query/fields.hpp"
#include "query/read_snapshot.hpp"

#include <cudabridge/host/device.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>

namespace cudabridge::cli::exporter {

namespace {

using query::gpu_snapshot;
constexpr double mib = 1024.0 * 1024.0;

std::string number_text(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char b[64];
    // Whole numbers (counters, MiB, bytes per second) in full; others as the shortest text that
    // reads back the same.
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        std::snprintf(b, sizeof b, "%.0f", v);
        return b;
    }
    const auto [end, ec] = std::to_chars(b, b + sizeof b, v);
    return ec == std::errc() ? std::string(b, end) : std::string("NaN");
}

// The labels dcgm-exporter puts on each GPU's samples. "device" is the name dcgm-exporter forms
// from the index (nvidia0, ...); a simulated GPU has no /dev node of that name.
std::string gpu_labels(const gpu_snapshot& g, const std::string& hostname) {
    return "gpu=\"" + std::to_string(g.index) + "\",UUID=\"" + escape_label_value(g.uuid) + "\",pci_bus_id=\"" +
           escape_label_value(query::nvidia_smi_bus_id(g.pci_bus_id)) + "\",device=\"nvidia" + std::to_string(g.index) +
           "\",modelName=\"" + escape_label_value(g.name) + "\",Hostname=\"" + escape_label_value(hostname) + "\"";
}

std::string process_labels(const gpu_snapshot& g, const cb_gpu_process& p, const std::string& hostname) {
    return gpu_labels(g, hostname) + ",pid=\"" + std::to_string(p.pid) + "\",process_name=\"" +
           escape_label_value(p.name) + "\"";
}

class writer {
public:
    explicit writer(const std::string& hostname) : hostname_(hostname) {}

    // One family: a sample per GPU for which `value` gives one.
    void family(const std::vector<gpu_snapshot>& gpus, const std::string& name, const char* type,
                const std::string& help, const std::function<std::optional<double>(const gpu_snapshot&)>& value) {
        head(name, type, help);
        for (const auto& g : gpus)
            if (const auto v = value(g)) sample(name, gpu_labels(g, hostname_), *v);
    }
    void head(const std::string& name, const char* type, const std::string& help) {
        out_ += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
    }
    void sample(const std::string& name, const std::string& labels, double v) {
        out_ += name + "{" + labels + "} " + number_text(v) + "\n";
    }
    const std::string& hostname() const { return hostname_; }
    std::string take() { return std::move(out_); }

private:
    std::string hostname_;
    std::string out_;
};

// The telemetry field `member` as a double, when the GPU gave telemetry.
template <typename T>
std::function<std::optional<double>(const gpu_snapshot&)> tel(T cb_gpu_telemetry::*member) {
    return [member](const gpu_snapshot& g) -> std::optional<double> {
        if (!g.telemetry) return std::nullopt;
        return static_cast<double>((*g.telemetry).*member);
    };
}

uint64_t total_bytes(const gpu_snapshot& g) {
    return g.telemetry && g.telemetry->memory_total ? g.telemetry->memory_total : g.total_memory;
}

}  // namespace

std::string escape_label_value(const std::string& value) {
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string render_metrics(const std::vector<gpu_snapshot>& gpus, const std::string& hostname) {
    writer w(hostname);
    w.head("cudabridge_egpus", "gauge", "The eGPUs this exporter reads (0 while none is connected).");
    w.sample("cudabridge_egpus", "Hostname=\"" + escape_label_value(hostname) + "\"", double(gpus.size()));
    using opt = std::optional<double>;
    const auto rounded = [](double v) { return static_cast<double>(std::llround(v)); };

    // ---- dcgm-exporter's names -------------------------------------------------------------
    w.family(gpus, "DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (MHz).", tel(&cb_gpu_telemetry::sm_clock_mhz));
    w.family(gpus, "DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (MHz).",
             tel(&cb_gpu_telemetry::memory_clock_mhz));
    w.family(gpus, "DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (C).", [&](const gpu_snapshot& g) -> opt {
        if (!g.telemetry) return std::nullopt;
        return rounded(g.telemetry->temperature_c);
    });
    w.family(gpus, "DCGM_FI_DEV_POWER_USAGE", "gauge", "Board power draw (W).", tel(&cb_gpu_telemetry::power_w));
    w.family(gpus, "DCGM_FI_DEV_POWER_MGMT_LIMIT", "gauge", "Power limit set (W).",
             tel(&cb_gpu_telemetry::power_limit_w));
    w.family(gpus, "DCGM_FI_DEV_FAN_SPEED", "gauge", "Fan speed (% of its maximum).",
             [&](const gpu_snapshot& g) -> opt {
                 if (!g.telemetry || g.telemetry->fan_percent < 0) return std::nullopt;
                 return rounded(g.telemetry->fan_percent);
             });
    w.family(gpus, "DCGM_FI_DEV_PSTATE", "gauge", "Performance state (0 for P0 ... 15 for P15).",
             tel(&cb_gpu_telemetry::performance_state));
    w.family(gpus, "DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (%).", [&](const gpu_snapshot& g) -> opt {
        if (!g.telemetry) return std::nullopt;
        return rounded(g.telemetry->gpu_utilization);
    });
    w.family(gpus, "DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (%).", [&](const gpu_snapshot& g) -> opt {
        if (!g.telemetry) return std::nullopt;
        return rounded(g.telemetry->memory_utilization);
    });
    w.family(gpus, "DCGM_FI_DEV_FB_TOTAL", "gauge", "Framebuffer memory in total (MiB).",
             [](const gpu_snapshot& g) -> opt { return std::floor(static_cast<double>(total_bytes(g)) / mib); });
    w.family(gpus, "DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used, every process's (MiB).",
             [](const gpu_snapshot& g) -> opt {
                 if (!g.telemetry) return std::nullopt;
                 return std::floor(static_cast<double>(g.telemetry->memory_used) / mib);
             });
    w.family(gpus, "DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (MiB).", [](const gpu_snapshot& g) -> opt {
        if (!g.telemetry) return std::nullopt;
        const uint64_t total = total_bytes(g), used = std::min(g.telemetry->memory_used, total);
        return std::floor(static_cast<double>(total) / mib) - std::floor(static_cast<double>(used) / mib);
    });
    w.family(gpus, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge",
             "Ratio of the last sample period a kernel was running (utilization.gpu / 100).",
             [](const gpu_snapshot& g) -> opt {
                 if (!g.telemetry) return std::nullopt;
                 return g.telemetry->gpu_utilization / 100.0;
             });
    w.family(gpus, "DCGM_FI_PROF_DRAM_ACTIVE", "gauge",
             "Ratio of the last sample period device memory was read or written (utilization.memory / 100).",
             [](const gpu_snapshot& g) -> opt {
                 if (!g.telemetry) return std::nullopt;
                 return g.telemetry->memory_utilization / 100.0;
             });
    // From the GPU's side: it transmits what goes to the host, receives what comes from it.
    w.family(gpus, "DCGM_FI_PROF_PCIE_TX_BYTES", "gauge",
             "Bytes per second the GPU sent to the host over the link since the previous scrape.",
             [](const gpu_snapshot& g) -> opt {
                 if (g.link_from_device_per_s < 0) return std::nullopt;
                 return g.link_from_device_per_s;
             });
    w.family(gpus, "DCGM_FI_PROF_PCIE_RX_BYTES", "gauge",
             "Bytes per second the GPU received from the host over the link since the previous scrape.",
             [](const gpu_snapshot& g) -> opt {
                 if (g.link_to_device_per_s < 0) return std::nullopt;
                 return g.link_to_device_per_s;
             });
    w.family(gpus, "DCGM_FI_DEV_PCIE_LINK_GEN", "gauge", "PCIe generation of the GPU's link (at the enclosure).",
             tel(&cb_gpu_telemetry::pcie_link_gen));
    w.family(gpus, "DCGM_FI_DEV_PCIE_LINK_WIDTH", "gauge", "PCIe lanes of the GPU's link (at the enclosure).",
             tel(&cb_gpu_telemetry::pcie_link_width));
    w.family(gpus, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter",
             "Packets replayed on the link the PCIe traffic crosses (the Thunderbolt / USB4 tunnel).",
             [](const gpu_snapshot& g) -> opt { return static_cast<double>(g.link.replays); });
    w.family(gpus, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "gauge", "Why the clocks are held down (NVML's bitmask).",
             tel(&cb_gpu_telemetry::throttle_reasons));
    w.family(gpus, "DCGM_FI_DEV_XID_ERRORS", "gauge", "The last Xid error the GPU raised (0 when none).",
             tel(&cb_gpu_telemetry::last_xid));
    w.family(gpus, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter", "Single-bit ECC errors since connect.",
             tel(&cb_gpu_telemetry::ecc_corrected));
    w.family(gpus, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Double-bit ECC errors since connect.",
             tel(&cb_gpu_telemetry::ecc_uncorrected));

    // ---- CudaBridge's own ----------------------------------------------------------------------
    w.family(gpus, "cudabridge_gpu_modeled", "gauge",
             "1 when the figures are modeled by the simulator, 0 when measured on hardware.",
             [](const gpu_snapshot& g) -> opt { return g.simulated ? 1.0 : 0.0; });
    w.family(gpus, "cudabridge_gpu_telemetry_available", "gauge",
             "1 when the GPU gave its telemetry for this scrape, 0 when it refused (lost, stopped, going away).",
             [](const gpu_snapshot& g) -> opt { return g.telemetry ? 1.0 : 0.0; });
    w.family(gpus, "cudabridge_link_up", "gauge", "1 while the Thunderbolt / USB4 link is up.",
             [](const gpu_snapshot& g) -> opt { return g.link.up ? 1.0 : 0.0; });
    w.family(gpus, "cudabridge_link_speed_bits_per_second", "gauge", "The link's line rate (lanes times lane speed).",
             [](const gpu_snapshot& g) -> opt {
                 if (!g.link_lanes || g.link_lane_speed_gbps <= 0) return std::nullopt;
                 return std::round(g.link_lane_speed_gbps * g.link_lanes * 1e9);
             });
    w.head("cudabridge_link_bandwidth_bytes_per_second", "gauge",
           "Usable payload bandwidth through the PCIe tunnel, by direction (h2d, d2h).");
    for (const auto& g : gpus) {
        const std::string labels = gpu_labels(g, w.hostname());
        if (g.link.h2d_bandwidth_gbs > 0)
            w.sample("cudabridge_link_bandwidth_bytes_per_second", labels + ",direction=\"h2d\"",
                     std::round(g.link.h2d_bandwidth_gbs * 1e9));
        if (g.link.d2h_bandwidth_gbs > 0)
            w.sample("cudabridge_link_bandwidth_bytes_per_second", labels + ",direction=\"d2h\"",
                     std::round(g.link.d2h_bandwidth_gbs * 1e9));
    }
    w.head("cudabridge_link_bytes_total", "counter",
           "Payload bytes over the link since it came up, every process's, by direction (h2d, d2h).");
    for (const auto& g : gpus) {
        const std::string labels = gpu_labels(g, w.hostname());
        w.sample("cudabridge_link_bytes_total", labels + ",direction=\"h2d\"", double(g.link.bytes_to_device));
        w.sample("cudabridge_link_bytes_total", labels + ",direction=\"d2h\"", double(g.link.bytes_from_device));
    }
    w.family(gpus, "cudabridge_link_packets_total", "counter", "Packets the link delivered intact, every process's.",
             [](const gpu_snapshot& g) -> opt { return static_cast<double>(g.link.packets); });
    w.family(gpus, "cudabridge_link_crc_errors_total", "counter", "Packets that failed the receiver's CRC check.",
             [](const gpu_snapshot& g) -> opt { return static_cast<double>(g.link.crc_errors); });
    w.family(gpus, "cudabridge_link_replays_total", "counter", "Packets sent again after a failed check.",
             [](const gpu_snapshot& g) -> opt { return static_cast<double>(g.link.replays); });
    w.family(gpus, "cudabridge_link_uncorrectable_errors_total", "counter",
             "Transfers that failed for good (replays spent).",
             [](const gpu_snapshot& g) -> opt { return static_cast<double>(g.link.uncorrectable_errors); });
    w.family(gpus, "cudabridge_link_error_rate", "gauge",
             "CRC failures per packet over the last one to two seconds of traffic.",
             [](const gpu_snapshot& g) -> opt { return g.link.recent_error_rate; });
    w.family(gpus, "cudabridge_link_recoveries_total", "counter",
             "Recoveries since the connection began (resets, reconnects, emergency stops), any process's.",
             [](const gpu_snapshot& g) -> opt { return static_cast<double>(g.recoveries); });
    w.family(gpus, "cudabridge_link_drops_total", "counter",
             "Times the link went down since the connection began, any process's.",
             [](const gpu_snapshot& g) -> opt { return static_cast<double>(g.link_drops); });
    // Per process, as nvidia-smi's process list (dcgm-exporter has none): the device memory each
    // process holds, and the commands it has queued.
    w.head("cudabridge_process_memory_bytes", "gauge", "Device memory a process using the GPU holds (bytes).");
    for (const auto& g : gpus)
        for (const cb_gpu_process& p : g.processes)
            w.sample("cudabridge_process_memory_bytes", process_labels(g, p, w.hostname()), double(p.memory_used));
    w.head("cudabridge_process_queued_commands", "gauge", "Commands a process has queued on the GPU, not yet done.");
    for (const auto& g : gpus)
        for (const cb_gpu_process& p : g.processes)
            w.sample("cudabridge_process_queued_commands", process_labels(g, p, w.hostname()), double(p.queued));
    w.head("cudabridge_safety_state", "gauge", "The device's state: 1 for the state it is in, 0 for the others.");
    for (const auto& g : gpus) {
        const std::string labels = gpu_labels(g, w.hostname());
        for (int s = static_cast<int>(host::device_state::disconnected);
             s <= static_cast<int>(host::device_state::lost); ++s) {
            const std::string name = host::state_name(static_cast<host::device_state>(s));
            w.sample("cudabridge_safety_state", labels + ",state=\"" + escape_label_value(name) + "\"",
                     name == g.state ? 1.0 : 0.0);
        }
    }
    w.head("cudabridge_safety_interventions_total", "counter",
           "Safety policy actions since the connection began, by action, any process's.");
    for (const auto& g : gpus) {
        const std::string labels = gpu_labels(g, w.hostname());
        for (const auto& action : query::intervention_names()) {
            const auto it = g.interventions.find(action);
            w.sample("cudabridge_safety_interventions_total", labels + ",action=\"" + action + "\"",
                     it == g.interventions.end() ? 0.0 : static_cast<double>(it->second));
        }
    }
    return w.take();
}

}  // namespace cudabridge::cli::exporter
