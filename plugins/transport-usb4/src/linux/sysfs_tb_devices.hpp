// The Thunderbolt / USB4 fabric as /sys/bus/thunderbolt/devices shows it: domains (one per host
// controller NHI) and routers ("<domain>-<route in hex>": 0-0 the host router, 0-1 a device on
// its port 1, 0-301 the device behind it). XDomain peers (other hosts), services, USB4 ports and
// retimers live in the same folder and are told apart by the DEVTYPE in their uevent.
// Source: Documentation/ABI/testing/sysfs-bus-thunderbolt; drivers/thunderbolt/switch.c and
// domain.c for formats and for which attributes are hidden when.
#pragma once

#include <cudabridge/transport.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::usb4::linux_sysfs {

struct tb_domain {
    std::string name;  // "domain0"
    std::uint32_t index = 0;
    std::string security_text;  // as the kernel spells it: none, user, secure, dponly, usbonly, nopcie
    cb_security_level security = CB_SECURITY_NONE;
    bool security_known = false;
    bool iommu_dma_protection = false;  // 4.21+: the IOMMU guards DMA from tunnelled devices
    bool deauthorization = false;       // 5.12+: writing 0 to authorized tears the tunnel down
    std::string nhi_address;            // the PCI function of the host interface (the parent folder)
    std::filesystem::path dir;
};

struct tb_router {
    std::string name;  // "0-1"
    std::uint32_t domain = 0;
    std::uint64_t route = 0;  // 0 for the host router
    std::string parent;       // parent router's name; "" for a host router
    std::string unique_id;
    std::string device_name;
    std::string vendor_name;
    std::uint32_t vendor = 0;
    std::uint32_t device = 0;
    bool has_authorized = false;   // hidden at the dponly and nopcie levels (no PCIe tunnel allowed)
    std::uint32_t authorized = 0;  // 0 no, 1 yes, 2 yes by key challenge
    bool has_key = false;          // the device supports secure connect in a secure domain
    std::uint32_t generation = 0;  // 1-3 Thunderbolt, 4 USB4 (v1 and v2 alike)
    std::string usb4_version;      // "1.0" / "2.0" from the uevent, "" for Thunderbolt 1-3
    double rx_speed_gbps = 0;      // per lane
    double tx_speed_gbps = 0;
    std::uint32_t rx_lanes = 0;
    std::uint32_t tx_lanes = 0;
    std::filesystem::path dir;

    bool is_host() const { return route == 0; }
    // unique_id, or the sysfs name when a router has none.
    const std::string& id() const { return unique_id.empty() ? name : unique_id; }
};

struct tb_fabric {
    bool bus_present = false;  // /sys/bus/thunderbolt exists (the driver is loaded)
    std::vector<tb_domain> domains;
    std::vector<tb_router> routers;  // by domain, then depth, then route

    const tb_domain* domain(std::uint32_t index) const;
    const tb_router* router_by_name(std::string_view name) const;
    // By unique_id (case-insensitive) or by sysfs name ("0-1").
    const tb_router* find_router(std::string_view id) const;
};

cb_security_level parse_security_level(std::string_view text, bool& known);

// "20.0 Gb/s" -> 20.0; 0 when unparsable.
double parse_gbps(std::string_view text);

// Thunderbolt 3 -> CB_LINK_TB3; USB4 -> USB4_V2 when the router says USB4 2.0 or runs 40 Gb/s
// lanes (Gen 4), else USB4_V1 (sysfs does not tell a Thunderbolt 4 certified router from other
// USB4 v1 routers). Thunderbolt 1 and 2 have no value of their own: CB_LINK_UNKNOWN.
cb_link_generation link_generation_of(const tb_router& router);

tb_fabric scan_thunderbolt(const std::filesystem::path& root);

}  // namespace cudabridge::usb4::linux_sysfs
