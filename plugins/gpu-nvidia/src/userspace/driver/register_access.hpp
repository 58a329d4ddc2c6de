// BAR0 register access for the userspace driver: 32-bit reads and writes, 64-bit values as the
// LO/HI pairs of hw/registers.hpp (read LO first, HI latched; write LO first, HI commits), and
// "sane" reads for registers that can never read all ones on a live device: such a read means the
// device stopped answering (surprise removal, a hung function), and is reported as a loss.
#pragma once

#include "userspace/driver/link_port.hpp"

#include <cstdint>
#include <string>

namespace cudabridge::nv {

class register_access {
public:
    explicit register_access(link_port& port) : port_(port) {}

    // The transport's status; `error` names the register on failure.
    cb_status read(uint32_t reg, uint32_t& value, std::string& error);
    cb_status write(uint32_t reg, uint32_t value, std::string& error);
    // As read, and all ones → CB_ERR_DEVICE_LOST (reported to the port's loss callback).
    cb_status read_sane(uint32_t reg, uint32_t& value, std::string& error);
    // A 64-bit LO/HI pair; all ones in both halves → CB_ERR_DEVICE_LOST.
    cb_status read64(uint32_t lo, uint32_t hi, uint64_t& value, std::string& error);
    cb_status write64(uint32_t lo, uint32_t hi, uint64_t value, std::string& error);

private:
    cb_status lost(uint32_t reg, std::string& error);

    link_port& port_;
};

}  // namespace cudabridge::nv
