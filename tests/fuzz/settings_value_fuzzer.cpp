// A settings value checked against its parameter's declaration, as `cudabridge-cli config set`
// and `diag` do: core::check_parameter_value. The declaration comes from the input too (plugins
// declare parameters: type, range, choices), so odd declarations are covered as well.
//
// Input: five lines, then the value (the rest, newlines included):
//   type (int, double, bool or string)   owner ("core" or a plugin)   name
//   range ("MIN MAX", or empty: none)    choices ("128,256,512", or empty)
// A value it accepts must also read back as the plugin SDK reads it (sdk::host::param_int,
// param_double): the check and the readers must agree.
#include <cudabridge/core/parameters.hpp>
#include <cudabridge/host_services.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace {

std::string_view next_line(std::string_view& in) {
    const auto eol = in.find('\n');
    const std::string_view line = in.substr(0, eol);
    in = eol == std::string_view::npos ? std::string_view{} : in.substr(eol + 1);
    return line;
}

[[noreturn]] void disagree(const std::string& what, const std::string& value) {
    std::fprintf(stderr, "check_parameter_value accepted '%s' but %s\n", value.c_str(), what.c_str());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace cudabridge::core;
    // Values and declarations reach the check as C strings (argv, the host service table).
    const char* text = reinterpret_cast<const char*>(data);
    std::string_view in(text, strnlen(text, size));

    parameter_row p;
    const std::string_view type = next_line(in);
    p.type = type == "int"      ? CB_PARAM_INT
             : type == "double" ? CB_PARAM_DOUBLE
             : type == "bool"   ? CB_PARAM_BOOL
                                : CB_PARAM_STRING;
    p.owner = std::string(next_line(in));
    p.name = std::string(next_line(in));
    const std::string range(next_line(in));
    if (!range.empty()) {
        char* end = nullptr;
        p.has_range = true;
        p.min_value = std::strtod(range.c_str(), &end);
        p.max_value = std::strtod(end, nullptr);
    }
    p.choices = std::string(next_line(in));
    const std::string value(in);

    if (check_parameter_value(p, value)) return 0;  // refused, with a reason: fine
    // Accepted: the plugin side must read the same kind of value back.
    try {
        if (p.type == CB_PARAM_INT) {
            size_t used = 0;
            const long long n = std::stoll(value, &used);
            if (used != value.size()) disagree("std::stoll reads only " + std::to_string(used) + " characters", value);
            if (p.has_range && (static_cast<double>(n) < p.min_value || static_cast<double>(n) > p.max_value))
                disagree("it is outside the declared range", value);
        } else if (p.type == CB_PARAM_DOUBLE) {
            size_t used = 0;
            const double d = std::stod(value, &used);
            if (used != value.size()) disagree("std::stod reads only " + std::to_string(used) + " characters", value);
            if (!std::isfinite(d)) disagree("it is not finite", value);
        }
    } catch (const std::exception& e) {
        disagree(std::string("the SDK's reader throws ") + e.what(), value);
    }
    return 0;
}
