// `config list | get KEY | set KEY VALUE` over declared parameters.
#include "app.hpp"
#include "json_output.hpp"
#include "text_table.hpp"

#include <cudabridge/core/context.hpp>
#include <cudabridge/core/error.hpp>
#include <cudabridge/core/registry.hpp>

#include <cudabridge/core/parameters.hpp>
#include <cudabridge/core/store.hpp>
#include <cudabridge/cpp/bool_text.hpp>
#include <cudabridge/host_services.h>

#include <iostream>
#include <sstream>

namespace cudabridge::cli {

namespace {

const char* type_name(int type) {
    switch (type) {
    case CB_PARAM_INT:
        return "int";
    case CB_PARAM_DOUBLE:
        return "double";
    case CB_PARAM_BOOL:
        return "bool";
    default:
        return "string";
    }
}

// Numbers go out as JSON numbers, booleans as booleans; strings stay strings.
Poco::Dynamic::Var typed(int type, const std::string& v) {
    try {
        if (type == CB_PARAM_INT && !v.empty()) return std::stoll(v);
        if (type == CB_PARAM_DOUBLE && !v.empty()) return std::stod(v);
        if (type == CB_PARAM_BOOL)
            if (auto b = sdk::parse_bool(v)) return *b;
    } catch (const std::exception&) {
    }
    return v;
}

json_object param_json(core::store& db, const core::parameter_row& p) {
    auto stored = core::get_setting(db, "global", p.name);
    const std::string value = stored.value_or(p.default_value);
    auto o = make_object();
    o->set("key", p.name);
    o->set("value", typed(p.type, value));
    o->set("default", typed(p.type, p.default_value));
    o->set("source", std::string(stored ? "setting" : "default"));
    o->set("type", std::string(type_name(p.type)));
    o->set("owner", p.owner);
    if (p.has_range) {
        o->set("min", p.min_value);
        o->set("max", p.max_value);
    }
    o->set("help", p.help);
    return o;
}

// Plugins declare their settings when they are created. A store that no device command has
// used yet knows none of the transport's, GPU family's or safety policy's: a session creates
// them (and declares the host's own). A session that cannot start leaves the store as it was.
void declare_plugin_settings(app& a) {
    try {
        a.session();
    } catch (const std::exception&) {
    }
}

core::parameter_row known(app& a, core::store& db, const std::string& key) {
    auto p = core::find_parameter(db, key);
    if (!p) {
        declare_plugin_settings(a);
        p = core::find_parameter(db, key);
    }
    if (!p) throw core::error(CB_ERR_NOT_FOUND, "unknown setting '" + key + "' (see 'cudabridge-cli config list')");
    return *p;
}

int list(app& a) {
    auto& db = a.core(true).db();  // sinks start so that their parameters are declared
    declare_plugin_settings(a);
    auto params = core::list_parameters(db);
    if (a.options().json) {
        auto arr = make_array();
        for (const auto& p : params) arr->add(param_json(db, p));
        auto o = make_object();
        o->set("settings", arr);
        print_json(o);
        return exit_ok;
    }
    text_table table({"KEY", "VALUE", "SOURCE", "HELP"});
    for (const auto& p : params) {
        auto stored = core::get_setting(db, "global", p.name);
        std::string v = stored.value_or(p.default_value);
        table.add({p.name, v.empty() ? "\"\"" : v, stored ? "setting" : "default", p.help});
    }
    table.print(std::cout);
    return exit_ok;
}

int get(app& a, const std::string& key) {
    auto& db = a.core(false).db();
    auto p = known(a, db, key);
    if (a.options().json) {
        print_json(param_json(db, p));
        return exit_ok;
    }
    std::cout << core::get_setting(db, "global", key).value_or(p.default_value) << "\n";
    return exit_ok;
}

// log.sinks names logsink plugins, at least one: a list that starts none loses every record.
void check_log_sinks(core::context& ctx, const std::string& value) {
    std::stringstream names(value);
    size_t count = 0;
    for (std::string name; std::getline(names, name, ',');) {
        if (name.empty()) continue;
        if (!ctx.plugins().find(CB_KIND_LOGSINK, name))
            throw core::error(CB_ERR_INVALID_ARGUMENT, "log.sinks: no logsink plugin named '" + name +
                                                           "' ('cudabridge-cli plugins list' shows them)");
        ++count;
    }
    if (count == 0)
        throw core::error(CB_ERR_INVALID_ARGUMENT,
                          "log.sinks: name at least one sink, or log records are stored nowhere");
}

int set(app& a, const std::string& key, const std::string& value) {
    auto& ctx = a.core(false);
    auto& db = ctx.db();
    auto p = known(a, db, key);
    if (auto why = core::check_parameter_value(p, value)) throw core::error(CB_ERR_INVALID_ARGUMENT, *why);
    if (auto why = core::prepare_directory_value(p, value)) throw core::error(CB_ERR_INVALID_ARGUMENT, *why);
    if (key == "log.sinks") check_log_sinks(ctx, value);
    const std::string old = core::get_setting(db, "global", key).value_or(p.default_value);
    core::set_setting(db, "global", key, value, "cli");
    if (a.options().json) {
        auto o = make_object();
        o->set("key", key);
        o->set("old", typed(p.type, old));
        o->set("new", typed(p.type, value));
        print_json(o);
    } else {
        std::cout << key << ": " << (old.empty() ? "\"\"" : old) << " -> " << (value.empty() ? "\"\"" : value) << "\n";
    }
    return exit_ok;
}

}  // namespace

std::vector<std::string> config_keys(app& a) {
    auto& db = a.core(true).db();
    declare_plugin_settings(a);
    std::vector<std::string> keys;
    for (const auto& p : core::list_parameters(db)) keys.push_back(p.name);
    return keys;
}

namespace {

int run_config(app& a, const std::vector<std::string>& args) {
    if (args.empty()) throw usage_error("missing subcommand (show, clock, power, fan, pstate, list, get or set)");
    const std::string& sub = args[0];
    if (is_gpu_setting_subcommand(sub)) return run_gpu_setting(a, args);
    if (sub == "list") {
        if (args.size() != 1) throw usage_error("config list takes no arguments");
        return list(a);
    }
    if (sub == "get") {
        if (args.size() != 2) throw usage_error("config get needs one KEY");
        return get(a, args[1]);
    }
    if (sub == "set") {
        if (args.size() != 3) throw usage_error("config set needs KEY and VALUE");
        return set(a, args[1], args[2]);
    }
    throw usage_error("unknown subcommand '" + sub + "' (show, clock, power, fan, pstate, list, get or set)");
}

}  // namespace

command config_command() {
    return {
        "config",
        "cf",
        "GPU settings (clock, power, fan, P-state) and CudaBridge settings",
        "config show | clock GPU_MHZ MEM_MHZ | power WATTS | fan PERCENT|auto | pstate P0..P15 | list | get KEY | set KEY VALUE",
        "show    the GPU's settings: locked clocks, power limit, fan, performance state, with the\n"
        "        ranges its model profile (or the driver) allows\n"
        "clock   lock the GPU and memory clocks (MHz); 'config clock reset' unlocks them\n"
        "power   set the power limit (W)\n"
        "fan     set the fan speed (0-100 %) or give it back to the board's curve (auto)\n"
        "pstate  set the performance state (P0 fastest)\n"
        "        A value outside the profile's bounds is refused with the range and nothing is\n"
        "        changed; each change is recorded in the history (cudabridge-cli history) with the\n"
        "        old and new values. On real hardware, changes need root (exit code 4).\n"
        "list    every declared CudaBridge setting: value, default, where the value comes from, help\n"
        "get     one setting's effective value\n"
        "set     change a setting; the value is checked against the declared type and range, and\n"
        "        the change is kept in the settings history with the old and new values\n"
        "Examples:\n"
        "  cudabridge-cli config show\n"
        "  cudabridge-cli config clock 2100 1200\n"
        "  cudabridge-cli config power 350\n"
        "  cudabridge-cli config fan 80\n"
        "  cudabridge-cli config fan auto\n"
        "  cudabridge-cli config pstate P0\n"
        "  cudabridge-cli config set standard.thermal_limit 85",
        false,
        run_config};
}

}  // namespace cudabridge::cli
