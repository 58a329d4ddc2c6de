// The rest of `nvidia-smi --help-query-gpu`'s fields (CUDA 13 drivers). Where the eGPU's reading
// tells the value, it is read; where the board has no such feature, the answer is what nvidia-smi
// prints for a GeForce board without it (a capture of a GeForce RTX 4080 SUPER on driver 595.71,
// published by the nvidia_gpu_exporter project, shows every field's text): "[N/A]", "N/A",
// "[Requested functionality has been deprecated]", "Disabled". Scripts that name such a field get
// a line, not an error.
#include "query/fields.hpp"

#include <cudabridge/cpp/hex_text.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace cudabridge::cli::query {

namespace {

using o = origin;
using v = field_value;

constexpr const char* deprecated = "[Requested functionality has been deprecated]";

const cb_gpu_telemetry* tel(const gpu_snapshot& s) { return s.telemetry ? &*s.telemetry : nullptr; }

// A field whose answer never changes on this board: `text` ("[N/A]" prints as nvidia-smi's [N/A]
// and is null in JSON).
field fixed(std::string name, std::string unit, std::string text, std::string description) {
    v value = text == "[N/A]" ? v::none() : v::words(text);
    return {std::move(name), {}, o::identity, std::move(unit), std::move(description), [value](const gpu_snapshot&) {
                return value;
            }};
}

// A field whose figure is always `value` (printed with its unit unless nounits).
field fixed_figure(std::string name, std::string unit, int64_t value, std::string description) {
    return {std::move(name), {}, o::identity, std::move(unit), std::move(description), [value](const gpu_snapshot&) {
                return v::whole(value);
            }};
}

// A field that reads as another one does (nvidia-smi's averaged and instant power, say, where the
// board gives one reading).
field same_as(const std::vector<field>& base, std::string name, std::vector<std::string> aliases, const char* other,
              std::string description) {
    for (const field& f : base)
        if (f.name == other)
            return {std::move(name), std::move(aliases), f.from, f.unit, std::move(description), f.read};
    return fixed(std::move(name), "", "[N/A]", std::move(description));  // not reached: `other` is a base field
}

// nvidia-smi's hex: "0x" and upper-case digits.
std::string hex_digits(uint64_t value, int digits) {
    std::string text = sdk::hex_text(value, digits);
    std::transform(text.begin() + 2, text.end(), text.begin() + 2,
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return text;
}

// One part of the bus id "DDDDDDDD:BB:DD.F" as nvidia-smi prints it ("0x0000", "0x12", "0x00").
field bus_part(std::string name, int part, int digits, std::string description) {
    return {std::move(name), {}, o::identity, "", std::move(description), [part, digits](const gpu_snapshot& s) {
                unsigned long domain = 0, bus = 0, device = 0, function = 0;
                if (std::sscanf(s.pci_bus_id.c_str(), "%lx:%lx:%lx.%lx", &domain, &bus, &device, &function) != 4)
                    return v::none();
                const unsigned long parts[] = {domain, bus, device};
                return v::words(hex_digits(parts[part], digits));
            }};
}

// One of NVML's clock event reasons, from the active bitmask: "Active" or "Not Active".
field event_reason(const std::string& reason, uint64_t bit, std::string description) {
    return {"clocks_event_reasons." + reason,
            {"clocks_throttle_reasons." + reason},
            o::telemetry,
            "",
            std::move(description),
            [bit](const gpu_snapshot& s) {
                const auto* t = tel(s);
                return t ? v::words(t->throttle_reasons & bit ? "Active" : "Not Active") : v::none();
            }};
}

field ecc_count(const std::string& name, bool corrected, std::string description) {
    return {name, {}, o::telemetry, "", std::move(description), [corrected](const gpu_snapshot& s) {
                const auto* t = tel(s);
                if (!t) return v::none();
                return v::whole(static_cast<int64_t>(corrected ? t->ecc_corrected : t->ecc_uncorrected));
            }};
}

void add_ecc_fields(std::vector<field>& out) {
    // The board counts device-memory errors since the connection began; it keeps no lifetime count,
    // so the aggregate reads as the volatile one. Other locations have no counter here.
    for (const bool corrected : {true, false}) {
        const std::string kind = corrected ? "corrected" : "uncorrected";
        for (const char* span : {"volatile", "aggregate"}) {
            const std::string base = "ecc.errors." + kind + "." + span + ".";
            for (const char* where : {"device_memory", "dram"})
                out.push_back(ecc_count(base + where, corrected, "Device-memory errors " + kind + " since connect."));
            for (const char* where : {"register_file", "l1_cache", "l2_cache", "texture_memory", "cbu", "sram"})
                out.push_back(fixed(base + where, "", "[N/A]", "The board counts no errors there."));
            if (std::string(span) == "aggregate")
                out.push_back(ecc_count(base + "total", corrected,
                                        "Errors " + kind + " since connect (the board keeps no lifetime count)."));
        }
    }
    for (const char* sram : {"volatile.sram.parity", "volatile.sram.secded", "aggregate.sram.parity",
                             "aggregate.sram.secded", "aggregate.sram.thresholdExceeded", "aggregate.sram.l2",
                             "aggregate.sram.sm", "aggregate.sram.mcu", "aggregate.sram.pcie", "aggregate.sram.other"})
        out.push_back(fixed(std::string("ecc.errors.uncorrected.") + sram, "", "[N/A]", "No SRAM error counters."));
}

}  // namespace

std::vector<field> nvidia_smi_fields(const std::vector<field>& base) {
    std::vector<field> out = {
        fixed("driver_version", "", "[N/A]", "NVIDIA's driver version: none drives the eGPU through CudaBridge."),
        fixed("kmd_version", "", "[N/A]", "NVIDIA's kernel module version: none here."),
        fixed("vgpu_driver_capability.heterogenous_multivGPU", "", "[N/A]", "vGPU: not offered."),
        fixed("serial", "", "[N/A]", "The board's serial number: GeForce boards report none."),
        bus_part("pci.domain", 0, 4, "The PCI domain, hex."),
        bus_part("pci.bus", 1, 2, "The PCI bus, hex."),
        bus_part("pci.device", 2, 2, "The PCI device, hex."),
        fixed("pci.baseClass", "", "0x3", "The PCI base class: display controller."),
        fixed("pci.subClass", "", "0x0", "The PCI subclass."),
        {"pci.device_id",
         {},
         o::identity,
         "",
         "The PCI device and vendor id, \"0xDDDDVVVV\".",
         [](const gpu_snapshot& s) {
             return s.pci_vendor_id ? v::words(hex_digits((uint64_t{s.pci_device_id} << 16) | s.pci_vendor_id, 8))
                                    : v::none();
         }},
        {"pci.sub_device_id",
         {},
         o::identity,
         "",
         "The PCI subsystem id, \"0xSSSSVVVV\".",
         [](const gpu_snapshot& s) {
             return s.pci_subsystem_id ? v::words(hex_digits(s.pci_subsystem_id, 8)) : v::none();
         }},
    };
    for (const char* cap : {"fractional_multiVgpu", "heterogeneous_timeSlice_profile", "heterogeneous_timeSlice_sizes",
                            "homogeneous_placements", "mig_timeSlicing", "mig_timeSlicing_mode"})
        out.push_back(fixed(std::string("vgpu_device_capability.") + cap, "", "[N/A]", "vGPU: not offered."));
    out.push_back(same_as(base, "pcie.link.gen.max", {}, "pcie.link.gen.current",
                          "The highest PCIe generation here: the enclosure's port behind the tunnel sets it."));
    out.push_back(same_as(base, "pcie.link.gen.hostmax", {}, "pcie.link.gen.current",
                          "The highest PCIe generation the host side (the enclosure's port) offers."));
    out.push_back(fixed("pcie.link.gen.gpumax", "", "[N/A]", "The GPU's own highest PCIe generation: not read."));
    out.push_back(same_as(base, "pcie.link.width.max", {}, "pcie.link.width.current",
                          "The widest PCIe link here: the enclosure's port sets it."));
    out.push_back(fixed("display_mode", "", deprecated, "Deprecated by NVIDIA."));
    out.push_back(fixed("display_attached", "", "No", "No display is driven through CudaBridge."));
    out.push_back(fixed("display_active", "", "Disabled", "No display is initialized on the GPU."));
    out.push_back(fixed("persistence_mode", "", "Enabled",
                        "The GPU stays initialized between programs while connected (cudabridge-cli connect)."));
    out.push_back(fixed("addressing_mode", "", "[N/A]", "HMM or ATS addressing: neither."));
    out.push_back(fixed("accounting.mode", "", "Disabled", "Per-process accounting: not kept."));
    out.push_back(fixed("accounting.buffer_size", "", "[N/A]", "Per-process accounting: not kept."));
    out.push_back(fixed("driver_model.current", "", "[N/A]", "Windows only."));
    out.push_back(fixed("driver_model.pending", "", "[N/A]", "Windows only."));
    out.push_back(fixed("vbios_version", "", "[N/A]", "The VBIOS version: not read."));
    for (const char* part : {"img", "oem", "ecc", "pwr", "checksum_validation"})
        out.push_back(fixed(std::string("inforom.") + part, "", "[N/A]", "The InfoROM: not read."));
    out.push_back({"gpu_recovery_action",
                   {},
                   o::store,
                   "",
                   "What the GPU needs to work again: None, or Reset (cudabridge-cli reset) after a failure.",
                   [](const gpu_snapshot& s) {
                       return v::words(s.state == "failed" || s.state == "emergency-stop" ? "Reset" : "None");
                   }});
    out.push_back(fixed("gom.current", "", "[N/A]", "GPU operation mode: not offered on GeForce boards."));
    out.push_back(fixed("gom.pending", "", "[N/A]", "GPU operation mode: not offered on GeForce boards."));
    out.push_back(fixed("clocks_event_reasons.supported", "", "0x00000000000001FF",
                        "The reasons NVML defines that the board can report (all of them)."));
    out.push_back(event_reason("gpu_idle", 0x1, "Nothing runs, so the clocks are low."));
    out.push_back(event_reason("applications_clocks_setting", 0x2, "Held by an application-clocks setting."));
    out.push_back(event_reason("sw_power_cap", 0x4, "Held by the power limit."));
    out.push_back(event_reason("hw_slowdown", 0x8, "Held by the hardware (thermal or power brake)."));
    out.push_back(event_reason("sync_boost", 0x10, "Held to match other GPUs."));
    out.push_back(event_reason("sw_thermal_slowdown", 0x20, "Held by the temperature limit."));
    out.push_back(event_reason("hw_thermal_slowdown", 0x40, "Held by the hardware for temperature."));
    out.push_back(event_reason("hw_power_brake_slowdown", 0x80, "Held by the power brake."));
    for (const char* c :
         {"sw_power_cap", "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown"})
        out.push_back(fixed(std::string("clocks_event_reasons_counters.") + c, "us", "[N/A]",
                            "Time spent held for that reason: not counted."));
    out.push_back(fixed_figure("memory.reserved", "MiB", 0, "Device memory the driver keeps: none here."));
    out.push_back(fixed("compute_mode", "", "Default", "Any number of processes may compute on the GPU."));
    for (const char* engine : {"encoder", "decoder", "jpeg", "ofa"})
        out.push_back(fixed_figure(std::string("utilization.") + engine, "%", 0,
                                   "The video engines: CudaBridge runs nothing on them."));
    for (const char* stat : {"sessionCount", "averageFps", "averageLatency"})
        out.push_back(fixed_figure(std::string("encoder.stats.") + stat, "", 0, "Encoder sessions: none."));
    out.push_back(fixed("dramEncryption.mode.current", "", "[N/A]", "DRAM encryption: not offered."));
    out.push_back(fixed("dramEncryption.mode.pending", "", "[N/A]", "DRAM encryption: not offered."));
    out.push_back(fixed("ecc.mode.current", "", "[N/A]", "ECC mode: not switchable on GeForce boards."));
    out.push_back(fixed("ecc.mode.pending", "", "[N/A]", "ECC mode: not switchable on GeForce boards."));
    add_ecc_fields(out);
    for (const char* r : {"single_bit_ecc.count", "double_bit.count", "pending"})
        out.push_back(fixed(std::string("retired_pages.") + r, "", "[N/A]", "Page retirement: not on this board."));
    for (const char* r :
         {"correctable", "correctable_inactive", "uncorrectable", "uncorrectable_inactive", "pending", "failure",
          "histogram.max", "histogram.high", "histogram.partial", "histogram.low", "histogram.none"})
        out.push_back(fixed(std::string("remapped_rows.") + r, "", "[N/A]", "Row remapping: not on this board."));
    out.push_back(fixed("temperature.gpu.tlimit", "", "[N/A]", "Headroom to the slowdown temperature: not read."));
    out.push_back(fixed("temperature.memory", "", "N/A", "Memory temperature: GeForce boards report none."));
    out.push_back(fixed("power.management", "", deprecated, "Deprecated by NVIDIA."));
    out.push_back(
        same_as(base, "power.draw.average", {}, "power.draw", "Power drawn, averaged: the board gives one reading."));
    out.push_back(same_as(base, "power.draw.instant", {}, "power.draw", "Power drawn now."));
    for (const char* m : {"draw.average", "draw.instant", "limit", "default_limit", "min_limit", "max_limit"})
        out.push_back(fixed(std::string("module.power.") + m, "W", "[N/A]", "Grace Hopper modules only."));
    out.push_back(fixed("module.enforced.power.limit", "W", "[N/A]", "Grace Hopper modules only."));
    out.push_back(fixed("edpp_multiplier", "%", "[N/A]", "Not on this board."));
    out.push_back(same_as(base, "clocks.current.graphics", {"clocks.gr"}, "clocks.sm",
                          "Current graphics clock, MHz (the SM clock here)."));
    out.push_back(fixed("clocks.current.video", "MHz", "[N/A]", "The video clock: not modeled."));
    for (const char* a : {"clocks.applications.graphics", "clocks.applications.memory",
                          "clocks.default_applications.graphics", "clocks.default_applications.memory"})
        out.push_back(fixed(a, "MHz", deprecated, "Application clocks: deprecated by NVIDIA."));
    out.push_back(same_as(base, "clocks.max.graphics", {"clocks.max.gr"}, "clocks.max.sm",
                          "Highest graphics clock, MHz (the SM clock's)."));
    out.push_back(fixed("mig.mode.current", "", "[N/A]", "Multi-instance GPU: not on GeForce boards."));
    out.push_back(fixed("mig.mode.pending", "", "[N/A]", "Multi-instance GPU: not on GeForce boards."));
    out.push_back(fixed("gsp.mode.current", "", "[N/A]", "GSP firmware: not read."));
    out.push_back(fixed("gsp.mode.default", "", "[N/A]", "GSP firmware: not read."));
    out.push_back(fixed("c2c.mode", "", "[N/A]", "Chip-to-chip links: none."));
    for (const char* p : {"total", "used", "free"})
        out.push_back(fixed_figure(std::string("protected_memory.") + p, "MiB", 0, "Confidential computing: none."));
    for (const char* f :
         {"state", "status", "cliqueId", "clusterUuid", "health.summary", "health.bandwidth",
          "health.route_recovery_in_progress", "health.route_unhealthy", "health.access_timeout_recovery",
          "health.incorrect_configuration", "health.partition_assigned"})
        out.push_back(fixed(std::string("fabric.") + f, "", "N/A", "NVLink fabric: none."));
    out.push_back(fixed("platform.chassis_serial_number", "", "", "Not in a GPU chassis."));
    out.push_back(fixed("platform.slot_number", "", "0", "Not in a GPU chassis."));
    out.push_back(fixed("platform.tray_index", "", "0", "Not in a GPU chassis."));
    out.push_back(fixed("platform.host_id", "", "1", "Not in a GPU chassis."));
    out.push_back(fixed("platform.peer_type", "", "Direct Connected", "Not in a GPU chassis."));
    out.push_back(fixed("platform.module_id", "", "1", "Not in a GPU chassis."));
    out.push_back(fixed("platform.gpu_fabric_guid", "", "0x0000000000000000", "Not in a GPU chassis."));
    out.push_back(fixed("hostname", "", "[N/A]", "The hostname set on the GPU: none."));
    return out;
}

}  // namespace cudabridge::cli::query
