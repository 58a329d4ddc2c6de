// `domains` (boltctl domains): the Thunderbolt / USB4 domains the transport's enclosures sit in,
// each with its security level and the enclosures in it.
#include "app.hpp"
#include "device_text.hpp"
#include "json_output.hpp"

#include <iostream>
#include <map>

namespace cudabridge::cli {

namespace {

struct domain_view {
    cb_security_level security = CB_SECURITY_NONE;
    std::vector<std::string> enclosures;  // "NAME (id)"
};

int run_domains(app& a, const std::vector<std::string>& args) {
    if (!args.empty()) throw usage_error("domains takes no arguments");
    auto& s = a.session();
    std::map<uint32_t, domain_view> domains;
    for (const auto& d : host::detect(s)) {
        domain_view& v = domains[d.enclosure.domain];
        v.security = d.enclosure.security_level;
        v.enclosures.push_back(std::string(d.enclosure.name) + " (" + d.enclosure.id + ")");
    }
    if (a.options().json) {
        auto arr = make_array();
        for (const auto& [index, v] : domains) {
            auto o = make_object();
            o->set("domain", index);
            o->set("security_level", std::string(security_name(v.security)));
            auto names = make_array();
            for (const auto& e : v.enclosures) names->add(e);
            o->set("enclosures", names);
            arr->add(o);
        }
        auto out = make_object();
        out->set("domains", arr);
        print_json(out);
        return exit_ok;
    }
    if (domains.empty()) {
        std::cout << "No Thunderbolt / USB4 domain with an enclosure seen by the " << s.transport_info().name
                  << " transport.\n";
        return exit_ok;
    }
    for (const auto& [index, v] : domains) {
        std::cout << (a.color() ? "\033[32m●\033[0m " : "* ") << "domain" << index << "\n"
                  << "   ├─ security:   " << security_name(v.security) << "\n";
        for (size_t k = 0; k < v.enclosures.size(); ++k)
            std::cout << "   " << (k + 1 == v.enclosures.size() ? "└─" : "├─") << " enclosure:  " << v.enclosures[k]
                      << "\n";
    }
    return exit_ok;
}

}  // namespace

command domains_command() {
    return {"domains",
            "",
            "the Thunderbolt / USB4 domains and their security levels (boltctl domains)",
            "domains",
            "Lists the domains the transport's enclosures sit in, as boltctl domains does: each with\n"
            "its security level (none, user, secure, dponly, usbonly) and the enclosures in it. A\n"
            "domain with no enclosure attached is not listed (the transport reports enclosures).\n"
            "Examples:\n  cudabridge-cli domains\n  cudabridge-cli domains --json",
            false,
            run_domains};
}

}  // namespace cudabridge::cli
