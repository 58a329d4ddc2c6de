// Modeled durations of the work a simulated GPU does on its own (device-to-device copies,
// memset, built-in kernels, host kernels, PTX kernels): a roofline over the GPU profile,
//   duration = max(bytes moved / memory bandwidth, flops / peak,
//                  instructions / (SMs x issue rate x clock), link time for host memory)
//              + launch latency (kernels)
// so a kernel is as fast as its memory traffic, its arithmetic or its instruction issue allows,
// whichever binds. A PTX kernel's instructions and bytes are what its code executed and moved,
// counted per basic block by the engine. The model choices (peak, issue rate, latency, what
// counts as bytes and flops) are listed in work_cost.cpp. Copies across the link are not priced
// here: they take the link's modeled time (command_processor.cpp).
#pragma once

#include "common/host_kernels/host_kernel_launch.hpp"
#include "common/launch/builtin_call.hpp"
#include "common/profiles/profile.hpp"

#include <cstdint>

namespace cudabridge::nv {

// What one command asks of the GPU.
struct work_amount {
    double bytes = 0;         // device memory read plus written
    double flops = 0;         // arithmetic operations
    double instructions = 0;  // thread instructions executed (PTX kernels)
    // The link's modeled time for a kernel's accesses to host memory (zero-copy): a fourth
    // ceiling, since the kernel waits on the link as it waits on memory.
    double link_ns = 0;
    bool kernel = false;  // a kernel launch: pays the launch latency
};

// A GPU's two ceilings. Both per nanosecond: GB/s is bytes per ns.
struct roofline {
    double bytes_per_ns = 0;
    double flops_per_ns = 0;
    double instructions_per_ns = 0;
    double launch_latency_ns = 0;
};

roofline roofline_of(const gpu_profile& profile);
// Whole nanoseconds, rounded up; 0 for no work. A ceiling of 0 (an unusable profile) prices
// its side of the work at 0 rather than dividing by zero.
uint64_t modeled_duration_ns(const roofline& ceilings, const work_amount& work);

// The amount of each kind of work.
work_amount copy_d2d_work(uint64_t bytes);
work_amount memset_work(uint64_t bytes);
work_amount builtin_work(const builtin_call& call);
work_amount host_kernel_work(const host_kernel_launch& launch);
work_amount ptx_kernel_work(uint64_t executed_instructions, uint64_t bytes_moved);

}  // namespace cudabridge::nv
