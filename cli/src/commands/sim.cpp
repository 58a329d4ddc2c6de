// `sim list | plug MODEL [--link L] [--security S] [--name NAME] [--power W] | plug N | unplug N |
//  remove N | fault KIND [ARG] [--enclosure N] | host apple-silicon|x86 | reset`: the simulated
// fabric, as every process sees it (it is kept in the store).
#include "app.hpp"
#include "device_text.hpp"
#include "json_output.hpp"
#include "text_table.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/gpu_profiles.hpp>
#include <cudabridge/core/store.hpp>
#include <cudabridge/cpp/bool_text.hpp>

#include <Poco/JSON/Parser.h>
#include <Poco/TextIterator.h>
#include <Poco/UTF8Encoding.h>
#include <boost/program_options.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <random>

namespace cudabridge::cli {

namespace po = boost::program_options;

namespace {

json_object control(host::session& s, const json_object& request) {
    std::ostringstream text;
    request->stringify(text);
    return Poco::JSON::Parser().parse(s.transport_control(text.str())).extract<json_object>();
}

json_object request(const std::string& op) {
    auto r = make_object();
    r->set("op", op);
    return r;
}

json_object layout(host::session& s) {
    auto reply = control(s, request("layout"));
    auto l = reply->getObject("layout");
    if (!l) throw cli_error(exit_error, "the transport returned no layout");
    return l;
}

void set_layout(host::session& s, const json_object& l) {
    auto r = request("set_layout");
    r->set("layout", l);
    control(s, r);
}

json_array enclosures(const json_object& l) {
    auto a = l->getArray("enclosures");
    if (!a) throw cli_error(exit_error, "the layout lists no enclosures");
    return a;
}

// N (an index in the layout) or an enclosure id -> the enclosure's index.
size_t enclosure_index(const json_object& l, const std::string& which) {
    auto all = enclosures(l);
    for (size_t i = 0; i < all->size(); ++i) {
        auto e = all->getObject(static_cast<unsigned>(i));
        if (which == std::to_string(i) || which == e->getValue<std::string>("id")) return i;
    }
    throw cli_error(exit_no_device, "no simulated enclosure '" + which + "' (" + std::to_string(all->size()) +
                                        " in the fabric; 'cudabridge-cli sim list' shows them)");
}

std::string link_key(const std::string& link) {
    if (link == "tb3" || link == "tb4" || link == "usb4-20" || link == "usb4-40" || link == "usb4v2-80" ||
        link == "usb4v2-120" || link == "oculink")
        return link;
    if (link == "usb4") return "usb4-40";
    if (link == "tb5") return "usb4v2-80";
    throw usage_error("unknown link '" + link + "' (tb3, tb4, usb4, tb5, usb4-20, usb4v2-120, oculink)");
}

std::string new_enclosure_id() {
    std::random_device rd;
    std::uniform_int_distribution<uint64_t> dist;
    const uint64_t a = dist(rd), b = dist(rd);
    char buf[40];
    std::snprintf(buf, sizeof buf, "cb5a1e00-%04x-4%03x-8%03x-%012llx", static_cast<unsigned>(a & 0xffff),
                  static_cast<unsigned>((a >> 16) & 0xfff), static_cast<unsigned>((a >> 28) & 0xfff),
                  static_cast<unsigned long long>(b & 0xffffffffffffull));
    return buf;
}

// The domain with this security level, added to the layout when there is none.
uint32_t domain_for(const json_object& l, const std::string& security) {
    auto domains = l->getArray("domains");
    uint32_t next = 0;
    for (size_t i = 0; domains && i < domains->size(); ++i) {
        auto d = domains->getObject(static_cast<unsigned>(i));
        const auto index = d->getValue<uint32_t>("index");
        if (d->getValue<std::string>("security") == security) return index;
        next = std::max(next, index + 1);
    }
    auto d = make_object();
    d->set("index", next);
    d->set("security", security);
    d->set("iommu_dma_protection", true);
    d->set("deauthorization", true);
    domains->add(d);
    return next;
}

core::gpu_profile_row profile_for(host::session& s, const std::string& model) {
    std::lock_guard lock(s.store_mutex());
    if (auto p = core::find_effective_gpu_profile_by_key(s.db(), model)) return *p;
    std::string keys;
    for (const auto& p : core::list_gpu_profiles(s.db())) keys += (keys.empty() ? "" : ", ") + p.key;
    throw cli_error(exit_error, "no GPU profile '" + model + "' (known: " + keys + ")");
}

int list(app& a) {
    auto& s = a.session();
    const auto l = layout(s);
    const auto all = enclosures(l);
    const auto detected = host::detect(s);
    auto connected = [&](const std::string& id) {
        for (const auto& d : detected)
            if (id == d.enclosure.id) return d.connected_elsewhere;
        return false;
    };
    if (a.options().json) {
        for (size_t i = 0; i < all->size(); ++i) {
            auto e = all->getObject(static_cast<unsigned>(i));
            e->set("index", i);
            e->set("connected", connected(e->getValue<std::string>("id")));
            e->remove("key");  // a secret: never printed
            // The posted fault is stored as JSON text; it is shown as the object it is ({} when none).
            const std::string fault = e->optValue<std::string>("fault", "");
            e->set("fault", fault.empty() ? make_object() : Poco::JSON::Parser().parse(fault).extract<json_object>());
        }
        auto o = make_object();
        o->set("host", l->getValue<std::string>("host"));
        o->set("domains", l->getArray("domains"));
        o->set("enclosures", all);
        print_json(o);
        return exit_ok;
    }
    std::map<uint32_t, std::string> security;
    auto domains = l->getArray("domains");
    for (size_t i = 0; domains && i < domains->size(); ++i) {
        auto d = domains->getObject(static_cast<unsigned>(i));
        security[d->getValue<uint32_t>("index")] = d->getValue<std::string>("security");
    }
    std::cout << "Simulated host: " << l->getValue<std::string>("host")
              << (l->getValue<std::string>("host") == "apple-silicon" ? " (DART limits on)" : " (no DART limits)")
              << "\n";
    text_table t({"N", "ENCLOSURE", "LINK", "SECURITY", "GPU", "POWER", "PLUGGED", "STATE", "ID"});
    for (size_t i = 0; i < all->size(); ++i) {
        auto e = all->getObject(static_cast<unsigned>(i));
        const std::string id = e->getValue<std::string>("id");
        t.add({std::to_string(i), e->getValue<std::string>("name"), e->getValue<std::string>("generation"),
               security[e->getValue<uint32_t>("domain")],
               e->getValue<std::string>("gpu_model").empty() ? "(empty)" : e->getValue<std::string>("gpu_model"),
               fixed(e->getValue<double>("power_budget_w"), 0) + " W", e->getValue<bool>("plugged") ? "yes" : "no",
               connected(id) ? "connected" : "-", id});
    }
    t.print(std::cout);
    return exit_ok;
}

// An enclosure's name is stored, sent in control requests and shown in tables: at most 96 bytes
// (NVML's device name buffer), printable, valid UTF-8 (what JSON carries).
void check_enclosure_name(const std::string& name) {
    constexpr size_t max_bytes = 96;
    if (name.empty() || name.size() > max_bytes)
        throw usage_error("--name must be 1 to " + std::to_string(max_bytes) + " bytes, not " +
                          std::to_string(name.size()));
    if (std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
        throw usage_error("--name must not hold control characters");
    Poco::UTF8Encoding utf8;
    for (Poco::TextIterator it(name, utf8), end(name); it != end; ++it)
        if (*it < 0) throw usage_error("--name must be UTF-8 text");
}

int plug_new(app& a, const std::vector<std::string>& args) {
    po::options_description d;
    d.add_options()("model", po::value<std::string>(), "")("link", po::value<std::string>()->default_value("tb4"), "")(
        "security", po::value<std::string>()->default_value("user"), "")("name", po::value<std::string>(), "")(
        "power", po::value<double>(), "");
    po::positional_options_description p;
    p.add("model", 1);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(d).positional(p).run(), vm);
    const std::string security = vm["security"].as<std::string>();
    if (security != "none" && security != "user" && security != "secure")
        throw usage_error("--security must be none, user or secure");
    const std::string link = link_key(vm["link"].as<std::string>());
    auto& s = a.session();
    const auto profile = profile_for(s, vm["model"].as<std::string>());
    auto pj = Poco::JSON::Parser().parse(profile.data).extract<json_object>();
    // Enough for the board at its highest power limit, with headroom, in 50 W steps.
    const double board = pj->optValue<double>("power_max_w", 450);
    const double power = vm.count("power") ? vm["power"].as<double>() : std::ceil((board + 100) / 50) * 50;
    if (!(power > 0) || power > 5000) throw usage_error("--power must be between 0 and 5000 W");
    auto l = layout(s);
    if (vm.count("name")) check_enclosure_name(vm["name"].as<std::string>());
    auto e = make_object();
    const std::string id = new_enclosure_id();
    e->set("id", id);
    e->set("name", vm.count("name") ? vm["name"].as<std::string>()
                                    : "Simulated " + link + " eGPU enclosure (" + profile.key + ")");
    e->set("vendor", std::string("CudaBridge"));
    e->set("domain", domain_for(l, security));
    e->set("generation", link);
    e->set("power_budget_w", power);
    e->set("gpu_model", profile.key);
    e->set("gpu_vendor_id", 0x10de);
    e->set("gpu_device_id", profile.pci_device_id);
    e->set("plugged", true);
    enclosures(l)->add(e);
    set_layout(s, l);
    s.record_event(id, "USB4", CB_SEVERITY_INFO, "sim.plug",
                   "simulated enclosure plugged: " + profile.name + " on " + link + ", security " + security);
    if (a.options().json) {
        auto o = make_object();
        o->set("plugged", id);
        o->set("index", enclosures(l)->size() - 1);
        print_json(o);
    } else {
        std::cout << "Plugged enclosure " << enclosures(l)->size() - 1 << " (" << id << "): " << profile.name << " on "
                  << link << ", security " << security << ", " << fixed(power, 0) << " W\n";
    }
    return exit_ok;
}

int hotplug(app& a, const std::string& which, bool plug) {
    auto& s = a.session();
    const auto l = layout(s);
    const size_t i = enclosure_index(l, which);
    const std::string id = enclosures(l)->getObject(static_cast<unsigned>(i))->getValue<std::string>("id");
    auto r = request(plug ? "plug" : "unplug");
    r->set("id", id);
    const auto reply = control(s, r);
    s.record_event(id, "USB4", plug ? CB_SEVERITY_INFO : CB_SEVERITY_WARNING, plug ? "sim.plug" : "sim.unplug",
                   reply->optValue<std::string>("message", ""));
    if (a.options().json) {
        auto o = make_object();
        o->set(plug ? "plugged" : "unplugged", id);
        o->set("message", reply->optValue<std::string>("message", ""));
        print_json(o);
    } else {
        std::cout << reply->optValue<std::string>("message", "done") << "\n";
    }
    return exit_ok;
}

int remove(app& a, const std::string& which) {
    auto& s = a.session();
    auto l = layout(s);
    const size_t i = enclosure_index(l, which);
    const std::string id = enclosures(l)->getObject(static_cast<unsigned>(i))->getValue<std::string>("id");
    for (const auto& d : host::detect(s))
        if (d.enclosure.id == id && d.connected_elsewhere)
            throw cli_error(exit_error, "enclosure " + which + " is connected: disconnect it first");
    enclosures(l)->remove(static_cast<unsigned>(i));
    set_layout(s, l);
    s.record_event(id, "USB4", CB_SEVERITY_INFO, "sim.remove", "simulated enclosure removed from the fabric");
    if (a.options().json) {
        auto o = make_object();
        o->set("removed", id);
        print_json(o);
    } else {
        std::cout << "Removed enclosure " << which << " (" << id << ") from the simulated fabric.\n";
    }
    return exit_ok;
}

double number(const std::string& text, const char* what) {
    double v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    // !(v >= 0) also refuses NaN, which from_chars reads from "nan"; inf is refused by each
    // fault's upper bound.
    if (ec != std::errc() || p != text.data() + text.size() || !(v >= 0) || !std::isfinite(v))
        throw usage_error(std::string(what) + " must be a number of 0 or more, not '" + text + "'");
    return v;
}

// Nothing after the fault kind means on; otherwise the word reads like a boolean setting.
bool on_off(const std::string& kind, const std::vector<std::string>& rest) {
    if (rest.empty()) return true;
    if (rest.size() > 1) throw usage_error("sim fault " + kind + " takes on or off, not '" + rest[1] + "' after it");
    if (auto on = sdk::parse_bool(rest[0])) return *on;
    throw usage_error("expected on or off: " + sdk::not_a_bool_message(rest[0]));
}

}  // namespace

const std::vector<std::string>& sim_fault_kinds() {
    static const std::vector<std::string> kinds = {"bit-errors",     "link-drop", "unplug-after", "unplug",
                                                   "dart-exhausted", "stuck",     "clear"};
    return kinds;
}

namespace {

// KIND [ARG] -> the transport's fault request fields.
void fault_fields(const std::string& kind, const std::vector<std::string>& rest, json_object& r) {
    auto need = [&](const char* what) {
        if (rest.size() != 1) throw usage_error("sim fault " + kind + " needs " + what);
        return rest[0];
    };
    if (kind == "bit-errors") {
        const double rate = number(need("RATE (bit errors per bit, e.g. 1e-6)"), "RATE");
        if (rate > 0.5) throw usage_error("RATE must be at most 0.5 errors per bit");
        r->set("bit_error_rate", rate);
    } else if (kind == "link-drop") {
        const double ms = number(need("MS (how long the link is down)"), "MS");
        if (ms > 86400000.0) throw usage_error("MS must be at most 86400000 (a day)");
        r->set("link_drop_ms", ms);
    } else if (kind == "unplug-after") {
        const double bytes = number(need("BYTES (DMA bytes before the cable comes out)"), "BYTES");
        if (bytes > 9.0e18) throw usage_error("BYTES must be at most 9e18");
        r->set("unplug_after_bytes", bytes);
    } else if (kind == "unplug") {
        if (!rest.empty()) throw usage_error("sim fault unplug takes no argument");
        r->set("unplug_now", true);
    } else if (kind == "dart-exhausted") {
        r->set("dart_exhausted", on_off(kind, rest));
    } else if (kind == "stuck") {
        r->set("stuck", on_off(kind, rest));
    } else if (kind == "clear") {
        if (!rest.empty()) throw usage_error("sim fault clear takes no argument");
        r->set("bit_error_rate", 0.0);
        r->set("dart_exhausted", false);
        r->set("stuck", false);
    } else {
        throw usage_error("unknown fault '" + kind +
                          "' (bit-errors RATE, link-drop MS, unplug-after BYTES, unplug, dart-exhausted [on|off], "
                          "stuck [on|off], clear)");
    }
}

int fault(app& a, std::vector<std::string> args) {
    std::optional<std::string> which;
    for (size_t i = 0; i < args.size(); ++i)
        if (args[i] == "--enclosure") {
            if (i + 1 >= args.size()) throw usage_error("--enclosure needs N");
            which = args[i + 1];
            args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
            break;
        }
    if (args.empty()) throw usage_error("sim fault needs a KIND");
    auto r = request("fault");
    fault_fields(args[0], {args.begin() + 1, args.end()}, r);
    auto& s = a.session();
    std::string id;
    if (which) {
        const auto l = layout(s);
        id = enclosures(l)->getObject(static_cast<unsigned>(enclosure_index(l, *which)))->getValue<std::string>("id");
        r->set("id", id);
    }
    r->set("shared", true);
    const auto reply = control(s, r);
    std::ostringstream text;
    r->stringify(text);
    s.record_event(id, "USB4", CB_SEVERITY_WARNING, "sim.fault", "fault injected: " + text.str());
    const auto posted = reply->optValue<uint64_t>("posted", 0);
    if (a.options().json) {
        auto o = make_object();
        o->set("fault", args[0]);
        o->set("enclosures", posted);
        print_json(o);
    } else {
        std::cout << "Fault '" << args[0] << "' posted to " << posted << " enclosure" << (posted == 1 ? "" : "s")
                  << ": every open link to " << (posted == 1 ? "it" : "them")
                  << " takes it at its next status check (within about a heartbeat).\n";
    }
    return exit_ok;
}

int set_host(app& a, const std::string& host) {
    if (host != "apple-silicon" && host != "x86") throw usage_error("sim host takes apple-silicon or x86");
    auto& s = a.session();
    auto l = layout(s);
    l->set("host", host);
    set_layout(s, l);
    std::cout << (a.options().json ? "{\"host\": \"" + host + "\"}\n" : "Simulated host: " + host + "\n");
    return exit_ok;
}

// Always possible: a fabric that cannot even be read (a layout no command understands) is what
// reset is for, so only a fabric read successfully can stop it (an enclosure in use).
int reset(app& a) {
    auto& s = a.session();
    std::vector<host::detected_device> found;
    try {
        found = host::detect(s);
    } catch (const std::exception& e) {
        std::cerr << "sim reset: the simulated fabric cannot be read (" << e.what() << "); resetting it anyway\n";
    }
    for (const auto& d : found)
        if (d.connected_elsewhere) throw cli_error(exit_error, "an enclosure is connected: disconnect it first");
    control(s, request("reset_layout"));
    std::cout << (a.options().json ? "{\"reset\": true}\n"
                                   : "The simulated fabric is back to its default: one Thunderbolt 4 enclosure "
                                     "with an RTX 5090.\n");
    return exit_ok;
}

int run_sim(app& a, const std::vector<std::string>& args) {
    if (args.empty()) throw usage_error("missing subcommand (list, plug, unplug, remove, fault, host, reset)");
    const std::string& sub = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (sub == "list" || sub == "ls") {
        if (!rest.empty()) throw usage_error("sim list takes no arguments");
        return list(a);
    }
    if (sub == "plug") {
        if (rest.empty()) throw usage_error("sim plug needs a MODEL (a new enclosure) or N (plug one back in)");
        const bool is_index = !rest[0].empty() && std::all_of(rest[0].begin(), rest[0].end(), ::isdigit);
        if (is_index && rest.size() == 1) return hotplug(a, rest[0], true);
        return plug_new(a, rest);
    }
    if (sub == "unplug" || sub == "remove") {
        if (rest.size() != 1) throw usage_error("sim " + sub + " needs N (an enclosure index from 'sim list')");
        return sub == "unplug" ? hotplug(a, rest[0], false) : remove(a, rest[0]);
    }
    if (sub == "fault") return fault(a, rest);
    if (sub == "host") {
        if (rest.size() != 1) throw usage_error("sim host needs apple-silicon or x86");
        return set_host(a, rest[0]);
    }
    if (sub == "reset") {
        if (!rest.empty()) throw usage_error("sim reset takes no arguments");
        return reset(a);
    }
    throw usage_error("unknown subcommand '" + sub + "' (list, plug, unplug, remove, fault, host, reset)");
}

}  // namespace

command sim_command() {
    return {
        "sim",
        "",
        "manage the simulated USB4 fabric (enclosures, hot-plug, faults)",
        "sim list | plug MODEL [--link L] [--security S] [--name NAME] [--power W] | plug N | unplug N | remove N | "
        "fault KIND [ARG] [--enclosure N] | host apple-silicon|x86 | reset",
        "list     the simulated host, domains and enclosures (index, link, security, GPU model)\n"
        "plug     MODEL: add an enclosure holding that GPU (a profile key: 'profile list');\n"
        "         --link tb3|tb4|usb4|tb5 (default tb4), --security none|user|secure (default\n"
        "         user), --name, --power W (default: the board's maximum + 100 W)\n"
        "         N: plug enclosure N back in\n"
        "unplug   N: hot-unplug enclosure N (programs using it see the device lost)\n"
        "remove   N: take enclosure N out of the fabric\n"
        "fault    inject into the open links of every process (all enclosures, or --enclosure N):\n"
        "         bit-errors RATE | link-drop MS | unplug-after BYTES | unplug |\n"
        "         dart-exhausted [on|off] | stuck [on|off] | clear\n"
        "host     the simulated host: apple-silicon (DART limits) or x86\n"
        "reset    back to the default fabric (one Thunderbolt 4 enclosure with an RTX 5090)\n"
        "The global --sim uses this fabric even where Thunderbolt hardware is present.\n"
        "Examples:\n"
        "  cudabridge-cli sim plug rtx-4090 --link tb5\n"
        "  cudabridge-cli sim fault bit-errors 1e-7\n"
        "  cudabridge-cli sim unplug 0",
        false,
        run_sim};
}

}  // namespace cudabridge::cli
