// The simulated NVIDIA GPU: one PCIe function that a simulated fabric hosts through
// cb_endpoint_model_table (sdk::endpoint_model). It joins the parts of this folder:
//   config_space       PCI identity, BARs, capabilities (the PCIe link)
//   bar0_registers     identification registers and our block (hw/registers.hpp)
//   modeled_clock      PTIMER: modeled time (work_cost prices device-only work, the link copies)
//   engine_state       ring / fence / interrupt / error registers shared with the processor
//   command_processor  the thread that runs the ring on the copy and compute engines
//   vram, apertures    lazily reserved VRAM, BAR1 window, BAR3 instance memory
//   board_telemetry    thermal / power / fan / clock model, settings, counters (live state)
// The register interface is documented in REGISTERS.md.
#pragma once

#include "sim/device_model/bar0_registers.hpp"
#include "sim/device_model/board_identity.hpp"
#include "sim/device_model/board_telemetry.hpp"
#include "sim/device_model/command_processor.hpp"
#include "sim/device_model/compute_engine.hpp"
#include "sim/device_model/config_space.hpp"
#include "sim/device_model/engine_state.hpp"
#include "sim/device_model/lazy_memory.hpp"
#include "sim/device_model/modeled_clock.hpp"
#include "sim/device_model/vram.hpp"
#include "common/profiles/profile.hpp"

#include <cudabridge/cpp/kinds.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

namespace cudabridge::nv {

struct device_model_options {
    unsigned compute_threads = 0;           // host threads of the compute engine; 0: all cores
    std::filesystem::path live_state_file;  // shared live state; empty: private to this model
    std::string device_id;                  // for log messages
    uint32_t link_gen = 0;                  // PCIe generation trained to; 0: the board's maximum
    uint32_t link_width = 0;                // lanes trained to; 0: the board's maximum (x16)
    // Where host-kernel and PTX launches find their modules (the family's registry, shared with the
    // userspace driver that loads them); null: host kernels fail with CB_ERR_UNSUPPORTED.
    std::shared_ptr<const module_registry> modules;
};

class device_model final : public sdk::endpoint_model {
public:
    // Throws sdk::status_error (CB_ERR_OUT_OF_MEMORY when VRAM's address space cannot be
    // reserved) or std::runtime_error (the live state file cannot be used).
    device_model(const sdk::host& host, const gpu_profile& profile, device_model_options options = {});
    ~device_model() override;

    cb_status config_read(uint32_t offset, void* data, uint32_t size) override;
    cb_status config_write(uint32_t offset, const void* data, uint32_t size) override;
    cb_status bar_info(uint32_t bar, cb_bar_info& out) override;
    cb_status mmio_read(uint32_t bar, uint64_t offset, void* data, uint32_t size) override;
    cb_status mmio_write(uint32_t bar, uint64_t offset, const void* data, uint32_t size) override;
    // BAR1 only: VRAM at the BAR1 window's current position. The userspace driver never moves
    // the window, so a mapping keeps showing the VRAM it showed when it was made.
    cb_status bar_map(uint32_t bar, uint64_t offset, uint64_t size, void*& host) override;
    // FUNCTION, HOT, HARD: hard reset; SOFT: engines; LINK_RETRAIN: nothing in the function.
    cb_status reset(cb_reset_kind kind) override;
    // Starts the command processor; CB_ERR_BUSY when attached already.
    cb_status attach(const cb_endpoint_host_ops& ops) override;
    // Stops and joins the command processor: no DMA or interrupt after it returns.
    void detach() override;

    const gpu_profile& profile() const noexcept { return profile_; }
    const board_identity& identity() const noexcept { return board_; }
    const std::string& device_id() const noexcept { return options_.device_id; }

    // Advances the thermal model as if `seconds` had passed with the engines busy for the
    // fraction `activity` of them (tests and demos; the registers then read the result).
    void simulate_elapsed(double seconds, double activity);

private:
    cb_status bar0_read(uint64_t offset, void* data, uint32_t size);
    cb_status bar0_write(uint64_t offset, const void* data, uint32_t size);
    void carry_out(reset_request request);
    void soft_reset();
    void hard_reset();

    device_model_options options_;
    gpu_profile profile_;
    board_identity board_;
    config_space config_;
    vram vram_;
    lazy_memory instance_memory_;  // BAR3
    modeled_clock clock_;          // PTIMER; before the parts that use it
    engine_state engines_;
    board_telemetry telemetry_;
    compute_engine compute_;
    bar0_registers registers_;
    std::mutex mmio_mutex_;        // config, MMIO and reset calls (transports serialise them too)
    command_processor processor_;  // last: stopped first
};

}  // namespace cudabridge::nv
