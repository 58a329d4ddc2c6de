// `config show | clock GPU_MHZ MEM_MHZ | power WATTS | fan PERCENT|auto | pstate P0..P15`: the GPU's
// settings, checked against the bounds the model profile (or the driver) gives before anything
// is applied, and each change recorded in the event history with its old and new values.
#include "app.hpp"
#include "device_report.hpp"
#include "device_text.hpp"
#include "json_output.hpp"

#include <cudabridge/core/error.hpp>

#include <charconv>
#include <iostream>

namespace cudabridge::cli {

namespace {

double number_arg(const std::string& text, const char* what) {
    double v = 0;
    const auto* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || p != end) throw usage_error(std::string(what) + " must be a number, not '" + text + "'");
    return v;
}

uint32_t mhz_arg(const std::string& text, const char* what) {
    const double v = number_arg(text, what);
    if (v < 0 || v != static_cast<double>(static_cast<uint32_t>(v)))
        throw usage_error(std::string(what) + " must be a whole number of MHz, not '" + text + "'");
    return static_cast<uint32_t>(v);
}

[[noreturn]] void out_of_range(const std::string& what, const std::string& value, const std::string& range,
                               const host::device& d) {
    throw cli_error(exit_error, what + " " + value + " is outside " + range + " for the " + d.properties().name +
                                    " (the bounds of its profile); nothing was changed");
}

std::string fan_text(int32_t f) { return f < 0 ? "auto" : std::to_string(f) + " %"; }
std::string clock_text(uint32_t sm, uint32_t mem) {
    return sm == 0 && mem == 0 ? "default" : std::to_string(sm) + " / " + std::to_string(mem) + " MHz";
}

// What one change is, for the history and the output.
struct change {
    std::string kind;  // "config.clock"
    std::string what;  // "clocks"
    std::string old_text, new_text;
    Poco::Dynamic::Var old_value, new_value;
};

cb_gpu_settings parse_change(const std::vector<std::string>& args, const gpu_readings& r, host::device& d, change& c) {
    cb_gpu_settings s = r.settings;
    s.struct_size = sizeof s;
    const auto& l = r.limits;
    const std::string& sub = args[0];
    if (sub == "clock") {
        if (args.size() == 2 && (args[1] == "reset" || args[1] == "default")) {
            s.sm_clock_mhz = s.memory_clock_mhz = 0;
        } else {
            if (args.size() != 3) throw usage_error("config clock needs GPU_MHZ and MEM_MHZ (or 'reset')");
            s.sm_clock_mhz = mhz_arg(args[1], "GPU_MHZ");
            s.memory_clock_mhz = mhz_arg(args[2], "MEM_MHZ");
            if (r.have_limits && (s.sm_clock_mhz < l.min_sm_clock_mhz || s.sm_clock_mhz > l.max_sm_clock_mhz))
                out_of_range("GPU clock", std::to_string(s.sm_clock_mhz) + " MHz",
                             std::to_string(l.min_sm_clock_mhz) + "-" + std::to_string(l.max_sm_clock_mhz) + " MHz", d);
            if (r.have_limits &&
                (s.memory_clock_mhz < l.min_memory_clock_mhz || s.memory_clock_mhz > l.max_memory_clock_mhz))
                out_of_range(
                    "memory clock", std::to_string(s.memory_clock_mhz) + " MHz",
                    std::to_string(l.min_memory_clock_mhz) + "-" + std::to_string(l.max_memory_clock_mhz) + " MHz", d);
        }
        s.fields = CB_SET_CLOCKS;
        c = {"config.clock",
             "clocks",
             clock_text(r.settings.sm_clock_mhz, r.settings.memory_clock_mhz),
             clock_text(s.sm_clock_mhz, s.memory_clock_mhz),
             Poco::Dynamic::Var(),
             Poco::Dynamic::Var()};
        auto o = make_object(), n = make_object();
        o->set("sm_mhz", r.settings.sm_clock_mhz);
        o->set("memory_mhz", r.settings.memory_clock_mhz);
        n->set("sm_mhz", s.sm_clock_mhz);
        n->set("memory_mhz", s.memory_clock_mhz);
        c.old_value = o;
        c.new_value = n;
    } else if (sub == "power") {
        if (args.size() != 2) throw usage_error("config power needs WATTS");
        s.power_limit_w = number_arg(args[1], "WATTS");
        if (r.have_limits && (s.power_limit_w < l.min_power_w || s.power_limit_w > l.max_power_w))
            out_of_range("power limit", fixed(s.power_limit_w, 0) + " W",
                         fixed(l.min_power_w, 0) + "-" + fixed(l.max_power_w, 0) + " W", d);
        s.fields = CB_SET_POWER_LIMIT;
        c = {"config.power",
             "power limit",
             fixed(r.telemetry.power_limit_w, 1) + " W",
             fixed(s.power_limit_w, 1) + " W",
             r.telemetry.power_limit_w,
             s.power_limit_w};
    } else if (sub == "fan") {
        if (args.size() != 2) throw usage_error("config fan needs PERCENT (0-100) or auto");
        if (args[1] == "auto") {
            s.fan_percent = -1;
        } else {
            const double v = number_arg(args[1], "PERCENT");
            if (v < 0 || v > 100 || v != static_cast<int>(v))
                throw usage_error("fan speed must be a whole percent from 0 to 100 or 'auto', not '" + args[1] +
                                  "'; nothing was changed");
            s.fan_percent = static_cast<int32_t>(v);
        }
        if (r.have_limits && !l.fan_control)
            throw cli_error(exit_error, std::string("the ") + d.properties().name + " does not allow fan control here");
        s.fields = CB_SET_FAN;
        c = {"config.fan",
             "fan",
             fan_text(r.settings.fan_percent),
             fan_text(s.fan_percent),
             r.settings.fan_percent < 0 ? Poco::Dynamic::Var("auto") : Poco::Dynamic::Var(r.settings.fan_percent),
             s.fan_percent < 0 ? Poco::Dynamic::Var("auto") : Poco::Dynamic::Var(s.fan_percent)};
    } else if (sub == "pstate") {
        if (args.size() != 2) throw usage_error("config pstate needs a performance state P0..P15");
        const auto p = parse_pstate(args[1]);
        if (!p) throw usage_error("'" + args[1] + "' is not a performance state (P0 .. P15)");
        if (r.have_limits && (*p < l.min_performance_state || *p > l.max_performance_state))
            out_of_range("performance state", pstate_name(*p),
                         pstate_name(l.min_performance_state) + "-" + pstate_name(l.max_performance_state), d);
        s.performance_state = *p;
        s.fields = CB_SET_PSTATE;
        c = {"config.pstate",
             "performance state",
             pstate_name(r.settings.performance_state),
             pstate_name(*p),
             pstate_name(r.settings.performance_state),
             pstate_name(*p)};
    } else {
        throw usage_error("unknown subcommand '" + sub + "'");
    }
    return s;
}

int show(app& a, host::device& d, const gpu_readings& r) {
    const auto& s = r.settings;
    const auto& l = r.limits;
    const auto& t = r.telemetry;
    auto o = make_object();
    o->set("device", d.id());
    o->set("gpu", std::string(d.properties().name));
    auto clocks = make_object();
    clocks->set("locked", s.sm_clock_mhz != 0);
    clocks->set("sm_mhz", s.sm_clock_mhz);
    clocks->set("memory_mhz", s.memory_clock_mhz);
    clocks->set("current_sm_mhz", t.sm_clock_mhz);
    clocks->set("current_memory_mhz", t.memory_clock_mhz);
    clocks->set("min_sm_mhz", l.min_sm_clock_mhz);
    clocks->set("max_sm_mhz", l.max_sm_clock_mhz);
    clocks->set("min_memory_mhz", l.min_memory_clock_mhz);
    clocks->set("max_memory_mhz", l.max_memory_clock_mhz);
    auto power = make_object();
    power->set("limit_w", t.power_limit_w);
    power->set("default_w", l.default_power_w);
    power->set("min_w", l.min_power_w);
    power->set("max_w", l.max_power_w);
    auto fan = make_object();
    fan->set("mode", std::string(s.fan_percent < 0 ? "auto" : "manual"));
    if (s.fan_percent >= 0) fan->set("percent", s.fan_percent);
    if (t.fan_percent >= 0) fan->set("current_percent", t.fan_percent);
    fan->set("control", l.fan_control != 0);
    auto pstate = make_object();
    pstate->set("setting", pstate_name(s.performance_state));
    pstate->set("current", pstate_name(t.performance_state));
    auto range = make_object();  // P-state numbers: P0 is 0
    range->set("min", l.min_performance_state);
    range->set("max", l.max_performance_state);
    pstate->set("range", range);
    o->set("clocks", clocks);
    o->set("power", power);
    o->set("fan", fan);
    o->set("pstate", pstate);
    if (a.options().json) {
        print_json(o);
        return exit_ok;
    }
    std::cout << "GPU settings of " << d.properties().name << " (" << d.id() << ")\n"
              << "  clocks      " << clock_text(s.sm_clock_mhz, s.memory_clock_mhz) << "  (now " << t.sm_clock_mhz
              << " / " << t.memory_clock_mhz << " MHz; settable " << l.min_sm_clock_mhz << "-" << l.max_sm_clock_mhz
              << " / " << l.min_memory_clock_mhz << "-" << l.max_memory_clock_mhz << " MHz)\n"
              << "  power       " << fixed(t.power_limit_w, 1) << " W  (default " << fixed(l.default_power_w, 0)
              << " W; settable " << fixed(l.min_power_w, 0) << "-" << fixed(l.max_power_w, 0) << " W)\n"
              << "  fan         " << fan_text(s.fan_percent);
    if (t.fan_percent >= 0) std::cout << "  (now " << fixed(t.fan_percent, 0) << " %)";
    std::cout << (l.fan_control ? "" : "  (no fan control)") << "\n"
              << "  pstate      " << pstate_name(s.performance_state) << "  (now " << pstate_name(t.performance_state)
              << "; settable " << pstate_name(l.min_performance_state) << "-" << pstate_name(l.max_performance_state)
              << ")\n";
    return exit_ok;
}

}  // namespace

bool is_gpu_setting_subcommand(const std::string& sub) {
    return sub == "show" || sub == "clock" || sub == "power" || sub == "fan" || sub == "pstate";
}

int run_gpu_setting(app& a, const std::vector<std::string>& args) {
    if (args[0] == "show" && args.size() != 1) throw usage_error("config show takes no arguments");
    auto& d = a.device();
    const auto r = read_gpu(d);
    if (args[0] == "show") return show(a, d, r);
    change c;
    const cb_gpu_settings s = parse_change(args, r, d, c);
    std::string why;
    const cb_status st = apply_gpu_settings(d, s, why);
    if (st == CB_ERR_PERMISSION)
        throw cli_error(exit_permission, "changing the " + c.what + " needs root on this machine (" + why +
                                             "); run it as root, e.g. with sudo");
    if (st != CB_OK) throw cli_error(exit_code_for(st), "the GPU refused the " + c.what + ": " + why);
    auto data = make_object();
    data->set("old", c.old_value);
    data->set("new", c.new_value);
    std::ostringstream text;
    data->stringify(text);
    a.runtime().current_session().record_event(d.id(), "EGPU", CB_SEVERITY_INFO, c.kind,
                                               c.what + ": " + c.old_text + " -> " + c.new_text, text.str());
    if (a.options().json) {
        auto o = make_object();
        o->set("setting", c.kind.substr(7));
        o->set("old", c.old_value);
        o->set("new", c.new_value);
        print_json(o);
    } else {
        std::cout << c.what << ": " << c.old_text << " -> " << c.new_text << "\n";
    }
    return exit_ok;
}

}  // namespace cudabridge::cli
