#include "sysfs_fabric_view.hpp"

namespace cudabridge::usb4::linux_sysfs {
namespace {

void attribute_router(const tb_fabric& fabric, tunnelled_function& f) {
    if (!f.domain) return;
    const tb_router* host = nullptr;
    const tb_router* only = nullptr;
    int candidates = 0;
    for (const auto& r : fabric.routers) {
        if (r.domain != *f.domain) continue;
        if (r.is_host()) {
            host = &r;
            continue;
        }
        // A PCIe tunnel exists only to an authorized router (or to any router at level none,
        // where the kernel shows authorized=1 for all).
        if (r.has_authorized && r.authorized != 0) {
            only = &r;
            ++candidates;
        }
    }
    if (candidates == 1) {
        f.router = only;
        f.router_certain = true;
    } else {
        f.router = host;
    }
}

tunnelled_function make_function(const fabric_view& view, const pci_device& d, tunnel_path t) {
    tunnelled_function f;
    f.function = &d;
    f.tunnel = std::move(t);
    for (const auto& dom : view.fabric.domains)
        if (!f.tunnel.nhi.empty() && dom.nhi_address == f.tunnel.nhi) f.domain = dom.index;
    if (!f.domain && view.fabric.domains.size() == 1) f.domain = view.fabric.domains.front().index;
    attribute_router(view.fabric, f);
    if (auto it = view.pci.find(f.tunnel.enclosure_port); it != view.pci.end())
        f.enclosure_link = read_pcie_link(it->second.dir);
    return f;
}

}  // namespace

std::optional<tunnelled_function> fabric_view::tunnelled(const std::string& address) const {
    auto it = pci.find(address);
    if (it == pci.end()) return std::nullopt;
    auto t = find_tunnel(pci, nhis, address);
    if (!t) return std::nullopt;
    return make_function(*this, it->second, std::move(*t));
}

fabric_view read_fabric(const std::filesystem::path& root) {
    fabric_view view;
    view.fabric = scan_thunderbolt(root);
    // Without a Thunderbolt domain no PCI device can be behind one of its tunnels.
    if (view.fabric.domains.empty()) return view;
    view.pci = scan_pci_devices(root);
    for (const auto& d : view.fabric.domains)
        if (!d.nhi_address.empty()) view.nhis.push_back(d.nhi_address);
    for (const auto& [address, device] : view.pci) {
        if (device.is_bridge()) continue;
        if (auto t = find_tunnel(view.pci, view.nhis, address))
            view.functions.push_back(make_function(view, device, std::move(*t)));
    }
    return view;
}

}  // namespace cudabridge::usb4::linux_sysfs
