#include "plugin/parameter_io.hpp"

#include <string>

namespace cudabridge::plugins::safety {

void declare_parameters(const sdk::host& host, const parameters& defaults) {
    for (const parameter_spec& spec : parameter_specs()) {
        const std::string text = default_text(spec, defaults);
        const bool ranged = spec.type == CB_PARAM_INT || spec.type == CB_PARAM_DOUBLE;
        host.declare_range(spec.type, spec.name, text.c_str(), spec.help, ranged, spec.min_value, spec.max_value);
    }
}

parameters read_parameters(const sdk::host& host, const parameters& defaults, std::string_view plugin_name) {
    parameters p = defaults;
    for (const parameter_spec& spec : parameter_specs()) {
        const auto text = host.param(spec.name);
        if (!text) continue;
        if (auto why = assign_parameter(p, spec, *text))
            throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, std::string(plugin_name) + "." + spec.name + ": " + *why);
    }
    return p;
}

}  // namespace cudabridge::plugins::safety
