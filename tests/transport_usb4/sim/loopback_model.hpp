// A small endpoint model for transport tests: a PCIe function with a DMA engine, so tests can
// drive config, MMIO, DMA both ways and interrupts through a transport without a GPU family.
//
// BAR0 registers (32-bit unless noted):
//   0x00 ID (0xCB0100DE)         0x08 DMA_IOVA (64-bit)      0x10 DMA_SIZE
//   0x14 DMA_OFFSET (into BAR1)  0x18 COMMAND: 1 = read host memory into BAR1,
//                                               2 = write BAR1 to host memory
//   0x1C STATUS: 0 idle, 1 done, else (uint32)(-cb_status) of the failed DMA
// BAR1: device memory, read and written in blocks. Completion raises MSI vector 0.
// When the host offers the link's modeled clock (ABI 1.3 modeled_time_ns), the model records how
// much it advanced across its last DMA, as a GPU model prices a copy.
#pragma once

#include <cudabridge/cpp/plugin.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

namespace cudabridge::test {

class loopback_model final : public sdk::endpoint_model {
public:
    static constexpr uint32_t id_value = 0xCB0100DE;
    static constexpr uint16_t vendor = 0x1d0f;  // any non-NVIDIA vendor id
    static constexpr uint16_t device = 0xcb01;

    loopback_model(const sdk::host& h, size_t memory_bytes) : endpoint_model(h), memory_(memory_bytes) {}

    cb_status config_read(uint32_t offset, void* data, uint32_t size) override {
        uint8_t cfg[64] = {};
        std::memcpy(cfg + 0, &vendor, 2);
        std::memcpy(cfg + 2, &device, 2);
        cfg[0x0b] = 0x03;  // class: display controller
        if (offset + size > sizeof cfg) return CB_ERR_INVALID_ARGUMENT;
        std::memcpy(data, cfg + offset, size);
        return CB_OK;
    }
    cb_status config_write(uint32_t, const void*, uint32_t) override { return CB_OK; }
    cb_status bar_info(uint32_t bar, cb_bar_info& out) override {
        if (bar > 1) return CB_ERR_NOT_FOUND;
        out.index = bar;
        out.size = bar == 0 ? 4096 : memory_.size();
        out.is_64bit = 1;
        out.prefetchable = bar == 1;
        return CB_OK;
    }
    cb_status mmio_read(uint32_t bar, uint64_t offset, void* data, uint32_t size) override {
        if (bar == 1) {
            if (offset + size > memory_.size()) return CB_ERR_INVALID_ARGUMENT;
            std::memcpy(data, memory_.data() + offset, size);
            return CB_OK;
        }
        uint64_t v = 0;
        switch (offset) {
        case 0x00:
            v = id_value;
            break;
        case 0x08:
            v = iova_;
            break;
        case 0x10:
            v = size_;
            break;
        case 0x14:
            v = dev_offset_;
            break;
        case 0x1c:
            v = status_;
            break;
        default:
            return CB_ERR_INVALID_ARGUMENT;
        }
        std::memcpy(data, &v, size);
        return CB_OK;
    }
    cb_status mmio_write(uint32_t bar, uint64_t offset, const void* data, uint32_t size) override {
        if (bar == 1) {
            if (offset + size > memory_.size()) return CB_ERR_INVALID_ARGUMENT;
            std::memcpy(memory_.data() + offset, data, size);
            return CB_OK;
        }
        uint64_t v = 0;
        std::memcpy(&v, data, size);
        switch (offset) {
        case 0x08:
            iova_ = v;
            return CB_OK;
        case 0x10:
            size_ = static_cast<uint32_t>(v);
            return CB_OK;
        case 0x14:
            dev_offset_ = static_cast<uint32_t>(v);
            return CB_OK;
        case 0x18:
            return run(static_cast<uint32_t>(v));
        default:
            return CB_ERR_INVALID_ARGUMENT;
        }
    }
    cb_status attach(const cb_endpoint_host_ops& ops) override {
        ops_ = cb_endpoint_host_ops{};
        std::memcpy(&ops_, &ops, std::min<size_t>(ops.struct_size, sizeof ops_));  // an older host's table is shorter
        return CB_OK;
    }
    void detach() override { ops_ = {}; }

    std::vector<uint8_t>& memory() { return memory_; }
    bool has_modeled_clock() const { return ops_.modeled_time_ns != nullptr; }
    // The link's modeled clock now (0 without one).
    uint64_t link_time_ns() const { return ops_.modeled_time_ns ? ops_.modeled_time_ns(ops_.context) : 0; }
    // How far that clock moved across the last DMA.
    uint64_t last_dma_modeled_ns() const { return last_dma_modeled_ns_; }

private:
    cb_status run(uint32_t command) {
        if (!ops_.dma_read || dev_offset_ + static_cast<uint64_t>(size_) > memory_.size())
            return CB_ERR_INVALID_ARGUMENT;
        const uint64_t before = link_time_ns();
        cb_status st = command == 1   ? ops_.dma_read(ops_.context, iova_, memory_.data() + dev_offset_, size_)
                       : command == 2 ? ops_.dma_write(ops_.context, iova_, memory_.data() + dev_offset_, size_)
                                      : CB_ERR_INVALID_ARGUMENT;
        last_dma_modeled_ns_ = link_time_ns() - before;
        status_ = st == CB_OK ? 1u : static_cast<uint32_t>(-st);
        ops_.raise_interrupt(ops_.context, 0);
        return CB_OK;  // the register write itself succeeded; STATUS tells how the DMA went
    }

    std::vector<uint8_t> memory_;
    cb_endpoint_host_ops ops_{};
    uint64_t iova_ = 0;
    uint32_t size_ = 0, dev_offset_ = 0, status_ = 0;
    uint64_t last_dma_modeled_ns_ = 0;
};

}  // namespace cudabridge::test
