// `query --query-compute-apps=FIELD,...`: the processes using each eGPU, as nvidia-smi's
// --query-compute-apps lists them (its field names: pid, process_name, used_gpu_memory, gpu_uuid,
// gpu_bus_id, gpu_name, gpu_serial, timestamp), one line per process that computes on it.
#pragma once

#include "json_output.hpp"
#include "query/gpu_snapshot.hpp"

#include <cudabridge/gpu.h>

#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::cli::query {

struct compute_app_field {
    std::string name;
    std::vector<std::string> aliases;
    std::string unit;  // "MiB" for memory, "" otherwise
    std::string description;
};
const std::vector<compute_app_field>& compute_app_fields();

// The fields named, in order; an unknown name goes to `unknown` and the result is empty.
std::vector<const compute_app_field*> parse_compute_app_fields(std::string_view list, std::string& unknown);

// One process on one eGPU (`gpu` gives the device's identity and the reading's time).
struct compute_app {
    const gpu_snapshot* gpu = nullptr;
    cb_gpu_process process{};
};

std::string compute_apps_heading(const std::vector<const compute_app_field*>& fields);
std::string compute_app_row(const std::vector<const compute_app_field*>& fields, const compute_app& app, bool units);
json_object compute_app_json(const std::vector<const compute_app_field*>& fields, const compute_app& app);
std::string help_compute_apps_text();

}  // namespace cudabridge::cli::query
