#include "plugin_templates/template_sources.hpp"

namespace cudabridge::cli::templates {

const char* gpu_source() {
    return R"cbt(// @NAME@: a GPU family (`--gpu @NAME@`). It claims the display controllers of one PCI vendor
// (`vendor_id`), opens one over the transport link the host hands it by reading its identity
// from config space, and reports its properties. Memory, copies, streams and kernels are the
// next entries to write; until then the base class answers CB_ERR_UNSUPPORTED for them.
#include <cudabridge/cpp/plugin.hpp>
#include <cudabridge/cpp/records.hpp>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

namespace {

namespace sdk = cudabridge::sdk;

struct device {
    uint16_t vendor_id = 0;
    uint16_t device_id = 0;
    std::string name = "@NAME@ GPU";
    std::string bus_id;
    bool simulated = false;
};

class @CLASS@ final : public sdk::gpu_family {
public:
    static constexpr sdk::plugin_identity identity{
        "@NAME@", CB_MAKE_VERSION(0, 1, 0), "MIT", "@NAME@: identifies one vendor's GPUs over a transport link"};

    @CLASS@(const sdk::host& h, const sdk::config&) : gpu_family(h) {
        h.declare_range(CB_PARAM_INT, "vendor_id", "4318", "PCI vendor id of the GPUs to claim (4318 = NVIDIA)",
                        true, 1, 65535);
        vendor_id_ = static_cast<uint16_t>(h.param_int("vendor_id", 4318));
    }

    cb_status claim(const cb_endpoint_info& e, cb_bool& out) override {
        out = e.kind == CB_ENDPOINT_PCI_FUNCTION && e.pci_vendor_id == vendor_id_ &&
              ((e.pci_class_code >> 16) & 0xff) == 0x03;
        return CB_OK;
    }

    cb_status open_device(const cb_gpu_open_params& p, cb_gpu_device** out) override {
        if (!CB_HAS_FIELD(p.transport, cb_transport_table, config_read) || p.link == nullptr)
            throw sdk::status_error(CB_ERR_NO_DEVICE, "@NAME@ drives devices over a transport link only");
        uint32_t ids = 0;  // config space dword 0: vendor id, then device id
        const cb_status st = p.transport->config_read(p.transport_instance, p.link, 0, &ids, sizeof ids);
        if (st != CB_OK) return st;
        if ((ids & 0xffff) != vendor_id_)
            throw sdk::status_error(CB_ERR_NO_DEVICE, "the function behind the link is not this vendor's");
        auto* d = new device;
        d->vendor_id = static_cast<uint16_t>(ids & 0xffff);
        d->device_id = static_cast<uint16_t>(ids >> 16);
        if (p.endpoint != nullptr) {
            if (p.endpoint->name[0] != '\0') d->name = p.endpoint->name;
            d->bus_id = p.endpoint->id;
            d->simulated = p.endpoint->is_simulated != 0;
        }
        std::lock_guard lock(mutex_);  // any thread may open or close devices
        devices_.insert(d);
        *out = reinterpret_cast<cb_gpu_device*>(d);
        return CB_OK;
    }

    cb_status close_device(cb_gpu_device* handle) override {
        device* d = find(handle);
        std::lock_guard lock(mutex_);
        devices_.erase(d);
        delete d;
        return CB_OK;
    }

    cb_status get_properties(cb_gpu_device* handle, cb_gpu_properties& out) override {
        const device* d = find(handle);
        cb_gpu_properties p{};
        p.is_simulated = d->simulated;
        std::snprintf(p.name, sizeof p.name, "%s", d->name.c_str());
        std::snprintf(p.backend, sizeof p.backend, "%s", "userspace");
        std::snprintf(p.pci_bus_id, sizeof p.pci_bus_id, "%s", d->bus_id.c_str());
        p.pci_vendor_id = d->vendor_id;
        p.pci_device_id = d->device_id;
        // As much as the caller's record holds (an older host's is shorter), by its struct_size.
        sdk::copy_record(&out, p);
        return CB_OK;
    }

private:
    device* find(cb_gpu_device* handle) {
        auto* d = reinterpret_cast<device*>(handle);
        std::lock_guard lock(mutex_);
        if (devices_.count(d) == 0) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "not a device of @NAME@");
        return d;
    }

    uint16_t vendor_id_ = 0x10de;
    std::mutex mutex_;
    std::set<device*> devices_;
};

}  // namespace

CB_PLUGIN_DEFINE(cudabridge::sdk::descriptor_of<@CLASS@>())
)cbt";
}

}  // namespace cudabridge::cli::templates
