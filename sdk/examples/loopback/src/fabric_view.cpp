#include "fabric_view.hpp"

#include "json_text.hpp"

#include <cstdio>

namespace loopback {

namespace {

template <size_t N>
void put(char (&field)[N], const std::string& text) {
    std::snprintf(field, N, "%s", text.c_str());
}

cb_endpoint_info endpoint(cb_endpoint_kind kind, const char* id, const char* parent, const std::string& name) {
    cb_endpoint_info e{};
    e.struct_size = sizeof e;
    e.kind = kind;
    put(e.id, id);
    put(e.parent_id, parent);
    put(e.name, name);
    put(e.vendor_name, "CudaBridge SDK example");
    e.security_level = CB_SECURITY_NONE;  // nothing to authorize: the device is in this process
    e.authorized = CB_AUTH_AUTHORIZED;
    e.iommu_dma_protection = 1;  // the model reaches only mapped memory
    e.is_simulated = 1;
    return e;
}

}  // namespace

std::vector<cb_endpoint_info> endpoints(const std::string& gpu_model, const hosted_model* model) {
    std::vector<cb_endpoint_info> out = {
        endpoint(CB_ENDPOINT_DOMAIN, domain_id, "", "Loopback domain"),
        endpoint(CB_ENDPOINT_HOST_ROUTER, host_router_id, domain_id, "Loopback host router"),
        endpoint(CB_ENDPOINT_DEVICE_ROUTER, enclosure_id, host_router_id, "Loopback enclosure (" + gpu_model + ")"),
    };
    if (model == nullptr) return out;
    cb_endpoint_info f = endpoint(CB_ENDPOINT_PCI_FUNCTION, function_id, enclosure_id, gpu_model);
    f.pci_vendor_id = model->vendor_id;
    f.pci_device_id = model->device_id;
    f.pci_class_code = model->class_code;
    put(f.driver, "loopback");
    out.push_back(f);
    return out;
}

std::string layout_json(const std::string& gpu_model, const hosted_model* model) {
    std::string e = "{\"id\":" + json_string(enclosure_id) +
                    ",\"name\":" + json_string("Loopback enclosure (" + gpu_model + ")") +
                    ",\"vendor\":\"CudaBridge SDK example\",\"domain\":0,\"generation\":\"loopback\""
                    ",\"power_budget_w\":0,\"plugged\":true,\"gpu_model\":" +
                    json_string(gpu_model);
    if (model != nullptr)
        e += ",\"gpu_vendor_id\":" + std::to_string(model->vendor_id) +
             ",\"gpu_device_id\":" + std::to_string(model->device_id);
    e += "}";
    return "{\"op\":\"layout\",\"layout\":{\"host\":\"loopback\",\"domains\":[{\"index\":0,\"security\":\"none\","
           "\"iommu_dma_protection\":true,\"deauthorization\":false}],\"enclosures\":[" +
           e + "]}}";
}

}  // namespace loopback
