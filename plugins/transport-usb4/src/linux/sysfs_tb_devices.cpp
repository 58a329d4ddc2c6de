#include "sysfs_tb_devices.hpp"

#include "sysfs_io.hpp"
#include "sysfs_pci_devices.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace cudabridge::usb4::linux_sysfs {
namespace {

bool parse_number(std::string_view s, std::uint64_t& out, int base) {
    if (s.empty()) return false;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
    return ec == std::errc{} && end == s.data() + s.size();
}

// "domain<N>"
std::optional<std::uint32_t> domain_index(std::string_view name) {
    constexpr std::string_view prefix = "domain";
    if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
    std::uint64_t n = 0;
    if (!parse_number(name.substr(prefix.size()), n, 10)) return std::nullopt;
    return static_cast<std::uint32_t>(n);
}

// "<domain>-<route hex>", the name drivers/thunderbolt/switch.c gives routers (and XDomains).
bool parse_router_name(std::string_view name, std::uint32_t& domain, std::uint64_t& route) {
    const auto dash = name.find('-');
    if (dash == std::string_view::npos) return false;
    std::uint64_t d = 0;
    if (!parse_number(name.substr(0, dash), d, 10)) return false;
    if (!parse_number(name.substr(dash + 1), route, 16)) return false;
    domain = static_cast<std::uint32_t>(d);
    return true;
}

std::uint32_t route_depth(std::uint64_t route) {
    // One byte of the route string per hop (USB4 route strings: 8 bits per level).
    std::uint32_t depth = 0;
    for (; route; route >>= 8) ++depth;
    return depth;
}

bool iequal(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace

cb_security_level parse_security_level(std::string_view text, bool& known) {
    struct level {
        std::string_view name;
        cb_security_level value;
    };
    static constexpr level levels[] = {
        {"none", CB_SECURITY_NONE},     {"user", CB_SECURITY_USER},       {"secure", CB_SECURITY_SECURE},
        {"dponly", CB_SECURITY_DPONLY}, {"usbonly", CB_SECURITY_USBONLY}, {"nopcie", CB_SECURITY_NOPCIE},
    };
    for (const auto& l : levels)
        if (text == l.name) {
            known = true;
            return l.value;
        }
    known = false;
    return CB_SECURITY_NONE;
}

double parse_gbps(std::string_view text) {
    const std::string s(text);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    return end == s.c_str() || !(v > 0) ? 0 : v;
}

cb_link_generation link_generation_of(const tb_router& r) {
    switch (r.generation) {
    case 3:
        return CB_LINK_TB3;
    case 4:
        if (r.usb4_version.rfind('2', 0) == 0 || r.rx_speed_gbps >= 40 || r.tx_speed_gbps >= 40) return CB_LINK_USB4_V2;
        return CB_LINK_USB4_V1;
    default:
        return CB_LINK_UNKNOWN;
    }
}

const tb_domain* tb_fabric::domain(std::uint32_t index) const {
    for (const auto& d : domains)
        if (d.index == index) return &d;
    return nullptr;
}

const tb_router* tb_fabric::router_by_name(std::string_view name) const {
    for (const auto& r : routers)
        if (r.name == name) return &r;
    return nullptr;
}

const tb_router* tb_fabric::find_router(std::string_view id) const {
    if (id.empty()) return nullptr;
    for (const auto& r : routers)
        if ((!r.unique_id.empty() && iequal(r.unique_id, id)) || r.name == id) return &r;
    return nullptr;
}

tb_fabric scan_thunderbolt(const fs::path& root) {
    tb_fabric fabric;
    const fs::path bus = at(root, "/sys/bus/thunderbolt");
    std::error_code ec;
    fabric.bus_present = fs::is_directory(bus, ec);
    if (!fabric.bus_present) return fabric;

    const fs::path devices = bus / "devices";
    for (const auto& name : list_names(devices)) {
        auto dir = resolve(devices / name);
        if (!dir) continue;
        const std::string devtype = uevent_value(*dir, "DEVTYPE");

        if (auto index = domain_index(name)) {
            if (!devtype.empty() && devtype != "thunderbolt_domain") continue;
            tb_domain d;
            d.name = name;
            d.index = *index;
            d.dir = *dir;
            d.security_text = read_attribute(d.dir / "security").value_or("");
            d.security = parse_security_level(d.security_text, d.security_known);
            d.iommu_dma_protection = read_unsigned(d.dir / "iommu_dma_protection").value_or(0) == 1;
            d.deauthorization = read_unsigned(d.dir / "deauthorization").value_or(0) == 1;
            // The domain device hangs off the NHI's PCI device (drivers/thunderbolt/domain.c).
            const auto parent = d.dir.parent_path().filename().string();
            if (is_pci_address(parent)) d.nhi_address = parent;
            fabric.domains.push_back(std::move(d));
            continue;
        }

        tb_router r;
        if (!parse_router_name(name, r.domain, r.route)) continue;  // ports, retimers, services
        // XDomain peers share the naming; only thunderbolt_device is a router. Without a
        // uevent (older fixtures), a router is recognised by its unique_id.
        if (!devtype.empty() && devtype != "thunderbolt_device") continue;
        r.name = name;
        r.dir = *dir;
        r.unique_id = read_attribute(r.dir / "unique_id").value_or("");
        if (devtype.empty() && r.unique_id.empty()) continue;
        r.device_name = read_attribute(r.dir / "device_name").value_or("");
        r.vendor_name = read_attribute(r.dir / "vendor_name").value_or("");
        r.vendor = static_cast<std::uint32_t>(read_unsigned(r.dir / "vendor").value_or(0));
        r.device = static_cast<std::uint32_t>(read_unsigned(r.dir / "device").value_or(0));
        if (auto auth = read_unsigned(r.dir / "authorized", 10)) {
            r.has_authorized = true;
            r.authorized = static_cast<std::uint32_t>(*auth);
        }
        r.has_key = fs::exists(r.dir / "key", ec);
        r.generation = static_cast<std::uint32_t>(read_unsigned(r.dir / "generation", 10).value_or(0));
        r.usb4_version = uevent_value(r.dir, "USB4_VERSION");
        r.rx_speed_gbps = parse_gbps(read_attribute(r.dir / "rx_speed").value_or(""));
        r.tx_speed_gbps = parse_gbps(read_attribute(r.dir / "tx_speed").value_or(""));
        r.rx_lanes = static_cast<std::uint32_t>(read_unsigned(r.dir / "rx_lanes", 10).value_or(0));
        r.tx_lanes = static_cast<std::uint32_t>(read_unsigned(r.dir / "tx_lanes", 10).value_or(0));
        if (!r.is_host()) {
            // A device router's folder sits inside its parent router's folder.
            const auto parent = r.dir.parent_path().filename().string();
            std::uint32_t pd = 0;
            std::uint64_t proute = 0;
            if (parse_router_name(parent, pd, proute)) r.parent = parent;
        }
        fabric.routers.push_back(std::move(r));
    }
    std::sort(fabric.routers.begin(), fabric.routers.end(), [](const tb_router& a, const tb_router& b) {
        const auto da = route_depth(a.route), db = route_depth(b.route);
        if (a.domain != b.domain) return a.domain < b.domain;
        if (da != db) return da < db;
        return a.route < b.route;
    });
    std::sort(fabric.domains.begin(), fabric.domains.end(),
              [](const tb_domain& a, const tb_domain& b) { return a.index < b.index; });
    return fabric;
}

}  // namespace cudabridge::usb4::linux_sysfs
