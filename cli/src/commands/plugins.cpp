// `plugins list | info NAME | verify PATH | new KIND NAME [DIR]`
#include "app.hpp"
#include "json_output.hpp"
#include "text_table.hpp"

#include <cudabridge/core/registry.hpp>

#include <iomanip>
#include <iostream>

namespace cudabridge::cli {

namespace {

json_object plugin_json(const core::plugin_info& p) {
    auto o = make_object();
    o->set("name", p.name);
    o->set("kind", std::string(core::kind_name(p.kind)));
    o->set("version", core::version_string(p.version));
    o->set("abi", std::to_string(p.abi_major) + "." + std::to_string(p.abi_minor));
    o->set("license", p.license);
    o->set("description", p.description);
    o->set("path", p.path);
    o->set("pinned", p.pinned);
    o->set("active", p.shadowed_by.empty());
    if (!p.shadowed_by.empty()) o->set("shadowed_by", p.shadowed_by);
    return o;
}

int list(app& a) {
    auto& reg = a.core(false).plugins();
    size_t cached = 0;
    for (const auto& f : reg.files()) cached += f.from_cache ? 1 : 0;
    if (a.options().json) {
        auto o = make_object();
        auto search = make_array();
        for (const auto& e : reg.search_path()) {
            auto s = make_object();
            s->set("path", e.path.string());
            s->set("origin", e.origin);
            search->add(s);
        }
        o->set("search_path", search);
        auto plugins = make_array();
        for (const auto& p : reg.all_plugins()) plugins->add(plugin_json(p));
        o->set("plugins", plugins);
        auto refused = make_array();
        for (const auto& f : reg.files())
            if (!f.ok) {
                auto r = make_object();
                r->set("path", f.path);
                r->set("reason", f.reason);
                refused->add(r);
            }
        o->set("refused", refused);
        auto scan = make_object();
        scan->set("files", reg.files().size());
        scan->set("from_cache", cached);
        scan->set("libraries_loaded", reg.libraries_loaded());
        o->set("scan", scan);
        print_json(o);
        return exit_ok;
    }
    text_table table({"NAME", "KIND", "VERSION", "ABI", "STATE", "PATH"});
    for (const auto& p : reg.all_plugins()) {
        std::string state = p.shadowed_by.empty() ? (p.pinned ? "pinned" : "active") : "shadowed";
        table.add({p.name, core::kind_name(p.kind), core::version_string(p.version),
                   std::to_string(p.abi_major) + "." + std::to_string(p.abi_minor), state, p.path});
    }
    table.print(std::cout);
    for (const auto& f : reg.files())
        if (!f.ok) std::cout << "refused: " << f.path << ": " << f.reason << "\n";
    std::cout << reg.files().size() << " librar" << (reg.files().size() == 1 ? "y" : "ies") << " (" << cached
              << " from the cache, " << reg.libraries_loaded() << " loaded now)\n";
    return exit_ok;
}

int info(app& a, const std::string& name) {
    auto& ctx = a.core(false);
    std::vector<core::plugin_info> matches;
    for (const auto& p : ctx.plugins().all_plugins())
        if (p.name == name) matches.push_back(p);
    if (matches.empty()) {
        std::cerr << "cudabridge-cli plugins: no plugin named '" << name << "' (see 'cudabridge-cli plugins list')\n";
        return exit_error;
    }
    std::vector<core::parameter_row> params;
    for (const auto& p : core::list_parameters(ctx.db()))
        if (p.owner == name) params.push_back(p);
    if (a.options().json) {
        auto arr = make_array();
        for (const auto& m : matches) {
            auto o = plugin_json(m);
            auto ps = make_array();
            for (const auto& p : params) {
                auto po = make_object();
                po->set("name", p.name);
                po->set("default", p.default_value);
                po->set("help", p.help);
                ps->add(po);
            }
            o->set("parameters", ps);
            arr->add(o);
        }
        auto o = make_object();
        o->set("plugins", arr);
        print_json(o);
        return exit_ok;
    }
    for (const auto& m : matches) {
        std::cout << "Name:        " << m.name << "\nKind:        " << core::kind_name(m.kind)
                  << "\nVersion:     " << core::version_string(m.version) << "\nABI:         " << m.abi_major << "."
                  << m.abi_minor << "\nLicense:     " << m.license << "\nDescription: " << m.description
                  << "\nPath:        " << m.path
                  << "\nState:       " << (m.shadowed_by.empty() ? "active" : "shadowed by " + m.shadowed_by) << "\n";
    }
    if (!params.empty()) {
        std::cout << "Parameters (declared when the plugin last started):\n";
        for (const auto& p : params)
            std::cout << "  " << std::left << std::setw(22) << p.name << " default " << std::setw(12)
                      << (p.default_value.empty() ? "\"\"" : p.default_value) << " " << p.help << "\n";
    }
    return exit_ok;
}

int verify(app& a, const std::string& path) {
    core::verify_report r = core::verify_plugin_file(path);
    if (a.options().json) {
        auto o = make_object();
        o->set("path", r.path);
        o->set("ok", r.ok);
        if (!r.ok) o->set("reason", r.reason);
        auto checks = make_array();
        for (const auto& c : r.checks) {
            auto co = make_object();
            co->set("check", c.name);
            co->set("passed", c.passed);
            co->set("detail", c.detail);
            checks->add(co);
        }
        o->set("checks", checks);
        auto plugins = make_array();
        for (const auto& p : r.plugins) plugins->add(plugin_json(p));
        o->set("plugins", plugins);
        print_json(o);
    } else {
        const bool color = a.color();
        for (const auto& c : r.checks) {
            const char* mark =
                c.passed ? (color ? "\033[32mPASS\033[0m" : "PASS") : (color ? "\033[31mFAIL\033[0m" : "FAIL");
            std::cout << mark << "  " << std::left << std::setw(34) << c.name << " " << c.detail << "\n";
        }
        std::cout << (r.ok ? "OK: " : "REFUSED: ") << r.path << (r.ok ? "" : ": " + r.reason) << "\n";
    }
    return r.ok ? exit_ok : exit_error;
}

int run_plugins(app& a, const std::vector<std::string>& args) {
    if (args.empty()) throw usage_error("missing subcommand (list, info, verify or new)");
    const std::string& sub = args[0];
    if (sub == "list" || sub == "ls") {
        if (args.size() != 1) throw usage_error("plugins list takes no arguments");
        return list(a);
    }
    if (sub == "info") {
        if (args.size() != 2) throw usage_error("plugins info needs one NAME");
        return info(a, args[1]);
    }
    if (sub == "verify") {
        if (args.size() != 2) throw usage_error("plugins verify needs one PATH");
        return verify(a, args[1]);
    }
    if (sub == "new") return run_plugins_new(a, args);
    throw usage_error("unknown subcommand '" + sub + "' (list, info, verify or new)");
}

}  // namespace

command plugins_command() {
    return {"plugins",
            "p",
            "list, inspect, verify and start plugins",
            "plugins list | info NAME | verify PATH | new KIND NAME [DIR]",
            "list    every plugin found on the search path (from the cache; nothing is loaded for\n"
            "        files that did not change), refused files with their reason\n"
            "info    one plugin's descriptor and declared parameters\n"
            "verify  load one library file and print each check it passes or fails; exit 1 if refused\n"
            "new     write a plugin project to DIR (default ./NAME): a CMakeLists.txt using\n"
            "        find_package(CudaBridge) and cudabridge_add_plugin, NAME.cpp implementing the\n"
            "        kind's table with small working behaviour, and a README. KIND is logsink, safety,\n"
            "        transport or gpu; NAME is 1-63 of a-z, 0-9, _ starting with a letter. Refused, with\n"
            "        nothing written: another KIND or NAME (exit 2), a DIR that is not empty (exit 1)\n"
            "Search order: --plugin-path, CUDABRIDGE_ADD_PLUGIN_PATH (prepends), CUDABRIDGE_PLUGIN_PATH\n"
            "(replaces the rest), the user folder, the installed folder.\n"
            "Examples:\n"
            "  cudabridge-cli plugins list\n"
            "  cudabridge-cli plugins info usb4\n"
            "  cudabridge-cli plugins verify ./libmy_plugin.so\n"
            "  cudabridge-cli plugins new logsink my_sink\n"
            "  cudabridge-cli plugins new safety my_policy ~/src/my_policy",
            false,
            run_plugins};
}

}  // namespace cudabridge::cli
