// The processes computing on a real GPU, as nvidia-smi lists them: NVML's compute processes, each
// with its name and start time from /proc (this machine's processes; NVML may list others' in
// another PID namespace, which keep an empty name).
#pragma once

#include <cudabridge/gpu.h>

#include "nvidia_driver/cuda_driver/nvml_library.hpp"

#include <string>
#include <vector>

namespace cudabridge::nv {

// CB_ERR_UNSUPPORTED when the library has no nvmlDeviceGetComputeRunningProcesses.
cb_status read_compute_processes(const nvml_library& nvml, int index, std::vector<cb_gpu_process>& out,
                                 std::string& error);

}  // namespace cudabridge::nv
