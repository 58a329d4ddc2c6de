#include "plugin/family_options.hpp"

namespace cudabridge::nv {

family_options declare_and_read_options(const sdk::host& h) {
    h.declare_range(CB_PARAM_INT, "compute_threads", "0",
                    "simulated GPU: host threads of the compute engine (0 = all cores)", true, 0, 1024);
    h.declare(CB_PARAM_STRING, "cuda_library", "libcuda.so.1",
              "kernel-driver backend: the CUDA driver library to load (soname or path)");
    h.declare(CB_PARAM_STRING, "nvml_library", "libnvidia-ml.so.1",
              "kernel-driver backend: the NVML library to load (soname or path)");
    h.declare_range(CB_PARAM_INT, "timeout_ms", "30000",
                    "userspace driver: a wait gives up (CB_ERR_TIMEOUT) after this long with no progress on the device",
                    true, 10, 3600000);
    h.declare_range(CB_PARAM_INT, "staging_chunk_mb", "64",
                    "userspace driver: MiB mapped per DMA chunk of a large copy (two in flight)", true, 1, 1024);
    h.declare_range(CB_PARAM_BOOL, "use_interrupts", "1",
                    "userspace driver: wait on MSI interrupts (0: poll the fence)", false, 0, 0);
    h.declare_range(CB_PARAM_BOOL, "live_state", "1",
                    "simulated GPU: share utilization, memory, temperature and power with other processes "
                    "through a file in the state folder",
                    false, 0, 0);

    family_options o;
    o.compute_threads = static_cast<unsigned>(h.param_int("compute_threads", 0));
    o.cuda_library = h.param_or("cuda_library", o.cuda_library);
    o.nvml_library = h.param_or("nvml_library", o.nvml_library);
    o.timeout_ms = static_cast<uint64_t>(h.param_int("timeout_ms", 30000));
    o.staging_chunk_bytes = static_cast<uint64_t>(h.param_int("staging_chunk_mb", 64)) << 20;
    o.use_interrupts = h.param_bool("use_interrupts", true);
    o.live_state = h.param_bool("live_state", true);
    return o;
}

}  // namespace cudabridge::nv
