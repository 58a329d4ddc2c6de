#include "architecture_options.hpp"

#include <string_view>

namespace cudabridge::nvrtc {

namespace {

bool is_architecture_flag(std::string_view o) { return o == "--gpu-architecture" || o == "-arch"; }

// "sm_120" -> "compute_120"; anything else unchanged.
bool virtual_of(std::string& value) {
    if (value.rfind("sm_", 0) != 0 || value.size() <= 3) return false;
    value = "compute_" + value.substr(3);
    return true;
}

}  // namespace

rewritten_options to_virtual_architecture(const std::vector<std::string>& options) {
    rewritten_options out;
    out.options = options;
    for (size_t i = 0; i < out.options.size(); ++i) {
        std::string& o = out.options[i];
        const size_t eq = o.find('=');
        if (eq != std::string::npos && is_architecture_flag(std::string_view(o).substr(0, eq))) {
            std::string value = o.substr(eq + 1);
            if (virtual_of(value)) {
                o = o.substr(0, eq + 1) + value;
                out.asked_for_machine_code = true;
            }
        } else if (is_architecture_flag(o) && i + 1 < out.options.size() && virtual_of(out.options[i + 1])) {
            out.asked_for_machine_code = true;
            ++i;
        }
    }
    return out;
}

}  // namespace cudabridge::nvrtc
