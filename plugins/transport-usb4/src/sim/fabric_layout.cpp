#include "sim/fabric_layout.hpp"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <sstream>

namespace cudabridge::usb4 {

namespace {

constexpr const char* security_names[] = {"none", "user", "secure", "dponly", "usbonly", "nopcie"};

template <class T>
T get_or(const Poco::JSON::Object::Ptr& o, const std::string& key, T fallback) {
    return o->has(key) ? o->getValue<T>(key) : fallback;
}

bool valid_key_hex(const std::string& k) {
    if (k.empty()) return true;
    if (k.size() != 64) return false;
    for (char c : k)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

}  // namespace

const char* security_key(cb_security_level level) noexcept {
    return level >= 0 && level <= CB_SECURITY_NOPCIE ? security_names[level] : "unknown";
}

std::optional<cb_security_level> parse_security(std::string_view text) {
    for (int i = 0; i <= CB_SECURITY_NOPCIE; ++i)
        if (text == security_names[i]) return i;
    return std::nullopt;
}

const char* host_key(host_kind host) noexcept { return host == host_kind::x86 ? "x86" : "apple-silicon"; }

std::optional<host_kind> parse_host(std::string_view text) {
    if (text == "apple-silicon") return host_kind::apple_silicon;
    if (text == "x86") return host_kind::x86;
    return std::nullopt;
}

fabric_layout default_layout() {
    fabric_layout l;
    l.host = host_kind::apple_silicon;
    l.domains.push_back(domain_layout{});
    enclosure_layout e;
    e.id = "cb5a1e00-0000-4000-8000-000000000001";
    e.name = "Simulated Thunderbolt 4 eGPU enclosure";
    e.vendor = "CudaBridge";
    e.generation = "tb4";
    // The RTX 5090's board power is 575 W (NVIDIA spec); enclosures for it ship 750 W+ supplies.
    e.power_budget_w = 750;
    e.gpu_model = "rtx-5090";
    e.gpu_vendor_id = 0x10de;
    e.gpu_device_id = 0x2b85;  // GB202 [GeForce RTX 5090], pci.ids
    l.enclosures.push_back(e);
    return l;
}

std::string to_json(const fabric_layout& layout) {
    Poco::JSON::Object root(Poco::JSON_PRESERVE_KEY_ORDER);
    root.set("host", std::string(host_key(layout.host)));
    Poco::JSON::Array domains;
    for (const auto& d : layout.domains) {
        Poco::JSON::Object o(Poco::JSON_PRESERVE_KEY_ORDER);
        o.set("index", d.index);
        o.set("security", std::string(security_key(d.security)));
        o.set("iommu_dma_protection", d.iommu_dma_protection);
        o.set("deauthorization", d.deauthorization);
        domains.add(o);
    }
    root.set("domains", domains);
    Poco::JSON::Array enclosures;
    for (const auto& e : layout.enclosures) {
        Poco::JSON::Object o(Poco::JSON_PRESERVE_KEY_ORDER);
        o.set("id", e.id);
        o.set("name", e.name);
        o.set("vendor", e.vendor);
        o.set("domain", e.domain);
        o.set("generation", e.generation);
        o.set("power_budget_w", e.power_budget_w);
        o.set("gpu_model", e.gpu_model);
        o.set("gpu_vendor_id", static_cast<int>(e.gpu_vendor_id));
        o.set("gpu_device_id", static_cast<int>(e.gpu_device_id));
        o.set("plugged", e.plugged);
        o.set("authorized", static_cast<int>(e.authorized));
        o.set("key", e.key_hex);
        o.set("fault_seq", e.fault_seq);
        o.set("fault", e.fault_json);
        o.set("fault_event_spent_seq", e.fault_event_spent_seq);
        enclosures.add(o);
    }
    root.set("enclosures", enclosures);
    std::ostringstream out;
    root.stringify(out);
    return out.str();
}

std::optional<fabric_layout> layout_from_json(std::string_view json, std::string& error) {
    try {
        Poco::JSON::Parser parser;
        auto root = parser.parse(std::string(json)).extract<Poco::JSON::Object::Ptr>();
        fabric_layout l;
        auto host = parse_host(get_or<std::string>(root, "host", "apple-silicon"));
        if (!host) {
            error = "host must be apple-silicon or x86";
            return std::nullopt;
        }
        l.host = *host;
        auto domains = root->getArray("domains");
        for (size_t i = 0; domains && i < domains->size(); ++i) {
            auto o = domains->getObject(static_cast<unsigned>(i));
            domain_layout d;
            d.index = get_or<uint32_t>(o, "index", static_cast<uint32_t>(i));
            auto sec = parse_security(get_or<std::string>(o, "security", "user"));
            if (!sec) {
                error = "domains[" + std::to_string(i) + "].security is not a security level";
                return std::nullopt;
            }
            d.security = *sec;
            d.iommu_dma_protection = get_or<bool>(o, "iommu_dma_protection", true);
            d.deauthorization = get_or<bool>(o, "deauthorization", true);
            l.domains.push_back(d);
        }
        auto enclosures = root->getArray("enclosures");
        for (size_t i = 0; enclosures && i < enclosures->size(); ++i) {
            auto o = enclosures->getObject(static_cast<unsigned>(i));
            const std::string where = "enclosures[" + std::to_string(i) + "]";
            enclosure_layout e;
            e.id = get_or<std::string>(o, "id", "");
            if (e.id.empty()) {
                error = where + ".id is missing";
                return std::nullopt;
            }
            e.name = get_or<std::string>(o, "name", "");
            e.vendor = get_or<std::string>(o, "vendor", "");
            e.domain = get_or<uint32_t>(o, "domain", 0);
            e.generation = get_or<std::string>(o, "generation", "tb4");
            e.power_budget_w = get_or<double>(o, "power_budget_w", 0);
            e.gpu_model = get_or<std::string>(o, "gpu_model", "");
            e.gpu_vendor_id = static_cast<uint16_t>(get_or<int>(o, "gpu_vendor_id", 0));
            e.gpu_device_id = static_cast<uint16_t>(get_or<int>(o, "gpu_device_id", 0));
            e.plugged = get_or<bool>(o, "plugged", true);
            const int auth = get_or<int>(o, "authorized", 0);
            if (auth < CB_AUTH_NONE || auth > CB_AUTH_SECURE) {
                error = where + ".authorized must be 0, 1 or 2";
                return std::nullopt;
            }
            e.authorized = auth;
            e.key_hex = get_or<std::string>(o, "key", "");
            if (!valid_key_hex(e.key_hex)) {
                error = where + ".key must be 64 hex digits (32 bytes) or empty";
                return std::nullopt;
            }
            e.fault_seq = get_or<uint64_t>(o, "fault_seq", 0);
            e.fault_json = get_or<std::string>(o, "fault", "");
            e.fault_event_spent_seq = get_or<uint64_t>(o, "fault_event_spent_seq", 0);
            bool domain_known = false;
            for (const auto& d : l.domains) domain_known |= d.index == e.domain;
            if (!domain_known) {
                error = where + ".domain " + std::to_string(e.domain) + " does not exist";
                return std::nullopt;
            }
            for (const auto& other : l.enclosures)
                if (other.id == e.id) {
                    error = where + ".id " + e.id + " is used twice";
                    return std::nullopt;
                }
            l.enclosures.push_back(e);
        }
        return l;
    } catch (const Poco::Exception& ex) {
        error = "not a fabric layout: " + ex.displayText();
    } catch (const std::exception& ex) {
        error = std::string("not a fabric layout: ") + ex.what();
    }
    return std::nullopt;
}

}  // namespace cudabridge::usb4
