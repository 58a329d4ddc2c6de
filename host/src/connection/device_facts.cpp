#include "connection/device_facts.hpp"

#include <cudabridge/core/gpu_profiles.hpp>
#include <cudabridge/core/store.hpp>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <algorithm>

namespace cudabridge::host {
namespace {

struct profile_figures {
    double board_power_w = 0;
    double min_link_gbs = 0;
};

profile_figures figures_of(session& s, uint16_t pci_device_id) {
    profile_figures f;
    std::optional<core::gpu_profile_row> row;
    {
        std::lock_guard lock(s.store_mutex());
        row = core::find_effective_gpu_profile(s.db(), pci_device_id);
    }
    if (!row) return f;
    try {
        auto o = Poco::JSON::Parser().parse(row->data).extract<Poco::JSON::Object::Ptr>();
        f.board_power_w = o->optValue<double>("power_default_w", 0);
        f.min_link_gbs = o->optValue<double>("min_link_bandwidth_gbps", 0);
    } catch (const std::exception&) {
    }
    return f;
}

}  // namespace

double nominal_tunnel_bandwidth_gbs(const cb_endpoint_info& e) {
    const double pcie3_x4 = 3.94, pcie4_x4 = 7.88;  // GB/s after 128b/130b encoding
    const double tunnel = (e.generation == CB_LINK_USB4_V2 || e.generation == CB_LINK_OCULINK) ? pcie4_x4 : pcie3_x4;
    const double lanes_gbs = e.lanes * e.lane_speed_gbps / 8.0;
    return lanes_gbs > 0 ? std::min(tunnel, lanes_gbs) : tunnel;
}

cb_device_facts device_facts(session& s, const detected_device& d, const std::optional<cb_endpoint_info>& function) {
    cb_device_facts f{};
    f.struct_size = sizeof f;
    if (function) {
        f.pci_vendor_id = function->pci_vendor_id;
        f.pci_device_id = function->pci_device_id;
        f.pci_class_code = function->pci_class_code;
        f.name = function->name;
    } else {
        // Before the tunnel exists only the enclosure's word is known; the class is assumed to
        // be a display controller and checked again once the function appears.
        f.pci_vendor_id = d.advertised_vendor_id;
        f.pci_device_id = d.advertised_device_id;
        f.pci_class_code = d.advertised_vendor_id ? 0x030000 : 0;
        f.name = d.enclosure.name;
    }
    f.link_generation = d.enclosure.generation;
    f.link_lanes = d.enclosure.lanes;
    f.link_bandwidth_gbs = nominal_tunnel_bandwidth_gbs(d.enclosure);
    f.enclosure_power_w = d.power_budget_w;
    const profile_figures p = figures_of(s, f.pci_device_id);
    f.board_power_w = p.board_power_w;
    f.min_link_bandwidth_gbs = p.min_link_gbs;
    f.security_level = d.enclosure.security_level;
    f.iommu_dma_protection = d.enclosure.iommu_dma_protection;
    return f;
}

}  // namespace cudabridge::host
