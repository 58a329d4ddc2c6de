#include "endpoint_link.hpp"

#include <cudabridge/cpp/host.hpp>
#include <cudabridge/cpp/records.hpp>

#include <algorithm>
#include <cstring>

namespace loopback {

namespace {
// Model-table MMIO takes a 32-bit size; larger blocks go in pieces (a multiple of 4 bytes).
constexpr size_t max_piece = 1u << 20;
}  // namespace

endpoint_link::endpoint_link(std::shared_ptr<hosted_model> model) : model_(std::move(model)) {
    ops_.struct_size = sizeof ops_;
    ops_.context = this;
    ops_.dma_read = &endpoint_link::dma_read;
    ops_.dma_write = &endpoint_link::dma_write;
    ops_.raise_interrupt = &endpoint_link::raise_interrupt;
    ops_.modeled_time_ns = nullptr;  // nothing is modeled: the model times its work by the wall clock
    std::lock_guard lock(model_->calls);
    const cb_status st = model_->table->attach(model_->model, &ops_);
    if (st != CB_OK) throw cudabridge::sdk::status_error(st, "the endpoint model refused to attach to the loopback");
    attached_ = true;
}

endpoint_link::~endpoint_link() { detach(); }

void endpoint_link::detach() {
    std::lock_guard lock(model_->calls);
    if (!attached_.exchange(false)) return;
    model_->table->detach(model_->model);
    iommu_.clear();
}

template <class Call>
cb_status endpoint_link::with_model(Call call) {
    std::lock_guard lock(model_->calls);
    if (!attached_) return CB_ERR_DEVICE_LOST;
    return call(*model_->table, model_->model);
}

cb_status endpoint_link::config_read(uint32_t offset, void* data, uint32_t size) {
    return with_model([&](const cb_endpoint_model_table& t, void* m) { return t.config_read(m, offset, data, size); });
}

cb_status endpoint_link::config_write(uint32_t offset, const void* data, uint32_t size) {
    return with_model([&](const cb_endpoint_model_table& t, void* m) { return t.config_write(m, offset, data, size); });
}

cb_status endpoint_link::bar_info(uint32_t bar, cb_bar_info& out) {
    out.struct_size = sizeof out;
    return with_model([&](const cb_endpoint_model_table& t, void* m) { return t.bar_info(m, bar, &out); });
}

cb_status endpoint_link::mmio_read(uint32_t bar, uint64_t offset, void* data, size_t size) {
    auto* bytes = static_cast<unsigned char*>(data);
    for (size_t done = 0; done < size;) {
        const auto n = static_cast<uint32_t>(std::min(size - done, max_piece));
        const cb_status st = with_model([&](const cb_endpoint_model_table& t, void* m) {
            return t.mmio_read(m, bar, offset + done, bytes + done, n);
        });
        if (st != CB_OK) return st;
        done += n;
    }
    return CB_OK;
}

cb_status endpoint_link::mmio_write(uint32_t bar, uint64_t offset, const void* data, size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (size_t done = 0; done < size;) {
        const auto n = static_cast<uint32_t>(std::min(size - done, max_piece));
        const cb_status st = with_model([&](const cb_endpoint_model_table& t, void* m) {
            return t.mmio_write(m, bar, offset + done, bytes + done, n);
        });
        if (st != CB_OK) return st;
        done += n;
    }
    return CB_OK;
}

cb_status endpoint_link::reset(cb_reset_kind kind) {
    if (kind == CB_RESET_LINK_RETRAIN) return attached_ ? CB_OK : CB_ERR_DEVICE_LOST;  // no link to train
    return with_model([&](const cb_endpoint_model_table& t, void* m) { return t.reset(m, kind); });
}

cb_status endpoint_link::set_interrupt_handler(cb_interrupt_handler handler, void* user) {
    std::lock_guard lock(irq_mutex_);
    irq_handler_ = handler;
    irq_user_ = user;
    return CB_OK;
}

cb_status endpoint_link::status(cb_link_status& out) {
    cb_link_status s{};
    s.struct_size = sizeof s;
    s.up = attached_ ? 1 : 0;
    s.generation = CB_LINK_UNKNOWN;  // no cable: no generation, lanes or bandwidth to report
    s.bytes_to_device = bytes_to_device_;
    s.bytes_from_device = bytes_from_device_;
    s.packets = transfers_;  // one per DMA transfer: there are no packets
    s.uncorrectable_errors = dma_faults_;
    s.is_simulated = 1;
    cudabridge::sdk::copy_record(&out, s);  // only what the caller's record holds
    return CB_OK;
}

cb_status endpoint_link::dma_read(void* self, uint64_t iova, void* dst, size_t size) {
    auto* link = static_cast<endpoint_link*>(self);
    const cb_status st = link->iommu_.device_read(iova, dst, size);
    ++(st == CB_OK ? link->transfers_ : link->dma_faults_);
    if (st == CB_OK) link->bytes_to_device_ += size;
    return st;
}

cb_status endpoint_link::dma_write(void* self, uint64_t iova, const void* src, size_t size) {
    auto* link = static_cast<endpoint_link*>(self);
    const cb_status st = link->iommu_.device_write(iova, src, size);
    ++(st == CB_OK ? link->transfers_ : link->dma_faults_);
    if (st == CB_OK) link->bytes_from_device_ += size;
    return st;
}

cb_status endpoint_link::raise_interrupt(void* self, uint32_t vector) {
    auto* link = static_cast<endpoint_link*>(self);
    std::lock_guard lock(link->irq_mutex_);
    if (link->irq_handler_ != nullptr) link->irq_handler_(link->irq_user_, vector);
    return CB_OK;
}

}  // namespace loopback
