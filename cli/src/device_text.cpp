#include "device_text.hpp"

#include <cudabridge/cpp/hex_text.hpp>

#include <cstdio>

namespace cudabridge::cli {

const char* generation_key(cb_link_generation g) noexcept {
    switch (g) {
    case CB_LINK_TB3:
        return "tb3";
    case CB_LINK_TB4:
        return "tb4";
    case CB_LINK_USB4_V1:
        return "usb4";
    case CB_LINK_USB4_V2:
        return "tb5";
    case CB_LINK_OCULINK:
        return "oculink";
    default:
        return "unknown";
    }
}

const char* authorization_name(cb_auth_state a) noexcept {
    switch (a) {
    case CB_AUTH_NONE:
        return "unauthorized";
    case CB_AUTH_AUTHORIZED:
        return "authorized";
    case CB_AUTH_SECURE:
        return "authorized (secure key)";
    default:
        return "unknown";
    }
}

std::string pstate_name(int32_t p) { return p < 0 ? "unknown" : "P" + std::to_string(p); }

std::optional<int32_t> parse_pstate(const std::string& text) {
    std::string digits = text;
    if (!digits.empty() && (digits[0] == 'P' || digits[0] == 'p')) digits.erase(0, 1);
    if (digits.empty() || digits.size() > 2) return std::nullopt;
    for (char c : digits)
        if (c < '0' || c > '9') return std::nullopt;
    const int v = std::stoi(digits);
    if (v > 15) return std::nullopt;
    return v;
}

std::vector<std::string> throttle_names(uint32_t reasons) {
    static const std::pair<uint32_t, const char*> names[] = {{CB_THROTTLE_IDLE, "idle"},
                                                             {CB_THROTTLE_APP_CLOCKS, "applications_clocks"},
                                                             {CB_THROTTLE_SW_POWER_CAP, "sw_power_cap"},
                                                             {CB_THROTTLE_HW_SLOWDOWN, "hw_slowdown"},
                                                             {CB_THROTTLE_SW_THERMAL, "sw_thermal_slowdown"},
                                                             {CB_THROTTLE_HW_THERMAL, "hw_thermal_slowdown"}};
    std::vector<std::string> out;
    for (const auto& [bit, name] : names)
        if (reasons & bit) out.emplace_back(name);
    return out;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : separator) + p;
    return out;
}

std::string hex16(uint32_t v) { return sdk::hex_text(v, 4); }

std::string bytes_text(uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

}  // namespace cudabridge::cli
