#include "sim/fabric.hpp"

#include "link/link_model.hpp"

#include <cudabridge/cpp/text_out.hpp>

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace cudabridge::usb4 {

namespace {

cb_endpoint_info blank(cb_endpoint_kind kind, const std::string& id, const std::string& parent) {
    cb_endpoint_info e{};
    e.struct_size = sizeof e;
    e.kind = kind;
    e.is_simulated = 1;
    sdk::copy_text(e.id, id);
    sdk::copy_text(e.parent_id, parent);
    return e;
}

const domain_layout* domain_of(const fabric_layout& l, uint32_t index) {
    for (const auto& d : l.domains)
        if (d.index == index) return &d;
    return nullptr;
}

std::string domain_id(uint32_t index) { return "domain" + std::to_string(index); }
std::string host_router_id(uint32_t index) { return std::to_string(index) + "-0"; }

}  // namespace

fabric::fabric(layout_storage storage) : storage_(std::move(storage)) {
    std::lock_guard lock(mutex_);
    auto text = storage_.load ? storage_.load() : std::nullopt;
    if (!text) {
        save_locked(default_layout());
        return;
    }
    std::string error;
    if (!layout_from_json(*text, error)) throw std::runtime_error("stored fabric layout: " + error);
}

std::string fabric::function_id(size_t index) {
    // Each enclosure is a bus range: upstream port, downstream port, then the GPU, as a
    // Thunderbolt PCIe switch lays them out; the GPU sits two buses below the enclosure's base.
    char buf[16];
    std::snprintf(buf, sizeof buf, "0000:%02zx:00.0", 0x10 + index * 0x10 + 2);
    return buf;
}

fabric_layout fabric::load_locked() {
    auto text = storage_.load ? storage_.load() : std::nullopt;
    if (!text) return default_layout();
    std::string error;
    auto l = layout_from_json(*text, error);
    if (!l) throw std::runtime_error("stored fabric layout: " + error);
    return *l;
}

void fabric::save_locked(const fabric_layout& layout) {
    if (storage_.save) storage_.save(to_json(layout));
}

fabric_layout fabric::layout() {
    std::lock_guard lock(mutex_);
    return load_locked();
}

void fabric::replace_layout(const fabric_layout& layout) {
    std::lock_guard lock(mutex_);
    save_locked(layout);
}

std::vector<cb_endpoint_info> fabric::enumerate() {
    std::lock_guard lock(mutex_);
    const fabric_layout l = load_locked();
    std::vector<cb_endpoint_info> out;
    for (const auto& d : l.domains) {
        auto e = blank(CB_ENDPOINT_DOMAIN, domain_id(d.index), "");
        sdk::copy_text(e.name, std::string("USB4 domain ") + std::to_string(d.index));
        e.domain = d.index;
        e.security_level = d.security;
        e.iommu_dma_protection = d.iommu_dma_protection ? 1 : 0;
        out.push_back(e);
        auto h = blank(CB_ENDPOINT_HOST_ROUTER, host_router_id(d.index), domain_id(d.index));
        sdk::copy_text(h.name, l.host == host_kind::x86 ? "Simulated x86 USB4 host router"
                                                        : "Simulated Apple Silicon USB4 host router");
        sdk::copy_text(h.vendor_name, l.host == host_kind::x86 ? "Intel" : "Apple");
        h.domain = d.index;
        h.security_level = d.security;
        h.authorized = CB_AUTH_AUTHORIZED;
        out.push_back(h);
    }
    for (size_t i = 0; i < l.enclosures.size(); ++i) {
        const enclosure_layout& enc = l.enclosures[i];
        if (!enc.plugged) continue;
        const domain_layout* d = domain_of(l, enc.domain);
        auto gen = parse_generation(enc.generation);
        const generation_spec& spec = spec_of(gen.value_or(generation::tb4));
        auto r = blank(CB_ENDPOINT_DEVICE_ROUTER, enc.id, host_router_id(enc.domain));
        sdk::copy_text(r.name, enc.name);
        sdk::copy_text(r.vendor_name, enc.vendor);
        r.domain = enc.domain;
        r.security_level = d ? d->security : CB_SECURITY_USER;
        r.authorized = d && d->security == CB_SECURITY_NONE ? CB_AUTH_AUTHORIZED : enc.authorized;
        r.generation = spec.abi_generation;
        r.lanes = spec.lanes_h2d;
        r.lane_speed_gbps = spec.lane_speed_gbps;
        r.iommu_dma_protection = d && d->iommu_dma_protection ? 1 : 0;
        out.push_back(r);
        // The PCI function exists only while a PCIe tunnel is allowed, as in sysfs.
        if (d == nullptr || !pcie_allowed(*d, enc) || enc.gpu_vendor_id == 0) continue;
        auto f = blank(CB_ENDPOINT_PCI_FUNCTION, function_id(i), enc.id);
        sdk::copy_text(f.name, enc.gpu_model);
        sdk::copy_text(f.vendor_name, enc.gpu_vendor_id == 0x10de ? "NVIDIA Corporation" : "");
        sdk::copy_text(f.driver, models_.count(enc.id) ? "cudabridge-sim" : "");
        f.domain = enc.domain;
        f.generation = spec.abi_generation;
        f.pci_vendor_id = enc.gpu_vendor_id;
        f.pci_device_id = enc.gpu_device_id;
        f.pci_class_code = 0x030000;  // VGA-compatible display controller
        f.pcie_link_gen = spec.pcie_gen;
        f.pcie_link_width = spec.pcie_width;
        f.security_level = r.security_level;
        f.authorized = r.authorized;
        out.push_back(f);
    }
    return out;
}

cb_status fabric::update_enclosure(const std::string& id, std::string& message, const enclosure_change& change) {
    std::lock_guard lock(mutex_);
    fabric_layout l = load_locked();
    for (auto& enc : l.enclosures) {
        if (enc.id != id) continue;
        bool save = false;
        const cb_status st = change(*domain_of(l, enc.domain), enc, message, save);
        if (save) save_locked(l);
        return st;
    }
    message = "no simulated device " + id;
    return CB_ERR_NOT_FOUND;
}

cb_status fabric::authorize(const std::string& id, cb_auth_state level, const uint8_t* key, size_t key_len,
                            std::string& message) {
    const cb_status st =
        update_enclosure(id, message, [&](const domain_layout& d, enclosure_layout& enc, std::string& msg, bool& save) {
            auth_result r = apply_authorization(d, enc, level, key, key_len);
            msg = r.message;
            save = r.status == CB_OK;
            return r.status;
        });
    if (st == CB_OK) emit(CB_TRANSPORT_AUTHORIZED, id, message);
    return st;
}

cb_status fabric::deauthorize(const std::string& id, std::string& message) {
    const cb_status st =
        update_enclosure(id, message, [](const domain_layout& d, enclosure_layout& enc, std::string& msg, bool& save) {
            auth_result r = apply_deauthorization(d, enc);
            msg = r.message;
            save = r.status == CB_OK;
            return r.status;
        });
    if (st == CB_OK) emit(CB_TRANSPORT_DEAUTHORIZED, id, message);
    return st;
}

cb_status fabric::set_plugged(const std::string& id, bool plugged, std::string& message) {
    bool changed = false;
    const cb_status st =
        update_enclosure(id, message, [&](const domain_layout&, enclosure_layout& enc, std::string& msg, bool& save) {
            if (enc.plugged == plugged) {
                msg = "device " + id + (plugged ? " is already plugged in" : " is already unplugged");
                return CB_OK;
            }
            enc.plugged = plugged;
            // Unplugging ends the authorization, as the kernel removes the device; a secure
            // domain's device keeps its key in its own NVM.
            if (!plugged) enc.authorized = CB_AUTH_NONE;
            msg = "device " + id + (plugged ? " plugged in" : " unplugged");
            changed = save = true;
            return CB_OK;
        });
    if (changed) emit(plugged ? CB_TRANSPORT_PLUGGED : CB_TRANSPORT_UNPLUGGED, id, message);
    return st;
}

cb_status fabric::post_fault(const std::string& id, const std::string& fault_json, size_t& posted,
                             std::string& message) {
    std::lock_guard lock(mutex_);
    fabric_layout l = load_locked();
    posted = 0;
    for (auto& enc : l.enclosures)
        if (id.empty() || enc.id == id) {
            ++enc.fault_seq;
            enc.fault_json = fault_json;
            ++posted;
        }
    if (posted == 0) {
        message = id.empty() ? "the simulated fabric has no enclosure" : "no simulated device " + id;
        return CB_ERR_NOT_FOUND;
    }
    save_locked(l);
    message = "fault " + fault_json + " posted to " + std::to_string(posted) + " enclosure(s)";
    return CB_OK;
}

void fabric::mark_fault_event_spent(const std::string& id) {
    std::lock_guard lock(mutex_);
    fabric_layout l = load_locked();
    for (auto& enc : l.enclosures)
        if (enc.id == id) enc.fault_event_spent_seq = enc.fault_seq;
    save_locked(l);
}

void fabric::set_event_handler(cb_transport_event_handler handler, void* user) {
    std::lock_guard lock(mutex_);
    handler_ = handler;
    handler_user_ = user;
}

void fabric::emit(cb_transport_event_type type, const std::string& id, const std::string& message) {
    cb_transport_event_handler handler;
    void* user;
    {
        std::lock_guard lock(mutex_);
        handler = handler_;
        user = handler_user_;
    }
    if (handler == nullptr) return;
    cb_transport_event ev{};
    ev.struct_size = sizeof ev;
    ev.type = type;
    sdk::copy_text(ev.endpoint_id, id);
    sdk::copy_text(ev.message, message);
    handler(user, &ev);
}

cb_status fabric::attach_model(const std::string& enclosure_id, attached_model model) {
    if (model.table == nullptr || model.model == nullptr) return CB_ERR_INVALID_ARGUMENT;
    std::lock_guard lock(mutex_);
    const fabric_layout l = load_locked();
    bool known = false;
    for (const auto& enc : l.enclosures) known |= enc.id == enclosure_id;
    if (!known) return CB_ERR_NOT_FOUND;
    if (models_.count(enclosure_id)) return CB_ERR_BUSY;
    models_[enclosure_id] = model;
    return CB_OK;
}

cb_status fabric::detach_model(const std::string& enclosure_id) {
    std::lock_guard lock(mutex_);
    return models_.erase(enclosure_id) ? CB_OK : CB_ERR_NOT_FOUND;
}

std::optional<fabric::function_target> fabric::find_function(const std::string& pci_function_id) {
    std::lock_guard lock(mutex_);
    const fabric_layout l = load_locked();
    for (size_t i = 0; i < l.enclosures.size(); ++i) {
        if (function_id(i) != pci_function_id) continue;
        function_target t;
        t.enclosure = l.enclosures[i];
        const domain_layout* d = domain_of(l, t.enclosure.domain);
        if (d) t.domain = *d;
        t.host = l.host;
        if (auto it = models_.find(t.enclosure.id); it != models_.end()) t.model = it->second;
        return t;
    }
    return std::nullopt;
}

}  // namespace cudabridge::usb4
