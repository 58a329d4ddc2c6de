// Runs one host-kernel launch (a user's C function, sdk host_kernels.h) on the compute engine's
// threads: each device-pointer argument becomes a host address inside the VRAM mapping (a range
// outside VRAM fails the launch: CB_ERR_INVALID_ARGUMENT, Xid 31), then the function is called
// once per block of the grid with its cb_host_kernel_call, blocks spread over the threads in any
// order. The first failing block wins: a kernel that returns a status other than CB_OK (or
// throws, which counts as CB_ERR_INTERNAL) is a kernel fault — CB_ERR_INTERNAL, Xid 13, what it
// returned in the result's detail — and blocks not yet started are skipped. A reset (abort) stops
// the launch between blocks.
#pragma once

#include "sim/device_model/command_result.hpp"
#include "sim/device_model/dma_port.hpp"
#include "sim/device_model/vram.hpp"
#include "common/host_kernels/host_kernel_launch.hpp"
#include "common/host_kernels/host_kernel_module.hpp"
#include "common/kernels/engine.hpp"

namespace cudabridge::nv {

command_result run_host_kernel(const host_kernel_launch& launch, const host_kernel_entry& kernel, const vram& memory,
                               kernels::engine& engine, const abort_check& abort);

}  // namespace cudabridge::nv
