// loopback: a transport with no cable. It shows the host one simulated enclosure, hosts the
// endpoint model a GPU family builds for it in this process, and carries the host's config, MMIO
// and DMA straight between the two. Select it with `--transport loopback`; the GPU model it asks
// for is the `gpu_model` parameter (default rtx-5090).
#include "endpoint_link.hpp"
#include "fabric_view.hpp"
#include "hosted_model.hpp"
#include "json_text.hpp"

#include <cudabridge/cpp/plugin.hpp>
#include <cudabridge/cpp/records.hpp>
#include <cudabridge/cpp/text_out.hpp>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>

namespace loopback {

namespace sdk = cudabridge::sdk;

namespace {

// A config-space dword of a model that has no link yet (identity at attach).
uint32_t config_dword(hosted_model& m, uint32_t offset) {
    uint32_t v = 0;
    const cb_status st = m.table->config_read(m.model, offset, &v, sizeof v);
    if (st != CB_OK) throw sdk::status_error(st, "cannot read the endpoint model's config space");
    return v;
}

bool complete(const cb_endpoint_model_table* t) {
    return CB_HAS_FIELD(t, cb_endpoint_model_table, config_read) &&
           CB_HAS_FIELD(t, cb_endpoint_model_table, config_write) &&
           CB_HAS_FIELD(t, cb_endpoint_model_table, bar_info) && CB_HAS_FIELD(t, cb_endpoint_model_table, mmio_read) &&
           CB_HAS_FIELD(t, cb_endpoint_model_table, mmio_write) && CB_HAS_FIELD(t, cb_endpoint_model_table, reset) &&
           CB_HAS_FIELD(t, cb_endpoint_model_table, attach) && CB_HAS_FIELD(t, cb_endpoint_model_table, detach);
}

}  // namespace

class loopback_transport final : public sdk::transport {
public:
    static constexpr sdk::plugin_identity identity{
        "loopback", CB_MAKE_VERSION(1, 0, 0), "MIT",
        "one simulated enclosure with no cable: hosts a GPU family's endpoint model in-process"};

    loopback_transport(const sdk::host& h, const sdk::config&) : transport(h) {
        h.declare(CB_PARAM_STRING, "gpu_model", "rtx-5090",
                  "GPU model profile the enclosure holds ('cudabridge-cli profile list')");
        gpu_model_ = h.param_or("gpu_model", "rtx-5090");
    }
    ~loopback_transport() override {
        if (link_) link_->detach();
    }

    cb_status enumerate(cb_endpoint_info* out, size_t capacity, size_t& count) override {
        std::lock_guard lock(mutex_);
        const auto all = endpoints(gpu_model_, model_.get());
        count = all.size();
        // The caller's record size is how much each record holds, and the stride of its array.
        return sdk::copy_records(out, capacity, all.data(), all.size());
    }

    cb_status attach_endpoint_model(const char* enclosure, const cb_endpoint_model_table* table, void* model) override {
        if (enclosure == nullptr || std::strcmp(enclosure, enclosure_id) != 0)
            throw sdk::status_error(CB_ERR_NOT_FOUND, std::string("no enclosure '") + (enclosure ? enclosure : "") +
                                                          "' (the loopback has one: " + enclosure_id + ")");
        if (model == nullptr || !complete(table))
            throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "the endpoint model's table is incomplete");
        std::lock_guard lock(mutex_);
        if (model_) throw sdk::status_error(CB_ERR_BUSY, std::string(enclosure_id) + " already holds a model");
        auto m = std::make_shared<hosted_model>();
        m->table = table;
        m->model = model;
        const uint32_t ids = config_dword(*m, 0x00);
        m->vendor_id = static_cast<uint16_t>(ids & 0xffff);
        m->device_id = static_cast<uint16_t>(ids >> 16);
        m->class_code = config_dword(*m, 0x08) >> 8;
        model_ = std::move(m);
        return CB_OK;
    }

    cb_status detach_endpoint_model(const char* enclosure) override {
        std::lock_guard lock(mutex_);
        if (!model_ || enclosure == nullptr || std::strcmp(enclosure, enclosure_id) != 0)
            throw sdk::status_error(CB_ERR_NOT_FOUND, "no model is attached there");
        if (link_) link_->detach();  // an open link now answers device lost until closed
        model_.reset();
        return CB_OK;
    }

    cb_status open_link(const char* pci_function, cb_link** out) override {
        if (out == nullptr) return CB_ERR_INVALID_ARGUMENT;
        std::lock_guard lock(mutex_);
        if (!model_ || pci_function == nullptr || std::strcmp(pci_function, function_id) != 0)
            throw sdk::status_error(CB_ERR_NOT_FOUND, std::string("no PCI function '") +
                                                          (pci_function ? pci_function : "") + "' behind the loopback");
        if (link_) throw sdk::status_error(CB_ERR_BUSY, "the loopback's link is already open");
        link_ = std::make_shared<endpoint_link>(model_);
        *out = reinterpret_cast<cb_link*>(link_.get());
        return CB_OK;
    }

    cb_status close_link(cb_link* l) override {
        std::shared_ptr<endpoint_link> closing;
        {
            std::lock_guard lock(mutex_);
            closing = link_of(l);
            link_.reset();
        }
        closing->detach();  // outside the lock: it waits for the model's engines to stop
        return CB_OK;
    }

    cb_status config_read(cb_link* l, uint32_t offset, void* data, uint32_t size) override {
        return link(l)->config_read(offset, data, size);
    }
    cb_status config_write(cb_link* l, uint32_t offset, const void* data, uint32_t size) override {
        return link(l)->config_write(offset, data, size);
    }
    cb_status bar_info(cb_link* l, uint32_t bar, cb_bar_info& out) override { return link(l)->bar_info(bar, out); }
    cb_status mmio_read32(cb_link* l, uint32_t bar, uint64_t offset, uint32_t& out) override {
        return link(l)->mmio_read(bar, offset, &out, sizeof out);
    }
    cb_status mmio_write32(cb_link* l, uint32_t bar, uint64_t offset, uint32_t value) override {
        return link(l)->mmio_write(bar, offset, &value, sizeof value);
    }
    cb_status mmio_read64(cb_link* l, uint32_t bar, uint64_t offset, uint64_t& out) override {
        return link(l)->mmio_read(bar, offset, &out, sizeof out);
    }
    cb_status mmio_write64(cb_link* l, uint32_t bar, uint64_t offset, uint64_t value) override {
        return link(l)->mmio_write(bar, offset, &value, sizeof value);
    }
    cb_status mmio_write_block(cb_link* l, uint32_t bar, uint64_t offset, const void* data, size_t size,
                               cb_mmio_mapping) override {
        return link(l)->mmio_write(bar, offset, data, size);  // no BAR mapping cost to model
    }
    cb_status mmio_read_block(cb_link* l, uint32_t bar, uint64_t offset, void* data, size_t size) override {
        return link(l)->mmio_read(bar, offset, data, size);
    }
    cb_status dma_map(cb_link* l, void* host, size_t size, cb_dma_direction direction, uint64_t& iova) override {
        return link(l)->iommu().map(host, size, direction, iova);
    }
    cb_status dma_unmap(cb_link* l, uint64_t iova, size_t size) override { return link(l)->iommu().unmap(iova, size); }
    cb_status dma_limits(cb_link* l, cb_dma_limits& out) override {
        sdk::copy_record(&out, link(l)->iommu().limits());
        return CB_OK;
    }
    cb_status set_interrupt_handler(cb_link* l, cb_interrupt_handler handler, void* user) override {
        return link(l)->set_interrupt_handler(handler, user);
    }
    cb_status link_status(cb_link* l, cb_link_status& out) override { return link(l)->status(out); }
    cb_status reset_link(cb_link* l, cb_reset_kind how) override { return link(l)->reset(how); }

    cb_status control(const char* request, char* reply, size_t reply_size, size_t* needed) override {
        const auto op = request_op(request);
        if (!op) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "a control request needs an \"op\"");
        if (*op != "layout") throw sdk::status_error(CB_ERR_UNSUPPORTED, "the loopback knows only op \"layout\"");
        std::string text;
        {
            std::lock_guard lock(mutex_);
            text = layout_json(gpu_model_, model_.get());
        }
        return sdk::copy_text_out(text, reply, reply_size, needed);
    }

private:
    // The open link a handle names; the caller holds mutex_.
    std::shared_ptr<endpoint_link> link_of(cb_link* l) const {
        if (l == nullptr || !link_ || reinterpret_cast<cb_link*>(link_.get()) != l)
            throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "not an open loopback link");
        return link_;
    }
    // A reference that keeps the link alive through one call, even if another thread closes it.
    std::shared_ptr<endpoint_link> link(cb_link* l) {
        std::lock_guard lock(mutex_);
        return link_of(l);
    }

    std::mutex mutex_;  // guards model_ and link_
    std::string gpu_model_;
    std::shared_ptr<hosted_model> model_;
    std::shared_ptr<endpoint_link> link_;
};

}  // namespace loopback

CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<loopback::loopback_transport>())
