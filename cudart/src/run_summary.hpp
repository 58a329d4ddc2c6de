// What `cudabridge-cli run` reports afterwards: kernels launched, bytes copied each way, and the
// GPU time of the kernels, only while a summary is asked for (CUDABRIDGE_RUN_SUMMARY names the
// JSON file, written at exit). The time is the device's own count (cbDeviceGetKernelTime), read
// after the program's synchronizing calls; where the family keeps none, events around each launch.
#pragma once

#include "cuda_types.hpp"

#include <cudabridge.h>

#include <cstddef>

namespace cudabridge::cudart {

// Brings up the runtime underneath (connects or attaches the eGPU) once per process, and arms
// the summary at exit. Every call that needs the device goes through it first.
cudaError_t ensure_runtime();
// ensure_runtime has succeeded in this process (a CUDA call brought the runtime up).
bool runtime_started();

void note_copy(cudaMemcpyKind kind, size_t bytes);

// Folds the timed launches that have finished into the kernel time (all of them, waiting, with
// `wait`; before a device reset, which frees their events). Called after the program's own
// synchronizing calls succeed.
void settle_timings(bool wait);
// After a device reset: the events are gone with everything else.
void forget_timing_events();

// Events around one launch on its stream, when a summary is being kept.
class launch_timer {
public:
    explicit launch_timer(cudaStream_t stream);
    ~launch_timer();
    launch_timer(const launch_timer&) = delete;
    launch_timer& operator=(const launch_timer&) = delete;
    // The launch was queued: count it and close its timing.
    void launched();

private:
    cbStream_t stream_;
    cbEvent_t start_ = nullptr;
};

}  // namespace cudabridge::cudart
