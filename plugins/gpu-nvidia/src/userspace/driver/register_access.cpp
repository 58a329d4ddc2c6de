#include "userspace/driver/register_access.hpp"

#include "userspace/driver/status_text.hpp"

namespace cudabridge::nv {

namespace {
constexpr uint32_t bar0 = 0;
constexpr uint32_t all_ones = 0xFFFFFFFFu;
}  // namespace

cb_status register_access::read(uint32_t reg, uint32_t& value, std::string& error) {
    cb_status st = port_.read32(bar0, reg, value);
    if (st != CB_OK) error = "reading register " + hex(reg, 8) + " failed: " + status_name(st);
    return st;
}

cb_status register_access::write(uint32_t reg, uint32_t value, std::string& error) {
    cb_status st = port_.write32(bar0, reg, value);
    if (st != CB_OK) error = "writing register " + hex(reg, 8) + " failed: " + status_name(st);
    return st;
}

cb_status register_access::lost(uint32_t reg, std::string& error) {
    error = "register " + hex(reg, 8) + " read 0xffffffff: the device stopped responding";
    port_.report_loss(error);
    return CB_ERR_DEVICE_LOST;
}

cb_status register_access::read_sane(uint32_t reg, uint32_t& value, std::string& error) {
    if (cb_status st = read(reg, value, error); st != CB_OK) return st;
    return value == all_ones ? lost(reg, error) : CB_OK;
}

cb_status register_access::read64(uint32_t lo, uint32_t hi, uint64_t& value, std::string& error) {
    uint32_t l = 0, h = 0;
    if (cb_status st = read(lo, l, error); st != CB_OK) return st;
    if (cb_status st = read(hi, h, error); st != CB_OK) return st;
    if (l == all_ones && h == all_ones) return lost(lo, error);
    value = (static_cast<uint64_t>(h) << 32) | l;
    return CB_OK;
}

cb_status register_access::write64(uint32_t lo, uint32_t hi, uint64_t value, std::string& error) {
    if (cb_status st = write(lo, static_cast<uint32_t>(value), error); st != CB_OK) return st;
    return write(hi, static_cast<uint32_t>(value >> 32), error);
}

}  // namespace cudabridge::nv
