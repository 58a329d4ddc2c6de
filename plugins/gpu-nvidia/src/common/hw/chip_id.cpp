#include "common/hw/chip_id.hpp"

#include "common/hw/registers.hpp"

#include <cctype>

namespace cudabridge::nv::hw {
namespace {

struct family {
    const char* prefix;  // chip name prefix: "GA10", "AD10", ...
    uint32_t architecture;
    const char* name;
};

// GA100 is "GA100" (impl 0), GA10x "GA10x" (impl x); GH100, GB100 likewise; GB20x impl x.
constexpr family families[] = {
    {"TU10", arch_turing, "Turing"},    {"GA10", arch_ampere, "Ampere"},          {"GH10", arch_hopper, "Hopper"},
    {"AD10", arch_ada, "Ada Lovelace"}, {"GB10", arch_blackwell_dc, "Blackwell"}, {"GB20", arch_blackwell, "Blackwell"},
};

}  // namespace

std::optional<chip_id> chip_from_name(std::string_view chip) {
    if (chip.size() != 5 || !std::isdigit(static_cast<unsigned char>(chip[4]))) return std::nullopt;
    for (const auto& f : families) {
        if (chip.substr(0, 4) == f.prefix) {
            chip_id id;
            id.architecture = f.architecture;
            id.implementation = static_cast<uint32_t>(chip[4] - '0');
            return id;
        }
    }
    return std::nullopt;
}

std::string chip_name(const chip_id& id) {
    for (const auto& f : families)
        if (f.architecture == id.architecture && id.implementation <= 9)
            return std::string(f.prefix) + static_cast<char>('0' + id.implementation);
    return "";
}

std::string architecture_name(uint32_t architecture) {
    for (const auto& f : families)
        if (f.architecture == architecture) return f.name;
    return "";
}

uint32_t encode_boot_0(const chip_id& id) {
    // [28:20] chip id = architecture << 4 | implementation; [7:4] major, [3:0] minor revision.
    return ((id.architecture & 0x1F) << 24) | ((id.implementation & 0xF) << 20) | ((id.major_revision & 0xF) << 4) |
           (id.minor_revision & 0xF);
}

uint32_t encode_boot_42(const chip_id& id) {
    return ((id.architecture & 0x3F) << 24) | ((id.implementation & 0xF) << 20) | ((id.major_revision & 0xF) << 16) |
           ((id.minor_revision & 0xF) << 12);
}

chip_id decode_boot_42(uint32_t v) {
    chip_id id;
    id.architecture = (v >> 24) & 0x3F;
    id.implementation = (v >> 20) & 0xF;
    id.major_revision = (v >> 16) & 0xF;
    id.minor_revision = (v >> 12) & 0xF;
    return id;
}

}  // namespace cudabridge::nv::hw
