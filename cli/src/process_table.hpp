// The processes using an eGPU, as nvidia-smi's process list shows them: every process attached
// to the device (this one left out: it only looks), with the device memory it holds and the
// commands it has queued. `info`, `query --query-compute-apps` and `disconnect` show it.
#pragma once

#include "json_output.hpp"

#include <cudabridge/host/device.hpp>

#include <ostream>
#include <vector>

namespace cudabridge::cli {

// Other processes than this one; empty when the device's family cannot list them.
std::vector<cb_gpu_process> other_processes(const host::device& d);

// One object per process: pid, name, type ("C": it computes, "-": attached only),
// used_memory_bytes, queued_commands, started (local time).
json_array process_rows(const std::vector<cb_gpu_process>& processes);

// "Processes" then, per process, nvidia-smi -q's block: Process ID, Type, Name, Used GPU Memory
// (MiB), Queued Commands, Started; "None" when there are none.
void print_process_table(std::ostream& out, const json_array& rows);

}  // namespace cudabridge::cli
