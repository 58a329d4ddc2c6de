// The processes attached to a device, as its GPU family lists them (cb_gpu_table.processes).
#pragma once

#include <cudabridge/gpu.h>

#include <vector>

namespace cudabridge::host {

// CB_ERR_UNSUPPORTED when the family cannot list them (older than ABI 1.9, or a backend that
// does not know). The table may grow between sizing and reading it: read until it fits.
cb_status list_processes(const cb_gpu_table* table, void* instance, cb_gpu_device* handle,
                         std::vector<cb_gpu_process>& out);

}  // namespace cudabridge::host
