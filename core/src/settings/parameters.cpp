#include <cudabridge/core/parameters.hpp>

#include <cudabridge/core/log.hpp>
#include <cudabridge/cpp/bool_text.hpp>
#include <cudabridge/host_services.h>

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace cudabridge::core {

namespace {

// `choices` is comma-separated ("128,256,512").
bool is_one_of(const std::string& choices, const std::string& value) {
    std::stringstream in(choices);
    for (std::string c; std::getline(in, c, ',');)
        if (c == value) return true;
    return false;
}

std::string listed(const std::string& choices) {
    std::string out;
    for (char c : choices) out += c == ',' ? std::string(", ") : std::string(1, c);
    return out;
}

parameter_row core_param(std::string name, cb_param_type type, std::string def, std::string help,
                         bool has_range = false, double min = 0, double max = 0) {
    parameter_row p;
    p.name = std::move(name);
    p.owner = "core";
    p.type = type;
    p.default_value = std::move(def);
    p.help = std::move(help);
    p.has_range = has_range;
    p.min_value = min;
    p.max_value = max;
    return p;
}

std::vector<parameter_row> core_parameters() {
    std::vector<parameter_row> v = {
        core_param("log.level", CB_PARAM_STRING, "INFO",
                   "default level of every category: TRACE, DEBUG, INFO, WARN, ERROR, FATAL or OFF"),
        core_param("log.overflow_policy", CB_PARAM_STRING, "block",
                   "when the log queue is full: block (wait), drop_newest or drop_oldest"),
        core_param("log.queue_capacity", CB_PARAM_INT, "65536", "records the log queue holds", true, 16, 16777216),
        core_param("log.sinks", CB_PARAM_STRING, "console,file,sqlite",
                   "log sinks started by default, comma separated (overridden by --log-sink)"),
        core_param("store.events_max_rows", CB_PARAM_INT, "100000",
                   "events kept in the history; older ones are deleted", true, 100, 1e9),
        core_param("store.logs_max_rows", CB_PARAM_INT, "200000",
                   "log records kept by the SQLite sink; older ones are deleted", true, 100, 1e9),
    };
    for (const char* cat : {"GENERAL", "DRIVER", "EGPU", "MEMORY", "PCIE", "USB4", "CUDA", "CLI", "PYTHON"})
        v.push_back(core_param(std::string("log.level.") + cat, CB_PARAM_STRING, "",
                               std::string("level of the ") + cat + " category; empty follows log.level"));
    return v;
}

bool is_level_key(std::string_view name) { return name == "log.level" || name.rfind("log.level.", 0) == 0; }

}  // namespace

void declare_core_parameters(store& s) {
    // Read first: every process start runs this, and the write lock is only needed when this
    // build's declarations differ from what the store holds.
    std::vector<parameter_row> changed;
    for (const auto& p : core_parameters()) {
        auto existing = find_parameter(s, p.name);
        if (!existing || existing->default_value != p.default_value || existing->help != p.help ||
            existing->type != p.type || existing->has_range != p.has_range || existing->min_value != p.min_value ||
            existing->max_value != p.max_value || existing->choices != p.choices || existing->flags != p.flags)
            changed.push_back(p);
    }
    if (changed.empty()) return;
    s.write([&] {
        for (const auto& p : changed) declare_parameter(s, p);
    });
}

std::optional<std::string> check_parameter_value(const parameter_row& p, std::string_view value) {
    const std::string v(value);
    double number = 0;
    switch (p.type) {
    case CB_PARAM_INT: {
        errno = 0;
        char* end = nullptr;
        long long n = std::strtoll(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || errno == ERANGE)
            return "'" + v + "' is not an integer (" + p.name + " takes an integer)";
        number = static_cast<double>(n);
        break;
    }
    case CB_PARAM_DOUBLE: {
        errno = 0;
        char* end = nullptr;
        number = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(number))
            return "'" + v + "' is not a number (" + p.name + " takes a number)";
        break;
    }
    case CB_PARAM_BOOL:
        if (!sdk::parse_bool(v)) return sdk::not_a_bool_message(v);
        return std::nullopt;
    default:
        break;
    }
    if ((p.type == CB_PARAM_INT || p.type == CB_PARAM_DOUBLE) && p.has_range &&
        (number < p.min_value || number > p.max_value)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s is out of range for %s (%g .. %g)", v.c_str(), p.name.c_str(), p.min_value,
                      p.max_value);
        return std::string(buf);
    }
    if (!p.choices.empty() && !is_one_of(p.choices, v))
        return "'" + v + "' is not accepted for " + p.name + " (one of: " + listed(p.choices) + ")";
    if (p.owner == "core") {
        if (is_level_key(p.name) && !(v.empty() && p.name != "log.level") && !log::parse_level(v))
            return "'" + v + "' is not a log level (TRACE, DEBUG, INFO, WARN, ERROR, FATAL, OFF)";
        if (p.name == "log.overflow_policy" && !log::parse_overflow_policy(v))
            return "'" + v + "' is not an overflow policy (block, drop_newest, drop_oldest)";
    }
    return std::nullopt;
}

std::optional<std::string> prepare_directory_value(const parameter_row& p, std::string_view value) {
    if (!(p.flags & CB_PARAM_FLAG_DIRECTORY)) return std::nullopt;
    const std::filesystem::path dir{std::string(value)};
    if (dir.empty() || !dir.is_absolute())
        return p.name + " needs an absolute folder path, not '" + std::string(value) + "'";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return "cannot create the folder " + dir.string() + " for " + p.name + ": " + ec.message();
    if (!std::filesystem::is_directory(dir, ec)) return dir.string() + " is not a folder (" + p.name + ")";
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return "cannot write in " + dir.string() + " (" + p.name + "): " + std::strerror(errno);
    return std::nullopt;
}

std::optional<std::string> effective_value(store& s, std::string_view name) {
    if (auto v = get_setting(s, "global", name)) return v;
    if (auto p = find_parameter(s, name)) return p->default_value;
    return std::nullopt;
}

}  // namespace cudabridge::core
