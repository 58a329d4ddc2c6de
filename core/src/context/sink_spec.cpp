#include <cudabridge/core/context.hpp>

#include <sstream>

namespace cudabridge::core {

std::optional<sink_spec> parse_sink_spec(std::string_view text, std::string& error) {
    sink_spec spec;
    const auto colon = text.find(':');
    spec.name = std::string(text.substr(0, colon));
    if (spec.name.empty()) {
        error = "empty log sink name in '" + std::string(text) + "'";
        return std::nullopt;
    }
    if (colon == std::string_view::npos) return spec;
    std::stringstream rest{std::string(text.substr(colon + 1))};
    std::string item;
    while (std::getline(rest, item, ',')) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0) {
            error = "log sink option '" + item + "' is not KEY=VALUE (in '" + std::string(text) + "')";
            return std::nullopt;
        }
        spec.config.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
    return spec;
}

}  // namespace cudabridge::core
