#include "sim/device_model/work_cost.hpp"

#include "common/kernels/dtype.hpp"

#include <algorithm>
#include <cmath>

namespace cudabridge::nv {
namespace {

// Model choices (the simulator's own; no measurement behind them):
// - Peak arithmetic = CUDA cores x boost clock x 2: one fused multiply-add (2 flops) per core per
//   clock, NVIDIA's published FP32 figure (RTX 5090: 21760 x 2.41 GHz x 2 = 104.9 TFLOPS). Every
//   dtype runs at this rate, although GeForce boards run FP64 at a small fraction of it.
// - Memory at the profile's full bandwidth (memory_bandwidth_gbps); real kernels reach 80-90%.
// - Instruction issue = SMs x 4 warp schedulers x 32 lanes per clock: every SM since Volta issues
//   one warp instruction per scheduler per clock (NVIDIA's architecture whitepapers), so 128
//   thread instructions per SM per clock, at the boost clock. Every instruction counts as one
//   issue slot (no dual issue, no stalls beyond the memory ceiling).
// - Every kernel (built-in, host or PTX) pays a fixed launch latency of 3 us, the order of an
//   empty kernel's launch on a local PCIe GPU (a model choice; no measurement behind it).
//   Copies and memset pay no fixed cost: short ones are cheaper than on hardware.
constexpr double flops_per_core_clock = 2.0;
constexpr double thread_instructions_per_sm_clock = 4.0 * 32.0;
constexpr double kernel_launch_latency_ns = 3000.0;

// A tensor's elements (0 when any dimension is 0; 1 for a scalar).
double elements(const cb_tensor_desc& t) {
    double n = 1;
    for (int i = 0; i < t.ndim; ++i) n *= static_cast<double>(std::max<int64_t>(t.shape[i], 0));
    return n;
}

// The distinct bytes a tensor occupies: its elements, or less when strides overlap them (a
// broadcast dimension of stride 0 reads the same bytes again, from cache on a real GPU).
double footprint_bytes(const cb_tensor_desc& t) {
    const double n = elements(t);
    if (n == 0) return 0;
    const double dense = n * static_cast<double>(kernels::dtype_size(t.dtype));
    int64_t first = 0, end = 0;
    if (!tensor_extent(t, first, end)) return dense;
    return std::min(dense, static_cast<double>(end - first));
}

// Rows and columns of a matmul operand (1-D: one row of k for a, one column of k for b).
double dim_or_one(const cb_tensor_desc& t, int index_2d) {
    return t.ndim == 2 ? static_cast<double>(t.shape[index_2d]) : 1.0;
}

}  // namespace

roofline roofline_of(const gpu_profile& profile) {
    roofline r;
    r.bytes_per_ns = profile.memory_bandwidth_gbps;  // 10^9 B/s = 1 B/ns
    r.flops_per_ns = static_cast<double>(profile.cuda_cores) * profile.boost_clock_mhz * 1e-3 * flops_per_core_clock;
    r.instructions_per_ns =
        static_cast<double>(profile.sm_count) * profile.boost_clock_mhz * 1e-3 * thread_instructions_per_sm_clock;
    r.launch_latency_ns = kernel_launch_latency_ns;
    return r;
}

uint64_t modeled_duration_ns(const roofline& ceilings, const work_amount& work) {
    const double memory_ns = ceilings.bytes_per_ns > 0 ? work.bytes / ceilings.bytes_per_ns : 0;
    const double compute_ns = ceilings.flops_per_ns > 0 ? work.flops / ceilings.flops_per_ns : 0;
    const double issue_ns = ceilings.instructions_per_ns > 0 ? work.instructions / ceilings.instructions_per_ns : 0;
    const double ns = std::ceil(std::max({memory_ns, compute_ns, issue_ns, work.link_ns}) +
                                (work.kernel ? ceilings.launch_latency_ns : 0));
    if (!(ns > 0)) return 0;
    return ns >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(ns);
}

// A copy reads and writes every byte.
work_amount copy_d2d_work(uint64_t bytes) { return {2.0 * static_cast<double>(bytes), 0}; }

work_amount memset_work(uint64_t bytes) { return {static_cast<double>(bytes), 0}; }

// Bytes: every operand's footprint, read or written once. Flops: one per element of the largest
// operand (the output of an elementwise op, the input of a reduction or crc32c), except matmul:
// 2·m·n·k.
work_amount builtin_work(const builtin_call& call) {
    work_amount w;
    double largest = 0;
    for (const cb_tensor_desc& t : call.tensors) {
        w.bytes += footprint_bytes(t);
        largest = std::max(largest, elements(t));
    }
    w.flops = largest;
    if (call.kind == builtin_kind::matmul && call.tensors.size() == 3) {
        const cb_tensor_desc& a = call.tensors[0];
        const cb_tensor_desc& b = call.tensors[1];
        const double k = a.ndim >= 1 ? static_cast<double>(a.shape[a.ndim - 1]) : 0;
        const double m = dim_or_one(a, 0);
        const double n = dim_or_one(b, 1);
        w.flops = 2.0 * m * n * k;
    }
    w.kernel = true;
    return w;
}

// A host kernel says nothing of what it touches. Bytes: each device-pointer argument's bytes to
// the end of its allocation (the most it may touch); flops: one per thread of the grid.
work_amount host_kernel_work(const host_kernel_launch& launch) {
    work_amount w;
    for (const host_kernel_arg& a : launch.args)
        if (a.type == CB_ARG_DEVICE_PTR) w.bytes += static_cast<double>(a.span);
    const double threads_per_block = static_cast<double>(launch.block[0]) * launch.block[1] * launch.block[2];
    w.flops = static_cast<double>(launch.block_count()) * threads_per_block;
    w.kernel = true;
    return w;
}

// What the kernel's code did, as the engine counted it.
work_amount ptx_kernel_work(uint64_t executed_instructions, uint64_t bytes_moved) {
    work_amount w;
    w.bytes = static_cast<double>(bytes_moved);
    w.instructions = static_cast<double>(executed_instructions);
    w.kernel = true;
    return w;
}

}  // namespace cudabridge::nv
