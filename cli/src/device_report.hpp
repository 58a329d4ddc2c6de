// What the CLI knows about one attached eGPU, gathered once into JSON objects (sections of
// named values). `info`, `status`, `monitor` and `diag` print these: the JSON form as it is, the
// human form through print_sections(), so the two never disagree.
#pragma once

#include "json_output.hpp"

#include <cudabridge/host/device.hpp>
#include <cudabridge/host/session.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace cudabridge::cli {

// Reads telemetry, settings and limits through the device's work gate; throws cli_error when the
// device refuses (lost, stopped, failed).
struct gpu_readings {
    cb_gpu_telemetry telemetry{};
    cb_gpu_settings settings{};
    cb_gpu_setting_limits limits{};
    bool have_limits = false;
};
gpu_readings read_gpu(host::device& d);
// Applies settings (the fields named); the device's answer as a status (never throws).
cb_status apply_gpu_settings(host::device& d, const cb_gpu_settings& s, std::string& why);

// The model profile stored for the device's PCI id (null when none).
json_object stored_profile(host::session& s, uint16_t pci_device_id);

// info: product, pci, memory, clocks, power, temperature, link, backend (in that order).
json_object info_sections(host::session& s, host::device& d, const gpu_readings& r);
const std::vector<std::string>& info_section_names();
// status: connection, health, telemetry, link errors, session.
json_object status_sections(host::session& s, host::device& d, const gpu_readings& r);

// Human form: "Section" then "    Key name : value" lines, as nvidia-smi -q does.
void print_sections(std::ostream& out, const json_object& sections, const std::vector<std::string>& only = {});

}  // namespace cudabridge::cli
