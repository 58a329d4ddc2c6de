// Step 1: which eGPUs the transport sees. Enclosures come from the transport's enumeration;
// what a simulated enclosure holds and how much power it can give comes from its layout.
#include <cudabridge/host/device.hpp>
#include <cudabridge/host/session.hpp>

#include "connection/shared_connection_state.hpp"
#include "session/simulated_fabric_wiring.hpp"

#include <cudabridge/core/store.hpp>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <map>

namespace cudabridge::host {
namespace {

std::vector<cb_endpoint_info> enumerate_endpoints(session& s) {
    size_t count = 0;
    if (s.transport()->enumerate(s.transport_instance(), nullptr, 0, &count) != CB_OK)
        throw core::error(CB_ERR_INTERNAL,
                          "the " + s.transport_info().name + " transport cannot enumerate: " + core::last_error());
    std::vector<cb_endpoint_info> v(count + 8);  // room for a hot-plug between the two calls
    for (auto& e : v) e.struct_size = sizeof e;
    if (s.transport()->enumerate(s.transport_instance(), v.data(), v.size(), &count) != CB_OK)
        throw core::error(CB_ERR_INTERNAL,
                          "the " + s.transport_info().name + " transport cannot enumerate: " + core::last_error());
    v.resize(std::min(count, v.size()));
    return v;
}

struct advertised {
    std::string gpu_model;
    uint16_t vendor = 0, device = 0;
    double power_w = 0;
};

// From a simulated fabric's layout (a real transport has none: nothing is known before the
// tunnel is up, except what a known device's record remembers).
std::map<std::string, advertised> advertised_by_enclosure(session& s) {
    std::map<std::string, advertised> out;
    cb_status st = CB_OK;
    const std::string reply = transport_control(s.transport(), s.transport_instance(), R"({"op":"layout"})", st);
    if (st != CB_OK) return out;
    try {
        auto layout = Poco::JSON::Parser().parse(reply).extract<Poco::JSON::Object::Ptr>()->getObject("layout");
        auto enclosures = layout ? layout->getArray("enclosures") : nullptr;
        for (size_t i = 0; enclosures && i < enclosures->size(); ++i) {
            auto e = enclosures->getObject(static_cast<unsigned>(i));
            advertised a;
            a.gpu_model = e->optValue<std::string>("gpu_model", "");
            a.vendor = static_cast<uint16_t>(e->optValue<int>("gpu_vendor_id", 0));
            a.device = static_cast<uint16_t>(e->optValue<int>("gpu_device_id", 0));
            a.power_w = e->optValue<double>("power_budget_w", 0);
            out[e->optValue<std::string>("id", "")] = a;
        }
    } catch (const std::exception&) {
    }
    return out;
}

}  // namespace

std::vector<detected_device> detect(session& s) {
    const auto endpoints = enumerate_endpoints(s);
    const auto ads = advertised_by_enclosure(s);
    const auto folder = connection_state_folder(s.db().path());
    std::vector<detected_device> out;
    for (const auto& e : endpoints) {
        if (e.kind != CB_ENDPOINT_DEVICE_ROUTER) continue;
        detected_device d;
        d.enclosure = e;
        for (const auto& f : endpoints)
            if (f.kind == CB_ENDPOINT_PCI_FUNCTION && std::string_view(f.parent_id) == e.id) {
                if (!d.function) d.function = f;
                d.functions.push_back(f);
            }
        if (auto it = ads.find(e.id); it != ads.end()) {
            d.gpu_model = it->second.gpu_model;
            d.advertised_vendor_id = it->second.vendor;
            d.advertised_device_id = it->second.device;
            d.power_budget_w = it->second.power_w;
        }
        try {
            shared_connection_state shared(folder, e.id);
            d.connected_elsewhere = shared.state() == shared_link_state::connected;
        } catch (const std::exception&) {
        }
        out.push_back(d);
    }
    return out;
}

}  // namespace cudabridge::host
