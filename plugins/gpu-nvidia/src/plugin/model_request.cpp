#include "plugin/model_request.hpp"

#include <cudabridge/cpp/host.hpp>

#include <Poco/JSON/Parser.h>

#include <cstdint>
#include <optional>
#include <set>
#include <sstream>

namespace cudabridge::nv {
namespace {

[[noreturn]] void refuse(cb_status status, const std::string& why) {
    throw sdk::status_error(status, "GPU model request: " + why);
}

// `v`, a JSON integer, when it lies within lo..hi. The parser keeps integers past INT64_MAX
// unsigned, and Poco's convert to a signed type throws RangeException for those: they are read
// unsigned, and only signed ones are checked for a sign. (Poco calls booleans integers too:
// callers refuse them first.)
std::optional<uint64_t> integer_within(const Poco::Dynamic::Var& v, uint64_t lo, uint64_t hi) {
    if (v.isSigned() && v.convert<int64_t>() < 0) return std::nullopt;
    const auto n = v.convert<uint64_t>();
    if (n < lo || n > hi) return std::nullopt;
    return n;
}

}  // namespace

model_request parse_model_request(std::string_view json) {
    Poco::JSON::Object::Ptr obj;
    try {
        obj = Poco::JSON::Parser().parse(std::string(json)).extract<Poco::JSON::Object::Ptr>();
    } catch (const std::exception& e) {
        refuse(CB_ERR_INVALID_ARGUMENT, std::string("not a JSON object: ") + e.what());
    }
    if (!obj) refuse(CB_ERR_INVALID_ARGUMENT, "not a JSON object");

    model_request out;
    if (obj->has("device_id")) {
        if (!obj->get("device_id").isString()) refuse(CB_ERR_INVALID_ARGUMENT, "\"device_id\" must be a string");
        out.device_id = obj->getValue<std::string>("device_id");
        obj->remove("device_id");
    }
    auto take_link = [&](const char* key, uint32_t max, uint32_t& out_value) {
        if (!obj->has(key)) return;
        auto v = obj->get(key);
        if (v.isBoolean() || !v.isInteger())
            refuse(CB_ERR_INVALID_ARGUMENT, std::string("\"") + key + "\" must be an integer");
        const auto n = integer_within(v, 1, max);
        if (!n) refuse(CB_ERR_INVALID_ARGUMENT, std::string("\"") + key + "\" outside 1.." + std::to_string(max));
        out_value = static_cast<uint32_t>(*n);
        obj->remove(key);
    };
    take_link("pcie_link_gen", 6, out.pcie_link_gen);
    take_link("pcie_link_width", 16, out.pcie_link_width);
    const std::set<std::string> reference_keys = {"key", "pci_device_id"};
    bool by_reference = obj->size() == 1 && reference_keys.count(*obj->getNames().begin()) == 1;
    if (by_reference) {
        const gpu_profile* found = nullptr;
        if (obj->has("key")) {
            if (!obj->get("key").isString()) refuse(CB_ERR_INVALID_ARGUMENT, "\"key\" must be a string");
            auto key = obj->getValue<std::string>("key");
            found = find_profile_by_key(key);
            if (!found) refuse(CB_ERR_NOT_FOUND, "no GPU model profile with key '" + key + "'");
        } else {
            auto v = obj->get("pci_device_id");
            if (v.isBoolean() || !v.isInteger())
                refuse(CB_ERR_INVALID_ARGUMENT, "\"pci_device_id\" must be an integer");
            const auto id = integer_within(v, 0, 0xFFFF);
            if (!id) refuse(CB_ERR_INVALID_ARGUMENT, "\"pci_device_id\" outside 0..0xffff");
            found = find_profile_by_pci_id(static_cast<uint16_t>(*id));
            if (!found) refuse(CB_ERR_NOT_FOUND, "no GPU model profile for PCI device id " + std::to_string(*id));
        }
        out.profile = *found;
    } else {
        std::ostringstream text;
        obj->stringify(text);
        std::string error;
        auto parsed = profile_from_json(text.str(), error);
        if (!parsed) refuse(CB_ERR_INVALID_ARGUMENT, error);
        out.profile = *parsed;
    }
    if (out.device_id.empty()) out.device_id = out.profile.key;
    return out;
}

}  // namespace cudabridge::nv
