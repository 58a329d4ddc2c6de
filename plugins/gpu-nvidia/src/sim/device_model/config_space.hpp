// PCI configuration space of the simulated GPU (4 KiB, PCIe extended): identity, the command
// register, three BARs that size as real ones do (write all-ones, read back the size mask),
// and a capability list (power management -> MSI -> PCI Express, reporting the link).
//
// Every register is a value plus a mask of writable bits; a BAR's writable bits are its address
// bits, so sizing needs no special case. The layout follows what NVIDIA boards show in lspci:
// BAR0 at 0x10, BAR1 at 0x14/0x18, BAR3 at 0x1C/0x20, capabilities at 0x60 / 0x68 / 0x78.
#pragma once

#include "sim/device_model/board_identity.hpp"

#include <cudabridge/endpoint_model.h>

#include <array>
#include <cstdint>

namespace cudabridge::nv {

inline constexpr uint32_t config_space_size = 4096;

// What a config write asks of the rest of the device.
enum class config_effect { none, function_level_reset };

class config_space {
public:
    explicit config_space(const board_identity& board);

    // Any size inside the 4 KiB; writes of 1, 2 or 4 bytes, naturally aligned.
    cb_status read(uint32_t offset, void* data, uint32_t size) const;
    cb_status write(uint32_t offset, const void* data, uint32_t size, config_effect& effect);

    // BARs 0, 1 and 3 are implemented; 2, 4 and 5 report size 0.
    cb_status bar_info(uint32_t bar, cb_bar_info& out) const;
    static uint64_t bar_size(const board_identity& board, uint32_t bar);

    bool memory_space_enabled() const;
    bool bus_master_enabled() const;

private:
    void set(uint32_t offset, uint32_t size, uint64_t value, uint64_t writable = 0);
    uint64_t get(uint32_t offset, uint32_t size) const;
    void build_header(const board_identity& board);
    void build_bar(uint32_t offset, uint64_t size, bool is_64bit, bool prefetchable);
    void build_capabilities(const board_identity& board);

    board_identity board_;
    std::array<uint8_t, config_space_size> value_{};
    std::array<uint8_t, config_space_size> writable_{};
};

}  // namespace cudabridge::nv
