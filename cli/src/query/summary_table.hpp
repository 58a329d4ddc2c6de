// nvidia-smi's summary table (what `nvidia-smi` prints without arguments), for the eGPUs: one
// block per GPU (index, name, persistence, bus id, display, ECC; fan, temperature, performance
// state, power, memory, utilization, compute mode; MIG) and the processes using them. A pure
// function of readings, so its shape is tested without a device.
#pragma once

#include "query/gpu_snapshot.hpp"

#include <cudabridge/gpu.h>

#include <string>
#include <vector>

namespace cudabridge::cli::query {

struct summary_gpu {
    gpu_snapshot reading;
    std::vector<cb_gpu_process> processes;  // the other processes attached to it
};

// `version`: CudaBridge's ("0.1.0"); `time_text`: the heading's date, as nvidia-smi prints it.
std::string summary_table(const std::vector<summary_gpu>& gpus, const std::string& version,
                          const std::string& time_text);

}  // namespace cudabridge::cli::query
