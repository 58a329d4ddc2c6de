#include "sim/device_model/process_registers.hpp"

#include "common/hw/registers.hpp"

#include <cudabridge/abi.h>

#include <string>

namespace cudabridge::nv {
namespace {

uint64_t pair(uint32_t high, uint32_t low) { return (uint64_t{high} << 32) | low; }

// Four bytes of a process name, little-endian, zero past its end.
uint32_t name_word(const std::string& name, uint32_t word) {
    uint32_t value = 0;
    for (uint32_t i = 0; i < 4; ++i) {
        const size_t at = size_t{word} * 4 + i;
        const auto byte = at < name.size() ? static_cast<unsigned char>(name[at]) : 0u;
        value |= uint32_t{byte} << (8 * i);
    }
    return value;
}

}  // namespace

const live_process* process_registers::selected() const { return row_ < snapshot_.size() ? &snapshot_[row_] : nullptr; }

bool process_registers::read(uint32_t offset, uint32_t& value) {
    namespace r = hw::reg;
    const live_process none;
    const live_process& p = selected() ? *selected() : none;
    switch (offset) {
    case r::mem_status:
        value = static_cast<uint32_t>(reserve_status_);
        return true;
    case r::mem_used_lo: {
        const uint64_t used = telemetry_.memory_used();
        mem_used_high_latch_ = static_cast<uint32_t>(used >> 32);
        value = static_cast<uint32_t>(used);
        return true;
    }
    case r::mem_used_hi:
        value = mem_used_high_latch_;
        return true;
    case r::hard_resets:
        value = static_cast<uint32_t>(telemetry_.hard_resets());
        return true;
    case r::proc_count:
        snapshot_ = telemetry_.processes();
        value = static_cast<uint32_t>(snapshot_.size());
        return true;
    case r::proc_pid:
        value = static_cast<uint32_t>(p.pid);
        return true;
    case r::proc_flags:
        value = p.computes ? hw::proc_computes : 0;
        return true;
    case r::proc_queued:
        value = p.queued;
        return true;
    case r::proc_memory_lo:
    case r::proc_memory_hi:
        value = static_cast<uint32_t>(offset == r::proc_memory_lo ? p.memory_bytes : p.memory_bytes >> 32);
        return true;
    case r::proc_start_lo:
    case r::proc_start_hi:
        value = static_cast<uint32_t>(offset == r::proc_start_lo ? p.start_unix_ns : p.start_unix_ns >> 32);
        return true;
    default:
        if (offset >= r::proc_name_0 && offset < r::proc_name_0 + 4 * hw::proc_name_words && offset % 4 == 0) {
            value = name_word(p.name, (offset - r::proc_name_0) / 4);
            return true;
        }
        return false;
    }
}

bool process_registers::write(uint32_t offset, uint32_t value) {
    namespace r = hw::reg;
    switch (offset) {
    case r::mem_reserve_lo:
        reserve_lo_ = value;
        return true;
    case r::mem_reserve_hi:
        reserve_status_ = telemetry_.reserve_memory(pair(value, reserve_lo_)) ? CB_OK : CB_ERR_OUT_OF_MEMORY;
        return true;
    case r::mem_release_lo:
        release_lo_ = value;
        return true;
    case r::mem_release_hi:
        telemetry_.release_memory(pair(value, release_lo_));
        return true;
    case r::proc_select:
        row_ = value;
        return true;
    default:
        return false;
    }
}

}  // namespace cudabridge::nv
