// BAR0: the 32-bit register file. Identification at NVIDIA's offsets (BOOT_0, PMC_ENABLE,
// BOOT_42, PTIMER), our block at hw::cb_block (ring, fences, interrupts, VRAM, telemetry,
// settings, bounds). Unknown offsets read 0 and ignore writes. PTIMER reads the modeled clock.
//
// 64-bit registers are LO/HI pairs: a LO write is held until its HI write commits the pair;
// reads show the committed value. Reading PTIMER_TIME_0 or FENCE_DONE_LO latches the high half
// that the HI register then returns, so the pair reads consistently.
#pragma once

#include "sim/device_model/board_identity.hpp"
#include "sim/device_model/board_telemetry.hpp"
#include "sim/device_model/engine_state.hpp"
#include "sim/device_model/modeled_clock.hpp"
#include "sim/device_model/process_registers.hpp"

#include <cudabridge/abi.h>

#include <atomic>
#include <cstdint>

namespace cudabridge::nv {

// A reset a register write asks the device to carry out.
enum class reset_request { none, soft, hard };

class bar0_registers {
public:
    bar0_registers(const board_identity& board, const gpu_profile& profile, engine_state& engines,
                   board_telemetry& telemetry, modeled_clock& clock, unsigned compute_threads);

    uint32_t read(uint32_t offset);
    reset_request write(uint32_t offset, uint32_t value);

    // The VRAM offset BAR1 offset 0 shows.
    uint64_t bar1_window() const noexcept { return bar1_window_.load(); }

    // Hard reset: held LO halves, the BAR1 window and settings_error back to power-on values.
    void hard_reset();

private:
    bool read_identification(uint32_t offset, uint32_t& value);
    bool read_block(uint32_t offset, uint32_t& value);
    reset_request write_block(uint32_t offset, uint32_t value);

    const board_identity& board_;
    const gpu_profile& profile_;
    engine_state& engines_;
    board_telemetry& telemetry_;
    modeled_clock& clock_;  // PTIMER
    unsigned compute_threads_;

    uint32_t ptimer_high_latch_ = 0;
    uint32_t fence_done_high_latch_ = 0;
    uint32_t kernel_time_high_latch_ = 0;
    uint32_t progress_high_latch_ = 0;
    uint32_t ring_base_lo_ = 0, fence_addr_lo_ = 0, bar1_window_lo_ = 0;  // held until HI
    std::atomic<uint64_t> bar1_window_{0};
    cb_status settings_error_ = CB_OK;
    process_registers shared_;  // memory reservations and the process table
};

}  // namespace cudabridge::nv
