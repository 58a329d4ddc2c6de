// The command processor: one thread that, woken by the doorbell, fetches ring entries between
// GET and PUT by DMA, runs them in order on the copy and compute engines, and completes each:
// fence word by DMA, fence_done, GET, error registers, MSI vector 0 (hw/commands.hpp).
//
// It runs between attach (start) and detach (stop); stop() joins it, so no DMA or interrupt
// reaches the host after it returns. A long copy stops between DMA pieces; a running kernel
// finishes first. Host ops are never called with the state lock held.
//
// Each finished command advances the modeled clock (modeled_clock.hpp) by its modeled duration,
// before its fence is published: copies across the link by the link's modeled time for their DMA,
// device-only work by its roofline estimate (work_cost.hpp), timestamps and nops by nothing.
#pragma once

#include "sim/device_model/board_telemetry.hpp"
#include "sim/device_model/command_result.hpp"
#include "sim/device_model/compute_engine.hpp"
#include "sim/device_model/dma_port.hpp"
#include "sim/device_model/engine_state.hpp"
#include "sim/device_model/modeled_clock.hpp"
#include "sim/device_model/vram.hpp"
#include "sim/device_model/work_cost.hpp"
#include "common/hw/commands.hpp"

#include <cudabridge/cpp/host.hpp>

#include <thread>

namespace cudabridge::nv {

// Commands fetched with one DMA read at most.
inline constexpr uint32_t fetch_batch_commands = 64;

class command_processor {
public:
    command_processor(engine_state& state, vram& memory, compute_engine& compute, board_telemetry& telemetry,
                      modeled_clock& clock, const roofline& ceilings, const sdk::host& host);
    ~command_processor();
    command_processor(const command_processor&) = delete;
    command_processor& operator=(const command_processor&) = delete;

    // Starts the thread with the link's host ops; CB_ERR_BUSY when it runs already.
    cb_status start(const cb_endpoint_host_ops& ops);
    // Stops and joins the thread (no-op when it does not run).
    void stop();
    bool running() const noexcept { return thread_.joinable(); }

private:
    void run();
    void run_stretch(const ring_work& work);
    // Runs one command; `modeled_ns` is how long the real GPU would have taken.
    using kernel_launcher = command_result (compute_engine::*)(const dma_port&, const vram&, uint64_t, uint64_t,
                                                               const abort_check&, work_amount&);
    command_result run_kernel(kernel_launcher launch, const hw::command& cmd, const abort_check& abort,
                              command_record& record, uint64_t& modeled_ns);
    command_result execute(const hw::command& cmd, const abort_check& abort, command_record& record,
                           uint64_t& modeled_ns);
    // Fence word, registers, MSI. False when the processor should stop taking this stretch.
    bool finish(const ring_work& work, const hw::command& cmd, uint32_t next_get, command_result result);
    void raise_msi();
    // The modeled time `bytes` of device-memory traffic take at the GPU's memory bandwidth.
    uint64_t memory_ns(double bytes) const {
        return ceilings_.bytes_per_ns > 0 ? static_cast<uint64_t>(bytes / ceilings_.bytes_per_ns) : 0;
    }

    engine_state& state_;
    vram& memory_;
    compute_engine& compute_;
    board_telemetry& telemetry_;
    modeled_clock& clock_;
    roofline ceilings_;
    sdk::host host_;
    dma_port dma_;
    std::thread thread_;
};

}  // namespace cudabridge::nv
