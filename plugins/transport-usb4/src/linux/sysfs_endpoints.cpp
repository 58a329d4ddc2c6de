#include "sysfs_endpoints.hpp"

#include "sysfs_fixed_string.hpp"
#include "sysfs_pci_names.hpp"

#include <cstdio>

namespace cudabridge::usb4::linux_sysfs {
namespace {

cb_endpoint_info blank(cb_endpoint_kind kind) {
    cb_endpoint_info e{};
    e.struct_size = sizeof e;
    e.kind = kind;
    e.is_simulated = 0;
    return e;
}

cb_auth_state auth_state(const tb_router& r) {
    if (!r.has_authorized) return CB_AUTH_NONE;
    if (r.authorized == 2) return CB_AUTH_SECURE;
    return r.authorized ? CB_AUTH_AUTHORIZED : CB_AUTH_NONE;
}

cb_endpoint_info router_endpoint(const tb_fabric& fabric, const tb_domain* domain, const tb_router& r) {
    cb_endpoint_info e = blank(r.is_host() ? CB_ENDPOINT_HOST_ROUTER : CB_ENDPOINT_DEVICE_ROUTER);
    copy_fixed(e.id, r.id());
    if (r.is_host()) {
        copy_fixed(e.parent_id, "domain" + std::to_string(r.domain));
    } else if (const auto* parent = fabric.router_by_name(r.parent)) {
        copy_fixed(e.parent_id, parent->id());
    }
    copy_fixed(e.name, r.device_name.empty() ? r.name : r.device_name);
    copy_fixed(e.vendor_name, r.vendor_name);
    e.domain = r.domain;
    if (domain) {
        e.security_level = domain->security;
        e.iommu_dma_protection = domain->iommu_dma_protection ? 1 : 0;
    }
    // A host router is the controller itself: always "authorized".
    e.authorized = r.is_host() ? CB_AUTH_AUTHORIZED : auth_state(r);
    e.generation = link_generation_of(r);
    e.lanes = r.rx_lanes;
    e.lane_speed_gbps = r.rx_speed_gbps;
    return e;
}

cb_endpoint_info function_endpoint(const tb_fabric& fabric, const tunnelled_function& f) {
    const pci_device& d = *f.function;
    cb_endpoint_info e = blank(CB_ENDPOINT_PCI_FUNCTION);
    copy_fixed(e.id, d.address);
    if (f.router) copy_fixed(e.parent_id, f.router->id());
    char ids[32];
    std::snprintf(ids, sizeof ids, " [%04x:%04x]", static_cast<unsigned>(d.vendor), static_cast<unsigned>(d.device));
    copy_fixed(e.name, pci_class_name(d.class_code) + ids);
    copy_fixed(e.vendor_name, pci_vendor_name(d.vendor));
    if (f.domain) {
        e.domain = *f.domain;
        if (const auto* dom = fabric.domain(*f.domain)) {
            e.security_level = dom->security;
            e.iommu_dma_protection = dom->iommu_dma_protection ? 1 : 0;
        }
    }
    // The function exists only because its tunnel is up: it carries its router's state.
    e.authorized = f.router && !f.router->is_host() ? auth_state(*f.router) : CB_AUTH_AUTHORIZED;
    if (f.router && !f.router->is_host()) {
        e.generation = link_generation_of(*f.router);
        e.lanes = f.router->rx_lanes;
        e.lane_speed_gbps = f.router->rx_speed_gbps;
    }
    e.pci_vendor_id = d.vendor;
    e.pci_device_id = d.device;
    e.pci_subsystem_vendor_id = d.subsystem_vendor;
    e.pci_subsystem_device_id = d.subsystem_device;
    e.pci_class_code = d.class_code;
    e.pcie_link_gen = f.enclosure_link.current.generation;
    e.pcie_link_width = f.enclosure_link.current.width;
    copy_fixed(e.driver, d.driver);
    return e;
}

}  // namespace

std::vector<cb_endpoint_info> to_endpoints(const fabric_view& view) {
    std::vector<cb_endpoint_info> out;
    const tb_fabric& fabric = view.fabric;
    for (const auto& dom : fabric.domains) {
        cb_endpoint_info e = blank(CB_ENDPOINT_DOMAIN);
        copy_fixed(e.id, dom.name);
        copy_fixed(e.name, dom.name);
        e.domain = dom.index;
        e.security_level = dom.security;
        e.iommu_dma_protection = dom.iommu_dma_protection ? 1 : 0;
        e.authorized = CB_AUTH_AUTHORIZED;
        out.push_back(e);
        for (const auto& r : fabric.routers)
            if (r.domain == dom.index) out.push_back(router_endpoint(fabric, &dom, r));
        for (const auto& f : view.functions)
            if (f.domain && *f.domain == dom.index) out.push_back(function_endpoint(fabric, f));
    }
    // Routers of a domain folder we could not read, and functions whose domain is unknown.
    for (const auto& r : fabric.routers)
        if (!fabric.domain(r.domain)) out.push_back(router_endpoint(fabric, nullptr, r));
    for (const auto& f : view.functions)
        if (!f.domain || !fabric.domain(*f.domain)) out.push_back(function_endpoint(fabric, f));
    return out;
}

std::vector<cb_endpoint_info> enumerate_endpoints(const std::filesystem::path& root) {
    return to_endpoints(read_fabric(root));
}

}  // namespace cudabridge::usb4::linux_sysfs
