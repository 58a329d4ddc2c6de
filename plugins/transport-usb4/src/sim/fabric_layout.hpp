// The simulated fabric's layout as plain data: which host, which domains, which enclosures on
// which link holding which GPU model. It is kept in the store (as JSON, through the host
// services) so that every process sees the same fabric.
#pragma once

#include <cudabridge/transport.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudabridge::usb4 {

// The simulated host: Apple Silicon has the DART limits; x86 an IOMMU without them.
enum class host_kind { apple_silicon, x86 };

struct domain_layout {
    uint32_t index = 0;
    cb_security_level security = CB_SECURITY_USER;
    bool iommu_dma_protection = true;
    bool deauthorization = true;  // writing authorized=0 tears the tunnel down (kernel 5.12+)
};

struct enclosure_layout {
    std::string id;      // unique_id, as the kernel shows it (a UUID)
    std::string name;    // device_name
    std::string vendor;  // vendor_name
    uint32_t domain = 0;
    std::string generation;      // link generation key: "tb3", "tb4", "usb4-40", "tb5", ...
    double power_budget_w = 0;   // what the enclosure can deliver to the card
    std::string gpu_model;       // profile key the host asks a GPU family for; "" = empty slot
    uint16_t gpu_vendor_id = 0;  // PCI ids shown before a model is attached
    uint16_t gpu_device_id = 0;
    bool plugged = true;
    cb_auth_state authorized = CB_AUTH_NONE;
    std::string key_hex;  // 64 hex digits once enrolled in a secure domain
    // A fault posted for the open links of every process (`cudabridge-cli sim fault`): a link
    // applies the posted fault once, when it sees fault_seq pass the value it last saw.
    uint64_t fault_seq = 0;
    std::string fault_json;  // the fault request (a JSON object); "" when none was posted
    // The fault_seq whose one-time event (an unplug after N bytes) already happened: a link
    // opened later is armed with it only while it has not.
    uint64_t fault_event_spent_seq = 0;
};

struct fabric_layout {
    host_kind host = host_kind::apple_silicon;
    std::vector<domain_layout> domains;
    std::vector<enclosure_layout> enclosures;
};

// The default: one Thunderbolt 4 enclosure holding an RTX 5090 on an Apple Silicon host (DART limits on), in a domain at security level "user".
fabric_layout default_layout();

std::string to_json(const fabric_layout& layout);
// Parses and validates; nullopt with `error` naming the field when the text is not a layout.
std::optional<fabric_layout> layout_from_json(std::string_view json, std::string& error);

const char* security_key(cb_security_level level) noexcept;  // "none", "user", "secure", ...
std::optional<cb_security_level> parse_security(std::string_view text);
const char* host_key(host_kind host) noexcept;  // "apple-silicon", "x86"
std::optional<host_kind> parse_host(std::string_view text);

}  // namespace cudabridge::usb4
