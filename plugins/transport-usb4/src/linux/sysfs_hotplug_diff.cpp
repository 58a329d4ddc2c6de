#include "sysfs_hotplug_diff.hpp"

#include "sysfs_fixed_string.hpp"

#include <cstring>
#include <map>
#include <string>
#include <string_view>

namespace cudabridge::usb4::linux_sysfs {
namespace {

std::string_view field(const char (&text)[64]) { return {text, strnlen(text, sizeof text)}; }
std::string_view field128(const char (&text)[128]) { return {text, strnlen(text, sizeof text)}; }

const char* kind_name(cb_endpoint_kind kind) {
    switch (kind) {
    case CB_ENDPOINT_DOMAIN:
        return "domain";
    case CB_ENDPOINT_HOST_ROUTER:
        return "host router";
    case CB_ENDPOINT_DEVICE_ROUTER:
        return "device";
    case CB_ENDPOINT_PCI_FUNCTION:
        return "PCI function";
    default:
        return "endpoint";
    }
}

std::string describe(const cb_endpoint_info& e) {
    std::string s = kind_name(e.kind);
    s += ' ';
    s += field(e.id);
    const auto name = field128(e.name);
    if (!name.empty()) {
        s += " (";
        const auto vendor = field128(e.vendor_name);
        if (!vendor.empty() && e.kind != CB_ENDPOINT_PCI_FUNCTION) {
            s += vendor;
            s += ' ';
        }
        s += name;
        s += ')';
    }
    return s;
}

cb_transport_event make(cb_transport_event_type type, const cb_endpoint_info& e, const std::string& message) {
    cb_transport_event ev{};
    ev.struct_size = sizeof ev;
    ev.type = type;
    copy_fixed(ev.endpoint_id, field(e.id));
    copy_fixed(ev.message, message);
    return ev;
}

std::string link_text(std::uint32_t gen, std::uint32_t width) {
    return "Gen" + std::to_string(gen) + " x" + std::to_string(width);
}

}  // namespace

std::vector<cb_transport_event> diff_endpoints(std::span<const cb_endpoint_info> before,
                                               std::span<const cb_endpoint_info> after) {
    std::map<std::string_view, const cb_endpoint_info*> old_by_id, new_by_id;
    for (const auto& e : before) old_by_id.emplace(field(e.id), &e);
    for (const auto& e : after) new_by_id.emplace(field(e.id), &e);

    std::vector<cb_transport_event> events;
    for (const auto& e : before)
        if (!new_by_id.count(field(e.id)))
            events.push_back(make(CB_TRANSPORT_UNPLUGGED, e, "unplugged: " + describe(e)));

    for (const auto& e : after) {
        auto it = old_by_id.find(field(e.id));
        if (it == old_by_id.end()) {
            events.push_back(make(CB_TRANSPORT_PLUGGED, e, "plugged: " + describe(e)));
            continue;
        }
        const cb_endpoint_info& old = *it->second;
        if (old.authorized == CB_AUTH_NONE && e.authorized != CB_AUTH_NONE)
            events.push_back(make(CB_TRANSPORT_AUTHORIZED, e, "authorized: " + describe(e)));
        else if (old.authorized != CB_AUTH_NONE && e.authorized == CB_AUTH_NONE)
            events.push_back(make(CB_TRANSPORT_DEAUTHORIZED, e, "deauthorized: " + describe(e)));
        if (e.kind == CB_ENDPOINT_PCI_FUNCTION && old.pcie_link_gen && old.pcie_link_width && e.pcie_link_gen &&
            e.pcie_link_width && (e.pcie_link_gen < old.pcie_link_gen || e.pcie_link_width < old.pcie_link_width))
            events.push_back(make(CB_TRANSPORT_LINK_ERROR, e,
                                  "link downtrained from " + link_text(old.pcie_link_gen, old.pcie_link_width) +
                                      " to " + link_text(e.pcie_link_gen, e.pcie_link_width) + ": " + describe(e)));
    }
    return events;
}

}  // namespace cudabridge::usb4::linux_sysfs
