// One reading of one eGPU, as `query` and `exporter` print it: plain data, gathered once
// (read_snapshot.hpp) and turned into text by pure functions (fields.hpp, prometheus_text.hpp).
#pragma once

#include <cudabridge/gpu.h>
#include <cudabridge/transport.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudabridge::cli::query {

struct gpu_snapshot {
    int index = 0;
    int64_t time_ns = 0;  // Unix time of the reading
    int gpu_count = 0;    // how many GPUs this reading covers (nvidia-smi's "count")

    // Identity: the device's properties (on a simulated GPU, its model profile).
    std::string device_id;  // the enclosure's unique id
    std::string name, uuid, pci_bus_id, architecture;
    int compute_major = 0, compute_minor = 0;
    uint64_t total_memory = 0;
    uint32_t max_sm_clock_mhz = 0, max_memory_clock_mhz = 0;
    uint16_t pci_vendor_id = 0, pci_device_id = 0;
    uint32_t pci_subsystem_id = 0;
    bool simulated = false;  // figures modeled by the simulator (true) or measured on hardware

    // Telemetry through the device's work gate; absent when the device refused (why says why).
    std::optional<cb_gpu_telemetry> telemetry;
    std::string telemetry_error;
    std::optional<cb_gpu_setting_limits> limits;

    // The Thunderbolt / USB4 link: what the transport reports (every process's traffic).
    cb_link_status link{};
    cb_link_generation link_generation = CB_LINK_UNKNOWN;
    uint32_t link_lanes = 0;
    double link_lane_speed_gbps = 0;
    // Bytes per second over the link since the previous reading of the same GPU, as DCGM's PCIe
    // rates (the exporter fills them between scrapes; < 0: no previous reading).
    double link_to_device_per_s = -1, link_from_device_per_s = -1;

    // The other processes attached to the GPU (the exporter fills them; empty elsewhere).
    std::vector<cb_gpu_process> processes;

    // From the connection state and the store: the device's state, and the safety actions
    // recorded for it since its connection began (whichever process took them).
    std::string state;                              // "connected", "recovering", "emergency-stop", ...
    uint64_t recoveries = 0;                        // soft/hard resets, reconnects, emergency stops
    uint64_t link_drops = 0;                        // times a supervisor found the link down
    std::map<std::string, uint64_t> interventions;  // by action: "warn", "throttle", "soft_reset", ...
    // The newest link or safety event (kind empty: none yet).
    int64_t last_event_ns = 0;
    std::string last_event_kind, last_event_message;
};

}  // namespace cudabridge::cli::query
