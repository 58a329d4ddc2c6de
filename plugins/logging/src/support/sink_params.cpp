#include "sink_params.hpp"

#include <charconv>
#include <utility>

namespace cudabridge::plugins::logging {

sink_params::sink_params(const sdk::host& h, const sdk::config& c, std::string sink_name)
    : host_(h), config_(c), sink_(std::move(sink_name)) {}

void sink_params::declare_text(const char* name, const std::string& default_value, const char* help) {
    host_.declare(CB_PARAM_STRING, name, default_value.c_str(), help);
    declared_[name] = declared{default_value, false, 0, 0, {}};
}

void sink_params::declare_choice(const char* name, const std::string& default_value, const char* help,
                                 std::initializer_list<const char*> choices) {
    declared d{default_value, false, 0, 0, {}};
    std::string list;
    for (const char* c : choices) {
        d.choices.emplace_back(c);
        list += (list.empty() ? "" : ",") + std::string(c);
    }
    host_.declare_choice(CB_PARAM_STRING, name, default_value.c_str(), help, list.c_str());
    declared_[name] = std::move(d);
}

void sink_params::declare_directory(const char* name, const std::string& default_value, const char* help) {
    host_.declare_directory(name, default_value.c_str(), help);
    declared_[name] = declared{default_value, false, 0, 0, {}};
}

void sink_params::declare_int(const char* name, long long default_value, long long min, long long max,
                              const char* help) {
    const std::string text = std::to_string(default_value);
    host_.declare_range(CB_PARAM_INT, name, text.c_str(), help, true, static_cast<double>(min),
                        static_cast<double>(max));
    declared_[name] = declared{text, true, min, max, {}};
}

const sink_params::declared& sink_params::find(const char* name) const {
    auto it = declared_.find(std::string_view(name));
    if (it == declared_.end()) {
        throw sdk::status_error(CB_ERR_INTERNAL, sink_ + " sink: parameter '" + name + "' read before it was declared");
    }
    return it->second;
}

std::string sink_params::text(const char* name) const {
    const declared& d = find(name);
    if (auto v = host_.param(name)) return *v;
    if (auto v = config_.get(name)) return *v;
    return d.default_value;
}

std::string sink_params::choice(const char* name) const {
    std::string value = text(name);
    std::string accepted;
    for (const std::string& c : find(name).choices) {
        if (value == c) return value;
        if (!accepted.empty()) accepted += ", ";
        accepted += c;
    }
    throw sdk::status_error(CB_ERR_INVALID_ARGUMENT,
                            sink_ + " sink: " + name + " = '" + value + "' is not one of " + accepted);
}

long long sink_params::integer(const char* name) const {
    const declared& d = find(name);
    const std::string value = text(name);
    long long n = 0;
    const char* first = value.data();
    const char* last = value.data() + value.size();
    auto [end, ec] = std::from_chars(first, last, n);
    const bool ok = ec == std::errc{} && end == last && !value.empty();
    if (!ok || (d.has_range && (n < d.min || n > d.max))) {
        std::string msg = sink_ + " sink: " + name + " = '" + value + "' is not an integer";
        if (d.has_range) msg += " in [" + std::to_string(d.min) + ", " + std::to_string(d.max) + "]";
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, msg);
    }
    return n;
}

}  // namespace cudabridge::plugins::logging
