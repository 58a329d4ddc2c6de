#include "sim_transport.hpp"

#include <cudabridge/cpp/host.hpp>

namespace cudabridge::test {

namespace {

usb4::sim_link& L(void* instance) { return *static_cast<usb4::sim_link*>(instance); }

template <class F>
cb_status guarded(F&& f) {
    try {
        return f();
    } catch (const sdk::status_error& e) {
        return e.status();
    } catch (...) {
        return CB_ERR_INTERNAL;
    }
}

cb_status config_read(void* i, cb_link*, uint32_t offset, void* data, uint32_t size) {
    return guarded([&] { return L(i).config_read(offset, data, size); });
}
cb_status config_write(void* i, cb_link*, uint32_t offset, const void* data, uint32_t size) {
    return guarded([&] { return L(i).config_write(offset, data, size); });
}
cb_status bar_info(void* i, cb_link*, uint32_t bar, cb_bar_info* out) {
    return guarded([&] { return L(i).bar_info(bar, *out); });
}
cb_status bar_map(void* i, cb_link*, uint32_t bar, uint64_t offset, uint64_t size, void** host) {
    return guarded([&] { return L(i).bar_map(bar, offset, size, *host); });
}
cb_status mmio_read32(void* i, cb_link*, uint32_t bar, uint64_t offset, uint32_t* out) {
    return guarded([&] { return L(i).mmio_read(bar, offset, out, 4); });
}
cb_status mmio_write32(void* i, cb_link*, uint32_t bar, uint64_t offset, uint32_t value) {
    return guarded([&] { return L(i).mmio_write(bar, offset, &value, 4, CB_MMIO_DEVICE_NGNRNE); });
}
cb_status mmio_read64(void* i, cb_link*, uint32_t bar, uint64_t offset, uint64_t* out) {
    return guarded([&] { return L(i).mmio_read(bar, offset, out, 8); });
}
cb_status mmio_write64(void* i, cb_link*, uint32_t bar, uint64_t offset, uint64_t value) {
    return guarded([&] { return L(i).mmio_write(bar, offset, &value, 8, CB_MMIO_DEVICE_NGNRNE); });
}
cb_status mmio_write_block(void* i, cb_link*, uint32_t bar, uint64_t offset, const void* data, size_t size,
                           cb_mmio_mapping mapping) {
    return guarded([&] { return L(i).mmio_write(bar, offset, data, static_cast<uint32_t>(size), mapping); });
}
cb_status mmio_read_block(void* i, cb_link*, uint32_t bar, uint64_t offset, void* data, size_t size) {
    return guarded([&] { return L(i).mmio_read(bar, offset, data, static_cast<uint32_t>(size)); });
}
cb_status dma_map(void* i, cb_link*, void* host, size_t size, cb_dma_direction dir, uint64_t* iova) {
    return guarded([&] { return L(i).dma_map(host, size, dir, *iova); });
}
cb_status dma_unmap(void* i, cb_link*, uint64_t iova, size_t size) {
    return guarded([&] { return L(i).dma_unmap(iova, size); });
}
cb_status dma_limits(void* i, cb_link*, cb_dma_limits* out) {
    return guarded([&] { return L(i).dma_limits(*out); });
}
cb_status set_interrupt_handler(void* i, cb_link*, cb_interrupt_handler handler, void* user) {
    return guarded([&] { return L(i).set_interrupt_handler(handler, user); });
}
cb_status link_status(void* i, cb_link*, cb_link_status* out) {
    return guarded([&] { return L(i).status(*out); });
}
cb_status reset_link(void* i, cb_link*, cb_reset_kind kind) {
    return guarded([&] { return L(i).reset(kind); });
}

}  // namespace

const cb_transport_table* sim_transport_table() {
    static const cb_transport_table table = [] {
        cb_transport_table t{};
        t.struct_size = sizeof t;
        t.config_read = &config_read;
        t.config_write = &config_write;
        t.bar_info = &bar_info;
        t.bar_map = &bar_map;
        t.mmio_read32 = &mmio_read32;
        t.mmio_write32 = &mmio_write32;
        t.mmio_read64 = &mmio_read64;
        t.mmio_write64 = &mmio_write64;
        t.mmio_write_block = &mmio_write_block;
        t.mmio_read_block = &mmio_read_block;
        t.dma_map = &dma_map;
        t.dma_unmap = &dma_unmap;
        t.dma_limits = &dma_limits;
        t.set_interrupt_handler = &set_interrupt_handler;
        t.link_status = &link_status;
        t.reset_link = &reset_link;
        return t;
    }();
    return &table;
}

}  // namespace cudabridge::test
