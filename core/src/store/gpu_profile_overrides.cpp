// User overrides of GPU model profiles: one setting per overridden field in scope
// "profile:<key>", its value JSON text, so every change has a row in the settings history.
#include <cudabridge/core/gpu_profiles.hpp>

#include <cudabridge/core/error.hpp>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <sstream>

namespace cudabridge::core {

std::string gpu_profile_scope(std::string_view key) { return "profile:" + std::string(key); }

std::vector<setting_row> gpu_profile_overrides(store& s, std::string_view key) {
    return list_settings(s, gpu_profile_scope(key));
}

std::string apply_gpu_profile_overrides(const std::string& profile_json, const std::vector<setting_row>& overrides) {
    if (overrides.empty()) return profile_json;
    Poco::JSON::Object::Ptr profile;
    try {
        Poco::JSON::Parser parser;
        profile = parser.parse(profile_json).extract<Poco::JSON::Object::Ptr>();
    } catch (const std::exception& e) {
        throw error(CB_ERR_INVALID_ARGUMENT, std::string("a stored GPU profile is not JSON: ") + e.what());
    }
    for (const auto& o : overrides) {
        try {
            // Wrapped in an array: the parser takes only objects and arrays at the top level.
            Poco::JSON::Parser parser;
            profile->set(o.key, parser.parse("[" + o.value + "]").extract<Poco::JSON::Array::Ptr>()->get(0));
        } catch (const std::exception& e) {
            throw error(CB_ERR_INVALID_ARGUMENT, "the override " + o.scope + " " + o.key + " is not JSON: " + e.what());
        }
    }
    std::ostringstream out;
    profile->stringify(out);
    return out.str();
}

std::optional<gpu_profile_row> find_effective_gpu_profile(store& s, int pci_device_id) {
    auto row = find_gpu_profile(s, pci_device_id);
    if (row) row->data = apply_gpu_profile_overrides(row->data, gpu_profile_overrides(s, row->key));
    return row;
}

std::optional<gpu_profile_row> find_effective_gpu_profile_by_key(store& s, std::string_view key) {
    auto row = find_gpu_profile_by_key(s, key);
    if (row) row->data = apply_gpu_profile_overrides(row->data, gpu_profile_overrides(s, row->key));
    return row;
}

}  // namespace cudabridge::core
