#include "sim/device_model/config_space.hpp"

#include "common/hw/registers.hpp"

#include <cstring>

namespace cudabridge::nv {
namespace {

// Offsets (PCI Local Bus 3.0 type 0 header; PCI Express Base 4.0 §7.5.3).
constexpr uint32_t cfg_command = 0x04, cfg_status = 0x06, cfg_revision = 0x08, cfg_class = 0x09;
constexpr uint32_t cfg_cache_line = 0x0C, cfg_bar0 = 0x10, cfg_bar1 = 0x14, cfg_bar3 = 0x1C;
constexpr uint32_t cfg_subsystem_vendor = 0x2C, cfg_subsystem_id = 0x2E, cfg_cap_pointer = 0x34;
constexpr uint32_t cfg_interrupt_line = 0x3C, cfg_interrupt_pin = 0x3D;
constexpr uint32_t cap_pm = 0x60, cap_msi = 0x68, cap_pcie = 0x78;

constexpr uint16_t command_memory_space = 1u << 1;
constexpr uint16_t command_bus_master = 1u << 2;
// Memory space, bus master, parity error response, SERR#, INTx disable; no I/O BAR, so bit 0 is 0.
constexpr uint16_t command_writable = 0x0546;
constexpr uint16_t status_capabilities = 1u << 4;

constexpr uint32_t pcie_device_control = cap_pcie + 0x08;
constexpr uint16_t device_control_flr = 1u << 15;

}  // namespace

uint64_t config_space::bar_size(const board_identity& board, uint32_t bar) {
    switch (bar) {
    case 0:
        return hw::bar0_size;
    case 1:
        return board.bar1_size;
    case 3:
        return hw::bar3_size;
    default:
        return 0;
    }
}

config_space::config_space(const board_identity& board) : board_(board) {
    build_header(board);
    build_capabilities(board);
}

void config_space::set(uint32_t offset, uint32_t size, uint64_t value, uint64_t writable) {
    for (uint32_t i = 0; i < size; ++i) {
        value_[offset + i] = static_cast<uint8_t>(value >> (8 * i));
        writable_[offset + i] = static_cast<uint8_t>(writable >> (8 * i));
    }
}

uint64_t config_space::get(uint32_t offset, uint32_t size) const {
    uint64_t v = 0;
    for (uint32_t i = 0; i < size; ++i) v |= uint64_t{value_[offset + i]} << (8 * i);
    return v;
}

void config_space::build_header(const board_identity& board) {
    set(0x00, 2, hw::pci_vendor_nvidia);
    set(0x02, 2, board.device_id);
    // Memory space and bus master come up enabled, as the host's enumeration leaves them (the
    // simulated fabric has no enumeration step of its own).
    set(cfg_command, 2, command_memory_space | command_bus_master, command_writable);
    set(cfg_status, 2, status_capabilities);
    set(cfg_revision, 1, board.revision);
    set(cfg_class, 3, board.pci_class);
    set(cfg_cache_line, 1, 0, 0xFF);
    build_bar(cfg_bar0, hw::bar0_size, false, false);
    build_bar(cfg_bar1, board.bar1_size, true, true);
    build_bar(cfg_bar3, hw::bar3_size, true, true);
    set(cfg_subsystem_vendor, 2, board.subsystem_vendor);
    set(cfg_subsystem_id, 2, board.subsystem_id);
    set(cfg_cap_pointer, 1, cap_pm);
    set(cfg_interrupt_line, 1, 0xFF, 0xFF);
    set(cfg_interrupt_pin, 1, 1);  // INTA#
}

// The address bits above the size are writable; the low four bits are the BAR's type.
void config_space::build_bar(uint32_t offset, uint64_t size, bool is_64bit, bool prefetchable) {
    const uint64_t flags = (is_64bit ? 0x4u : 0x0u) | (prefetchable ? 0x8u : 0x0u);
    const uint64_t address_bits = ~(size - 1) & ~uint64_t{0xF};
    if (is_64bit)
        set(offset, 8, flags, address_bits);
    else
        set(offset, 4, flags, address_bits & 0xFFFFFFFFu);
}

void config_space::build_capabilities(const board_identity& board) {
    // Power management (version 3), PMCSR power state writable.
    set(cap_pm + 0, 1, 0x01);
    set(cap_pm + 1, 1, cap_msi);
    set(cap_pm + 2, 2, 0x0003);
    set(cap_pm + 4, 2, 0x0008, 0x0003);  // D0, No_Soft_Reset
    // MSI, 64-bit address, one vector; enable, address and data writable.
    set(cap_msi + 0, 1, 0x05);
    set(cap_msi + 1, 1, cap_pcie);
    set(cap_msi + 2, 2, 0x0080, 0x0001);
    set(cap_msi + 4, 4, 0, 0xFFFFFFFC);
    set(cap_msi + 8, 4, 0, 0xFFFFFFFF);
    set(cap_msi + 12, 2, 0, 0xFFFF);
    // PCI Express capability version 2, endpoint; the last in the list.
    set(cap_pcie + 0, 1, 0x10);
    set(cap_pcie + 1, 1, 0x00);
    set(cap_pcie + 2, 2, 0x0002);
    // Device capabilities: max payload 256 B, role-based error reporting, FLR capable.
    set(cap_pcie + 0x04, 4, 0x1 | (1u << 15) | (1u << 28));
    // Device control: relaxed ordering, no snoop, max read request 512 B; FLR handled in write().
    set(pcie_device_control, 2, 0x2810, 0x7FFF);
    set(cap_pcie + 0x0A, 2, 0);
    // Link capabilities / control / status: the board's maximum, and what the link trained to.
    set(cap_pcie + 0x0C, 4, board.max_link_gen | (board.max_link_width << 4));
    set(cap_pcie + 0x10, 2, 0, 0x00C3);
    set(cap_pcie + 0x12, 2, board.link_gen | (board.link_width << 4) | (1u << 12));
    // Link capabilities 2: supported speeds vector; link control 2: target speed.
    set(cap_pcie + 0x2C, 4, ((1u << board.max_link_gen) - 1) << 1);
    set(cap_pcie + 0x30, 2, board.max_link_gen, 0x000F);
}

cb_status config_space::read(uint32_t offset, void* data, uint32_t size) const {
    if (data == nullptr || size == 0 || offset >= config_space_size || size > config_space_size - offset)
        return CB_ERR_INVALID_ARGUMENT;
    std::memcpy(data, value_.data() + offset, size);
    return CB_OK;
}

cb_status config_space::write(uint32_t offset, const void* data, uint32_t size, config_effect& effect) {
    effect = config_effect::none;
    if (data == nullptr || (size != 1 && size != 2 && size != 4) || offset % size != 0 || offset >= config_space_size ||
        size > config_space_size - offset)
        return CB_ERR_INVALID_ARGUMENT;
    const auto* in = static_cast<const uint8_t*>(data);
    for (uint32_t i = 0; i < size; ++i) {
        const uint32_t at = offset + i;
        value_[at] = static_cast<uint8_t>((value_[at] & ~writable_[at]) | (in[i] & writable_[at]));
    }
    // Initiate Function Level Reset: a write-only bit that always reads 0.
    const uint32_t flr_byte = pcie_device_control + 1;
    if (offset <= flr_byte && flr_byte < offset + size && (in[flr_byte - offset] & (device_control_flr >> 8)))
        effect = config_effect::function_level_reset;
    return CB_OK;
}

cb_status config_space::bar_info(uint32_t bar, cb_bar_info& out) const {
    if (bar > 5) return CB_ERR_INVALID_ARGUMENT;
    out = cb_bar_info{};
    out.struct_size = sizeof out;
    out.index = bar;
    out.size = bar_size(board_, bar);
    if (out.size == 0) return CB_OK;
    const uint32_t offset = cfg_bar0 + 4 * bar;
    out.is_64bit = bar != 0;
    out.prefetchable = bar != 0;
    out.bus_address = get(offset, out.is_64bit ? 8 : 4) & ~uint64_t{0xF};
    return CB_OK;
}

bool config_space::memory_space_enabled() const { return get(cfg_command, 2) & command_memory_space; }
bool config_space::bus_master_enabled() const { return get(cfg_command, 2) & command_bus_master; }

}  // namespace cudabridge::nv
