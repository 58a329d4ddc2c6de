// The userspace driver's view of one transport link: the transport table's calls bound to an
// instance and a link, with a missing entry answered CB_ERR_UNSUPPORTED. Every call that reports
// CB_ERR_DEVICE_LOST or CB_ERR_LINK_DOWN tells the loss callback (with which), so the driver learns of a
// surprise removal from whichever call meets it first.
#pragma once

#include <cudabridge/transport.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace cudabridge::nv {

class link_port {
public:
    // `cause`: CB_ERR_LINK_DOWN when the link went down, CB_ERR_DEVICE_LOST otherwise.
    using loss_callback = std::function<void(const std::string& reason, cb_status cause)>;

    link_port(const cb_transport_table* table, void* instance, cb_link* link);

    // Called with a reason each time a transport call reports the device or the link gone.
    void on_loss(loss_callback callback) { on_loss_ = std::move(callback); }
    bool valid() const noexcept { return table_ != nullptr && link_ != nullptr; }
    // Tells the loss callback directly (a register read that only a dead device returns).
    void report_loss(const std::string& reason) {
        if (on_loss_) on_loss_(reason, CB_ERR_DEVICE_LOST);
    }

    cb_status config_read(uint32_t offset, void* data, uint32_t size);
    cb_status bar_info(uint32_t bar, cb_bar_info& out);
    cb_status read32(uint32_t bar, uint64_t offset, uint32_t& out);
    cb_status write32(uint32_t bar, uint64_t offset, uint32_t value);
    // A host mapping of a memory BAR's range (transport bar_map, ABI 1.11).
    cb_status bar_map(uint32_t bar, uint64_t offset, uint64_t size, void*& host);
    cb_status dma_map(const void* host, size_t size, cb_dma_direction direction, uint64_t& iova);
    cb_status dma_unmap(uint64_t iova, size_t size);
    cb_status dma_limits(cb_dma_limits& out);
    cb_status set_interrupt_handler(cb_interrupt_handler handler, void* user);
    cb_status link_status(cb_link_status& out);
    cb_status reset_link(cb_reset_kind kind);

private:
    cb_status seen(cb_status status, const char* call);

    const cb_transport_table* table_;
    void* instance_;
    cb_link* link_;
    loss_callback on_loss_;
};

}  // namespace cudabridge::nv
