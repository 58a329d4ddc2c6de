#include <cudabridge/host/link_names.hpp>

namespace cudabridge::host {

const char* security_name(cb_security_level level) noexcept {
    static const char* names[] = {"none", "user", "secure", "dponly", "usbonly", "nopcie"};
    return level >= 0 && level <= CB_SECURITY_NOPCIE ? names[level] : "unknown";
}

const char* generation_name(cb_link_generation g) noexcept {
    switch (g) {
    case CB_LINK_TB3:
        return "Thunderbolt 3";
    case CB_LINK_TB4:
        return "Thunderbolt 4";
    case CB_LINK_USB4_V1:
        return "USB4";
    case CB_LINK_USB4_V2:
        return "USB4 v2 / Thunderbolt 5";
    case CB_LINK_OCULINK:
        return "OCuLink";
    default:
        return "unknown link";
    }
}

}  // namespace cudabridge::host
