// `devices` (boltctl list + lspci in one view) and `forget DEVICE` (boltctl forget).
#include "app.hpp"
#include "device_text.hpp"
#include "json_output.hpp"
#include "text_table.hpp"
#include "time_text.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/store.hpp>

#include <iostream>
#include <mutex>

namespace cudabridge::cli {

namespace {

std::string class_text(uint32_t code) {
    switch (code >> 8) {
    case 0x0300:
        return "VGA compatible controller";
    case 0x0302:
        return "3D controller";
    case 0x0403:
        return "Audio device";
    case 0x0c03:
        return "USB controller";
    default: {
        char buf[16];
        std::snprintf(buf, sizeof buf, "class %06x", code);
        return buf;
    }
    }
}

json_object function_json(const cb_endpoint_info& f) {
    auto o = make_object();
    o->set("address", std::string(f.id));
    o->set("vendor_id", hex16(f.pci_vendor_id));
    o->set("device_id", hex16(f.pci_device_id));
    o->set("class", hex16(f.pci_class_code >> 8));
    o->set("class_name", class_text(f.pci_class_code));
    o->set("driver", std::string(f.driver));
    o->set("pcie_link_generation", f.pcie_link_gen);
    o->set("pcie_link_width", f.pcie_link_width);
    return o;
}

json_object device_json(host::session& s, const host::detected_device& d, size_t index) {
    const auto& e = d.enclosure;
    std::optional<core::known_device_row> known;
    std::vector<core::session_row> newest;
    {
        std::lock_guard lock(s.store_mutex());
        known = core::find_known_device(s.db(), e.id);
        newest = core::list_sessions(s.db(), e.id, 1);
    }
    auto o = make_object();
    o->set("index", index);
    o->set("id", std::string(e.id));
    o->set("name", std::string(e.name));
    o->set("vendor", std::string(e.vendor_name));
    o->set("domain", e.domain);
    o->set("generation", std::string(generation_key(e.generation)));
    o->set("generation_name", std::string(generation_name(e.generation)));
    o->set("lanes", e.lanes);
    o->set("lane_speed_gbps", e.lane_speed_gbps);
    o->set("link_speed_gbps", e.lane_speed_gbps * e.lanes);
    o->set("security_level", std::string(security_name(e.security_level)));
    o->set("authorized", std::string(authorization_name(e.authorized)));
    o->set("iommu_dma_protection", e.iommu_dma_protection != 0);
    o->set("known", known.has_value());
    o->set("policy", known ? known->policy : std::string("none"));
    o->set("enrolled", known && !known->key.empty());
    if (known) {
        o->set("first_seen", format_local_time(known->first_seen_ns));
        o->set("last_seen", format_local_time(known->last_seen_ns));
    }
    o->set("connected", d.connected_elsewhere);
    // boltctl's "connected" time: when the newest connection began (authorization is one of its
    // steps), and when it ended, if it has.
    if (!newest.empty()) {
        o->set("last_connected", format_local_time(newest.front().started_ns));
        if (newest.front().ended_ns) o->set("last_disconnected", format_local_time(*newest.front().ended_ns));
    }
    o->set("gpu_model", d.gpu_model);
    if (d.advertised_device_id)
        o->set("advertised_gpu", hex16(d.advertised_vendor_id) + ":" + hex16(d.advertised_device_id).substr(2));
    if (d.power_budget_w > 0) o->set("power_budget_w", d.power_budget_w);
    o->set("simulated", e.is_simulated != 0);
    auto functions = make_array();
    for (const auto& f : d.functions) functions->add(function_json(f));
    o->set("pci_functions", functions);
    return o;
}

int run_devices(app& a, const std::vector<std::string>& args) {
    if (!args.empty()) throw usage_error("devices takes no arguments");
    auto& s = a.session();
    const auto detected = host::detect(s);
    auto arr = make_array();
    for (size_t i = 0; i < detected.size(); ++i) arr->add(device_json(s, detected[i], i));
    if (a.options().json) {
        auto o = make_object();
        o->set("devices", arr);
        print_json(o);
        return exit_ok;
    }
    if (detected.empty()) {
        std::cout << "No eGPU enclosure found by the " << s.transport_info().name << " transport.\n";
        return exit_ok;
    }
    for (size_t i = 0; i < arr->size(); ++i) {
        auto o = arr->getObject(static_cast<unsigned>(i));
        const bool connected = o->getValue<bool>("connected");
        std::cout << (a.color() ? (connected ? "\033[32m●\033[0m " : "○ ") : (connected ? "* " : "- "))
                  << o->getValue<std::string>("name") << "  [" << i << "]"
                  << (o->getValue<bool>("simulated") ? " (simulated)" : "") << "\n"
                  << "  ├─ vendor:     " << o->getValue<std::string>("vendor") << "\n"
                  << "  ├─ uuid:       " << o->getValue<std::string>("id") << "\n"
                  << "  ├─ generation: " << o->getValue<std::string>("generation_name") << "\n"
                  << "  ├─ link:       " << o->getValue<uint32_t>("lanes") << " x "
                  << fixed(o->getValue<double>("lane_speed_gbps"), 1)
                  << " Gb/s = " << fixed(o->getValue<double>("link_speed_gbps"), 1) << " Gb/s\n"
                  << "  ├─ security:   " << o->getValue<std::string>("security_level") << " (domain "
                  << o->getValue<uint32_t>("domain") << "), " << o->getValue<std::string>("authorized") << "\n"
                  << "  ├─ stored:     "
                  << (o->getValue<bool>("known") ? "yes, policy " + o->getValue<std::string>("policy") +
                                                       (o->getValue<bool>("enrolled") ? ", key enrolled" : "") +
                                                       ", last seen " + o->getValue<std::string>("last_seen")
                                                 : std::string("no"))
                  << "\n"
                  << "  ├─ status:     " << (connected ? "connected" : "not connected")
                  << (o->has("last_connected")
                          ? (connected ? " since " : ", last connected ") + o->getValue<std::string>("last_connected")
                          : std::string())
                  << "\n";
        auto functions = o->getArray("pci_functions");
        if (functions->size() == 0)
            std::cout << "  └─ pci:        "
                      << (o->getValue<std::string>("gpu_model").empty()
                              ? "no function (empty enclosure)"
                              : "no function yet (tunnel not up); holds " + o->getValue<std::string>("gpu_model"))
                      << "\n";
        for (size_t k = 0; k < functions->size(); ++k) {
            auto f = functions->getObject(static_cast<unsigned>(k));
            std::cout << "  " << (k + 1 == functions->size() ? "└─" : "├─")
                      << " pci:        " << f->getValue<std::string>("address") << " "
                      << f->getValue<std::string>("class_name") << " ["
                      << f->getValue<std::string>("vendor_id").substr(2) << ":"
                      << f->getValue<std::string>("device_id").substr(2) << "], driver "
                      << (f->getValue<std::string>("driver").empty() ? "none" : f->getValue<std::string>("driver"))
                      << ", PCIe gen " << f->getValue<uint32_t>("pcie_link_generation") << " x"
                      << f->getValue<uint32_t>("pcie_link_width") << "\n";
        }
    }
    return exit_ok;
}

int run_forget(app& a, const std::vector<std::string>& args) {
    if (args.size() != 1) throw usage_error("forget needs one DEVICE (a unique id, a name or an index from 'devices')");
    auto& s = a.session();
    std::string id = args[0];
    const auto detected = host::detect(s);
    for (size_t i = 0; i < detected.size(); ++i)
        if (args[0] == std::to_string(i) || args[0] == detected[i].enclosure.name) id = detected[i].enclosure.id;
    bool forgotten = false;
    {
        std::lock_guard lock(s.store_mutex());
        forgotten = core::forget_device(s.db(), id);
    }
    if (!forgotten)
        throw cli_error(exit_no_device, "no stored device '" + args[0] + "' ('cudabridge-cli devices' lists them)");
    s.record_event(id, "EGPU", CB_SEVERITY_INFO, "device.forget",
                   "device " + id + " forgotten: its policy and key are dropped");
    if (a.options().json) {
        auto o = make_object();
        o->set("forgotten", id);
        print_json(o);
    } else {
        std::cout << "Forgot " << id
                  << ": its stored policy and key are gone (it is asked for again on the next connect).\n";
    }
    return exit_ok;
}

}  // namespace

command devices_command() {
    return {"devices",
            "ls",
            "list the enclosures and PCI functions the transports see",
            "devices",
            "Every Thunderbolt / USB4 device router the transport sees, real or simulated: name, vendor,\n"
            "unique id, generation, lanes x speed, security level, authorization, the stored policy,\n"
            "and the PCI functions behind it (vendor:device ids, class, bound driver, PCIe generation\n"
            "and width read at the enclosure's port) - boltctl list and lspci in one view.\n"
            "Examples:\n"
            "  cudabridge-cli devices\n"
            "  cudabridge-cli ls --json",
            false,
            run_devices};
}

command forget_command() {
    return {"forget",
            "",
            "drop a remembered device and its key (boltctl forget)",
            "forget DEVICE",
            "Removes the device's stored record: its policy and, in a secure domain, its key; the next\n"
            "connect treats it as new (and needs --enroll there). DEVICE is a unique id, a name or an\n"
            "index from 'devices'. Exit code 3 when no such device is stored.\n"
            "Example:\n"
            "  cudabridge-cli forget 0",
            false,
            run_forget};
}

}  // namespace cudabridge::cli
