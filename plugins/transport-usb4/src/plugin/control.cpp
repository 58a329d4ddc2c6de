// The control entry: simulator and fault-injection requests as JSON ({"op": ...}).
#include "plugin/control_json.hpp"
#include "plugin/usb4_transport.hpp"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>

#include <sstream>

namespace cudabridge::usb4 {

namespace {

Poco::JSON::Object::Ptr object() { return new Poco::JSON::Object(Poco::JSON_PRESERVE_KEY_ORDER); }

fault_request fault_from(const Poco::JSON::Object::Ptr& r) {
    fault_request f;
    f.bit_error_rate = number_field(r, "bit_error_rate");
    if (auto ms = number_field(r, "link_drop_ms")) {
        if (*ms < 0) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "link_drop_ms must be 0 or more");
        f.link_drop_ns = static_cast<uint64_t>(*ms * 1e6);
    }
    if (auto b = number_field(r, "unplug_after_bytes")) {
        if (*b < 0) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "unplug_after_bytes must be 0 or more");
        f.unplug_after_bytes = static_cast<uint64_t>(*b);
    }
    f.unplug_now = bool_field(r, "unplug_now");
    f.dart_exhausted = bool_field(r, "dart_exhausted");
    f.stuck = bool_field(r, "stuck");
    return f;
}

Poco::JSON::Object::Ptr status_json(const cb_link_status& s) {
    auto o = object();
    o->set("up", s.up != 0);
    o->set("h2d_gbs", s.h2d_bandwidth_gbs);
    o->set("d2h_gbs", s.d2h_bandwidth_gbs);
    o->set("bytes_to_device", s.bytes_to_device);
    o->set("bytes_from_device", s.bytes_from_device);
    o->set("packets", s.packets);
    o->set("crc_errors", s.crc_errors);
    o->set("replays", s.replays);
    o->set("uncorrectable_errors", s.uncorrectable_errors);
    o->set("modeled_time_ns", s.modeled_time_ns);
    o->set("modeled", s.is_simulated != 0);
    return o;
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
        reply->set("layout", parser.parse(to_json(sim_fabric().layout())));
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
        size_t applied = 0;
        std::lock_guard lock(links_mutex_);
        for (auto& [handle, link] : links_)
            if (!id || link->enclosure_id() == *id) {
                link->inject(f);
                ++applied;
            }
        if (applied == 0)
            throw sdk::status_error(CB_ERR_NOT_FOUND, "no open link" + (id ? " to " + *id : std::string()) +
                                                          " to inject a fault into");
        reply->set("links", applied);
        return stringify(reply);
    }
    if (op == "links") {
        Poco::JSON::Array::Ptr links = new Poco::JSON::Array;
        std::lock_guard lock(links_mutex_);
        for (auto& [handle, link] : links_) {
            cb_link_status s{};
            link->status(s);
            auto o = status_json(s);
            o->set("enclosure", link->enclosure_id());
            links->add(o);
        }
        reply->set("links", links);
        return stringify(reply);
    }
    throw sdk::status_error(CB_ERR_UNSUPPORTED, "unknown control op '" + op +
                                                    "' (backend, layout, set_layout, plug, unplug, fault, links)");
}

}  // namespace cudabridge::usb4
