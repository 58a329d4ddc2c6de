// /metrics as the Prometheus text format (version 0.0.4): the GPU's figures under the names
// dcgm-exporter gives them (DCGM_FI_DEV_*, with its gpu, UUID, pci_bus_id, device, modelName and
// Hostname labels), and CudaBridge's own cudabridge_link_* and cudabridge_safety_* families for
// the Thunderbolt link and the safety policy. A pure function of the readings.
#pragma once

#include "query/gpu_snapshot.hpp"

#include <string>
#include <vector>

namespace cudabridge::cli::exporter {

// The content type Prometheus expects for this format.
inline constexpr const char* prometheus_content_type = "text/plain; version=0.0.4; charset=utf-8";

// Every family once (# HELP, # TYPE, then one sample per GPU). A GPU whose telemetry was
// refused has no DCGM_FI_DEV_* samples of its own; cudabridge_gpu_telemetry_available says so.
std::string render_metrics(const std::vector<query::gpu_snapshot>& gpus, const std::string& hostname);

// A label value with \, " and newline escaped as the format asks.
std::string escape_label_value(const std::string& value);

}  // namespace cudabridge::cli::exporter
