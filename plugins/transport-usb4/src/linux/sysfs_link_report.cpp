#include "sysfs_link_report.hpp"

#include "sysfs_fabric_view.hpp"

namespace cudabridge::usb4::linux_sysfs {

cb_status read_link_report(const std::filesystem::path& root, std::string_view pci_id, pci_link_report& out,
                           std::string& error) {
    const std::string address(pci_id);
    if (!check_pci_address(address, error)) return CB_ERR_INVALID_ARGUMENT;
    const fabric_view view = read_fabric(root);
    auto it = view.pci.find(address);
    if (it == view.pci.end()) {
        error = "no PCI function " + address + " behind a Thunderbolt/USB4 domain";
        return CB_ERR_NOT_FOUND;
    }
    auto f = view.tunnelled(address);
    if (!f) {
        error = address + " is not behind a Thunderbolt/USB4 PCIe tunnel";
        return CB_ERR_INVALID_ARGUMENT;
    }
    pci_link_report r;
    r.function = address;
    r.port = f->tunnel.enclosure_port;
    r.tunnel_bridge = f->tunnel.tunnel_bridge;
    const auto& link = f->enclosure_link;
    r.current_gen = link.current.generation;
    r.current_width = link.current.width;
    r.max_gen = link.max.generation;
    r.max_width = link.max.width;
    r.current_speed_gts = link.current.speed_gts;
    r.max_speed_gts = link.max.speed_gts;
    r.downgraded = link.downgraded();
    if (auto port = view.pci.find(r.port); port != view.pci.end()) r.port_aer = read_aer_counters(port->second.dir);
    r.function_aer = read_aer_counters(it->second.dir);
    r.function_link = read_pcie_link(it->second.dir);
    out = std::move(r);
    return CB_OK;
}

}  // namespace cudabridge::usb4::linux_sysfs
