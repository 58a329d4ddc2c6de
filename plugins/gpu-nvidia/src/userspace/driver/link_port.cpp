#include "userspace/driver/link_port.hpp"

namespace cudabridge::nv {

link_port::link_port(const cb_transport_table* table, void* instance, cb_link* link)
    : table_(table), instance_(instance), link_(link) {}

cb_status link_port::seen(cb_status status, const char* call) {
    if ((status == CB_ERR_DEVICE_LOST || status == CB_ERR_LINK_DOWN) && on_loss_)
        on_loss_(std::string("the transport's ") + call + " reported " +
                     (status == CB_ERR_DEVICE_LOST ? "the device lost" : "the link down"),
                 status);
    return status;
}

// One transport entry, or CB_ERR_UNSUPPORTED when the table lacks it.
#define CB_US_CALL(entry, ...)                                                                                    \
    (CB_HAS_FIELD(table_, cb_transport_table, entry) ? seen(table_->entry(instance_, link_, __VA_ARGS__), #entry) \
                                                     : CB_ERR_UNSUPPORTED)

cb_status link_port::config_read(uint32_t offset, void* data, uint32_t size) {
    return CB_US_CALL(config_read, offset, data, size);
}

cb_status link_port::bar_info(uint32_t bar, cb_bar_info& out) {
    out = cb_bar_info{};
    out.struct_size = sizeof out;
    return CB_US_CALL(bar_info, bar, &out);
}

cb_status link_port::read32(uint32_t bar, uint64_t offset, uint32_t& out) {
    out = 0xFFFFFFFFu;
    return CB_US_CALL(mmio_read32, bar, offset, &out);
}

cb_status link_port::write32(uint32_t bar, uint64_t offset, uint32_t value) {
    return CB_US_CALL(mmio_write32, bar, offset, value);
}

cb_status link_port::bar_map(uint32_t bar, uint64_t offset, uint64_t size, void*& host) {
    host = nullptr;
    if (CB_HAS_FIELD(table_, cb_transport_table, bar_map) && !table_->bar_map) return CB_ERR_UNSUPPORTED;
    return CB_US_CALL(bar_map, bar, offset, size, &host);
}

cb_status link_port::dma_map(const void* host, size_t size, cb_dma_direction direction, uint64_t& iova) {
    // The transport takes a non-const pointer for both directions; a to-device mapping is only read.
    return CB_US_CALL(dma_map, const_cast<void*>(host), size, direction, &iova);
}

cb_status link_port::dma_unmap(uint64_t iova, size_t size) { return CB_US_CALL(dma_unmap, iova, size); }

cb_status link_port::dma_limits(cb_dma_limits& out) {
    out = cb_dma_limits{};
    out.struct_size = sizeof out;
    return CB_US_CALL(dma_limits, &out);
}

cb_status link_port::set_interrupt_handler(cb_interrupt_handler handler, void* user) {
    return CB_US_CALL(set_interrupt_handler, handler, user);
}

cb_status link_port::link_status(cb_link_status& out) {
    out = cb_link_status{};
    out.struct_size = sizeof out;
    return CB_US_CALL(link_status, &out);
}

cb_status link_port::reset_link(cb_reset_kind kind) { return CB_US_CALL(reset_link, kind); }

#undef CB_US_CALL

}  // namespace cudabridge::nv
