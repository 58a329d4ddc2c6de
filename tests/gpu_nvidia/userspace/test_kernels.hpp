// Host kernels (C functions, sdk host_kernels.h) the userspace and plugin tests launch on the
// simulated GPU, and a gate a kernel can wait on so a test controls when queued work completes.
#pragma once

#include <cudabridge/host_kernels.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

namespace cb_test_kernels {

// c[i] = a[i] + b[i] (float32) for this block's slice of [0, n). Args: a, b, c, n (INT64).
// Refuses (CB_ERR_INVALID_ARGUMENT) when a buffer is shorter than n floats.
inline cb_status vector_add(const cb_host_kernel_call* call) {
    if (call->arg_count != 4) return CB_ERR_INVALID_ARGUMENT;
    const int64_t n = call->args[3].value.i64;
    for (int i = 0; i < 3; ++i)
        if (call->buffers[i].data == nullptr || call->buffers[i].size < static_cast<uint64_t>(n) * sizeof(float))
            return CB_ERR_INVALID_ARGUMENT;
    const auto* a = static_cast<const float*>(call->buffers[0].data);
    const auto* b = static_cast<const float*>(call->buffers[1].data);
    auto* c = static_cast<float*>(call->buffers[2].data);
    const int64_t first = int64_t{call->block_index[0]} * call->block[0];
    for (int64_t i = first; i < first + call->block[0] && i < n; ++i) c[i] = a[i] + b[i];
    return CB_OK;
}

// Writes, for each block, its linear index + 1 at out[linear index] (int32), after checking the
// grid, block and index it was given. Args: out.
inline cb_status mark_blocks(const cb_host_kernel_call* call) {
    const uint32_t* g = call->grid;
    const uint32_t* ix = call->block_index;
    if (ix[0] >= g[0] || ix[1] >= g[1] || ix[2] >= g[2]) return CB_ERR_INVALID_ARGUMENT;
    const uint64_t linear = (uint64_t{ix[2]} * g[1] + ix[1]) * g[0] + ix[0];
    if (call->buffers[0].size < (linear + 1) * sizeof(int32_t)) return CB_ERR_INVALID_ARGUMENT;
    static_cast<int32_t*>(call->buffers[0].data)[linear] = static_cast<int32_t>(linear + 1);
    return CB_OK;
}

// Reports what it sees of its arguments into out (int64[6]): the bytes to the end of arg 1's
// allocation, whether arg 2 (a null pointer) has no buffer, the FLOAT64 arg 3 times 4, the two
// fields of arg 4 (CB_ARG_BYTES) and arg 1's launched device address. Args: out, p, null, f, bytes.
struct by_value {
    int32_t a;
    int32_t b;
};
inline cb_status report_args(const cb_host_kernel_call* call) {
    if (call->arg_count != 5 || call->args[4].size != sizeof(by_value)) return CB_ERR_INVALID_ARGUMENT;
    auto* out = static_cast<int64_t*>(call->buffers[0].data);
    by_value v{};
    __builtin_memcpy(&v, call->args[4].value.bytes, sizeof v);
    out[0] = static_cast<int64_t>(call->buffers[1].size);
    out[1] = call->buffers[2].data == nullptr && call->buffers[2].size == 0 ? 1 : 0;
    out[2] = static_cast<int64_t>(call->args[3].value.f64 * 4);
    out[3] = v.a;
    out[4] = v.b;
    out[5] = static_cast<int64_t>(call->args[1].value.device_ptr);
    return CB_OK;
}

// Fails in block 3 with CB_ERR_INVALID_ARGUMENT; the other blocks succeed.
inline cb_status fail_in_block_3(const cb_host_kernel_call* call) {
    return call->block_index[0] == 3 ? CB_ERR_INVALID_ARGUMENT : CB_OK;
}

inline cb_status throws(const cb_host_kernel_call*) { throw 42; }

// Something a kernel waits for: opened by the test (or a helper thread) while the kernel holds
// the device's queue. The kernel gets its address as a UINT64 argument (same process).
struct gate {
    std::atomic<bool> kernel_started{false};
    std::atomic<bool> open{false};
    std::atomic<bool> kernel_saw_open{false};
    std::atomic<bool> kernel_done{false};
};

// Waits (at most 20 s) for the gate in args[0] to open, then writes 1..n into out (int32, args[1],
// n = args[2]) and records what it saw.
inline cb_status wait_for_gate(const cb_host_kernel_call* call) {
    auto* g = reinterpret_cast<gate*>(static_cast<uintptr_t>(call->args[0].value.u64));
    g->kernel_started.store(true);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!g->open.load() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    g->kernel_saw_open.store(g->open.load());
    auto* out = static_cast<int32_t*>(call->buffers[1].data);
    for (int64_t i = 0; i < call->args[2].value.i64; ++i) out[i] = static_cast<int32_t>(i + 1);
    g->kernel_done.store(true);
    return CB_OK;
}

// Sleeps args[0] ms in each block, one block at a time however many threads the engine has: a
// kernel whose length is its block count times args[0], moving all along.
inline cb_status serial_sleep(const cb_host_kernel_call* call) {
    static std::mutex one_at_a_time;
    std::lock_guard lock(one_at_a_time);
    std::this_thread::sleep_for(std::chrono::milliseconds(call->args[0].value.i64));
    return CB_OK;
}

inline const cb_host_kernel k_kernels[] = {
    {"vector_add", &vector_add},           {"mark_blocks", &mark_blocks}, {"report_args", &report_args},
    {"fail_in_block_3", &fail_in_block_3}, {"throws", &throws},           {"wait_for_gate", &wait_for_gate},
    {"serial_sleep", &serial_sleep},
};

inline cb_host_kernel_module module() {
    cb_host_kernel_module m{};
    m.struct_size = sizeof m;
    m.kernels = k_kernels;
    m.kernel_count = sizeof k_kernels / sizeof k_kernels[0];
    return m;
}

}  // namespace cb_test_kernels
