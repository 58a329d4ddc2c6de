// The registers through which drivers share one board: device memory reservations and the
// process table (hw::reg::mem_* and proc_*). Kept apart from bar0_registers because they speak
// for every process attached to the board, not for this process's engines.
#pragma once

#include "sim/device_model/board_telemetry.hpp"

#include <cstdint>
#include <vector>

namespace cudabridge::nv {

class process_registers {
public:
    explicit process_registers(board_telemetry& telemetry) : telemetry_(telemetry) {}

    // false: not one of these registers.
    bool read(uint32_t offset, uint32_t& value);
    bool write(uint32_t offset, uint32_t value);

private:
    const live_process* selected() const;

    board_telemetry& telemetry_;
    uint32_t reserve_lo_ = 0, release_lo_ = 0;  // held until HI
    int32_t reserve_status_ = 0;
    uint32_t mem_used_high_latch_ = 0;
    std::vector<live_process> snapshot_;
    uint32_t row_ = 0;
};

}  // namespace cudabridge::nv
