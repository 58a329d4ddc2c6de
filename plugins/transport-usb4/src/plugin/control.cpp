// The control entry: simulator and fault-injection requests as JSON ({"op": ...}).
#include "plugin/control_json.hpp"
#include "plugin/usb4_transport.hpp"
#include "link/generation.hpp"

#include "sysfs_link_report.hpp"
#include "sysfs_pci_removal.hpp"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>

#include <map>
#include <sstream>

namespace cudabridge::usb4 {

namespace {

Poco::JSON::Object::Ptr object() { return new Poco::JSON::Object(Poco::JSON_PRESERVE_KEY_ORDER); }

Poco::JSON::Object::Ptr counters_json(const link_counters& c) {
    auto o = object();
    o->set("modeled", true);  // every figure of a simulated link is modeled, not measured
    o->set("packets_to_device", c.packets_to_device);
    o->set("packets_from_device", c.packets_from_device);
    o->set("bytes_to_device", c.bytes_to_device);
    o->set("bytes_from_device", c.bytes_from_device);
    o->set("crc_errors", c.crc_errors);
    o->set("replays", c.replays);
    o->set("mappings", c.mappings);
    o->set("peak_mappings", c.peak_mappings);
    o->set("mapped_bytes", c.mapped_bytes);
    o->set("peak_mapped_bytes", c.peak_mapped_bytes);
    o->set("map_failures", c.map_failures);
    o->set("translation_faults", c.translation_faults);
    o->set("dma_failures", c.dma_failures);
    o->set("modeled_time_ns", c.modeled_ns);
    return o;
}

Poco::JSON::Object::Ptr aer_json(const linux_sysfs::aer_counters& a) {
    auto o = object();
    o->set("available", a.available);
    o->set("correctable", a.correctable);
    o->set("nonfatal", a.nonfatal);
    o->set("fatal", a.fatal);
    return o;
}

Poco::JSON::Object::Ptr link_report_json(const linux_sysfs::pci_link_report& r) {
    auto o = object();
    o->set("modeled", false);  // read from the kernel: measured on this machine's hardware
    o->set("function", r.function);
    o->set("port", r.port);
    o->set("tunnel_bridge", r.tunnel_bridge);
    o->set("current_gen", r.current_gen);
    o->set("current_width", r.current_width);
    o->set("max_gen", r.max_gen);
    o->set("max_width", r.max_width);
    o->set("downgraded", r.downgraded);
    o->set("port_aer", aer_json(r.port_aer));
    o->set("function_aer", aer_json(r.function_aer));
    return o;
}

Poco::JSON::Array::Ptr steps_json(const std::vector<std::string>& steps) {
    Poco::JSON::Array::Ptr a = new Poco::JSON::Array;
    for (const auto& s : steps) a->add(s);
    return a;
}

}  // namespace

std::string usb4_transport::handle_control(const std::string& request) {
    auto r = parse_request(request);
    const std::string op = text_field(r, "op").value_or("");
    auto reply = object();
    reply->set("op", op);
    if (op == "backend") {
        reply->set("simulated", backend_.simulated);
        reply->set("reason", backend_.reason);
        reply->set("sysfs_root", sysfs_root_.string());
        return stringify(reply);
    }
    if (op == "layout") {
        Poco::JSON::Parser parser;
        auto layout = parser.parse(to_json(sim_fabric().layout())).extract<Poco::JSON::Object::Ptr>();
        // Also what each enclosure's PCIe side trains to (for the GPU model it will host).
        auto enclosures = layout->getArray("enclosures");
        for (size_t i = 0; enclosures && i < enclosures->size(); ++i) {
            auto e = enclosures->getObject(static_cast<unsigned>(i));
            if (auto gen = parse_generation(e->optValue<std::string>("generation", ""))) {
                e->set("pcie_link_gen", spec_of(*gen).pcie_gen);
                e->set("pcie_link_width", spec_of(*gen).pcie_width);
            }
        }
        reply->set("layout", layout);
        return stringify(reply);
    }
    if (op == "set_layout") {
        if (!r->has("layout")) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "set_layout needs 'layout'");
        std::ostringstream text;
        r->getObject("layout")->stringify(text);
        std::string why;
        auto layout = layout_from_json(text.str(), why);
        if (!layout) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, why);
        sim_fabric().replace_layout(*layout);
        reply->set("ok", true);
        return stringify(reply);
    }
    if (op == "reset_layout") {
        sim_fabric().replace_layout(default_layout());
        reply->set("ok", true);
        return stringify(reply);
    }
    if (op == "plug" || op == "unplug") {
        const auto id = text_field(r, "id");
        if (!id) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, op + " needs 'id' (an enclosure unique id)");
        std::string message;
        cb_status st = sim_fabric().set_plugged(*id, op == "plug", message);
        if (st != CB_OK) throw sdk::status_error(st, message);
        for_links_of(*id, op == "unplug");
        host_.log(CB_LOG_INFO, "USB4", message);
        reply->set("message", message);
        return stringify(reply);
    }
    if (op == "fault") {
        const fault_request f = fault_from(r);
        const auto id = text_field(r, "id");
        const bool shared = bool_field(r, "shared").value_or(false);
        size_t posted = 0;
        std::map<std::string, uint64_t> posted_seq;  // enclosure -> the sequence now stored
        if (shared) {
            // Every process's links to the enclosure take it at their next status check.
            Poco::JSON::Object::Ptr fault = new Poco::JSON::Object(*r);
            fault->remove("op");
            fault->remove("id");
            fault->remove("shared");
            stamp_posted_drop(*fault);
            std::string message;
            const cb_status st = sim_fabric().post_fault(id.value_or(""), stringify(fault), posted, message);
            if (st != CB_OK) throw sdk::status_error(st, message);
            host_.log(CB_LOG_INFO, "USB4", message);
            for (const auto& e : sim_fabric().layout().enclosures) posted_seq[e.id] = e.fault_seq;
        }
        size_t applied = 0;
        std::lock_guard lock(links_mutex_);
        for (auto& [handle, link] : links_)
            if (!id || link->enclosure_id() == *id) {
                link->inject(f);
                // Posted and applied here already: the sync must not apply it a second time.
                if (shared) link->set_seen_fault_seq(posted_seq[link->enclosure_id()]);
                ++applied;
            }
        reply->set("posted", posted);
        if (applied == 0 && !shared)
            throw sdk::status_error(CB_ERR_NOT_FOUND,
                                    "no open link" + (id ? " to " + *id : std::string()) + " to inject a fault into");
        reply->set("links", applied);
        return stringify(reply);
    }
    if (op == "links") {
        Poco::JSON::Array::Ptr links = new Poco::JSON::Array;
        std::lock_guard lock(links_mutex_);
        for (auto& [handle, link] : links_) {
            auto o = counters_json(link->counters());
            o->set("enclosure", link->enclosure_id());
            links->add(o);
        }
        reply->set("links", links);
        return stringify(reply);
    }
    if (op == "safe_remove" || op == "rescan" || op == "link_report") {
        if (backend_.simulated)
            throw sdk::status_error(CB_ERR_UNSUPPORTED,
                                    op + " acts on real hardware; the simulated fabric runs (" + backend_.reason + ")");
        std::vector<std::string> steps;
        std::string error;
        cb_status st = CB_OK;
        const auto pci = text_field(r, "pci");
        if (op != "rescan" && !pci)
            throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, op + " needs 'pci' (a DDDD:BB:DD.F address)");
        if (op == "link_report") {
            linux_sysfs::pci_link_report report;
            st = linux_sysfs::read_link_report(sysfs_root_, *pci, report, error);
            if (st != CB_OK) throw sdk::status_error(st, error);
            reply->set("report", link_report_json(report));
            return stringify(reply);
        }
        st = op == "rescan" ? linux_sysfs::rescan(sysfs_root_, steps, error)
                            : linux_sysfs::safe_remove(sysfs_root_, *pci, steps, error);
        if (st != CB_OK) throw sdk::status_error(st, error);
        for (const auto& step : steps) host_.log(CB_LOG_INFO, "PCIE", step);
        reply->set("steps", steps_json(steps));
        return stringify(reply);
    }
    throw sdk::status_error(
        CB_ERR_UNSUPPORTED,
        "unknown control op '" + op +
            "' (backend, layout, set_layout, reset_layout, plug, unplug, fault, links, safe_remove, rescan, "
            "link_report)");
}

}  // namespace cudabridge::usb4
