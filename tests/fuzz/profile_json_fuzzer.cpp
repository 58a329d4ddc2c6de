// GPU model profile JSON, as `cudabridge-cli profile import FILE` reads it (one profile object, or
// {"profiles": [...]}) and as the store is seeded from a GPU family's {"op":"profiles"} reply:
//  - nv::profile_from_json, the parser and validator every imported profile goes through (the
//    family's "profile" control op ends in it); a profile it accepts must survive export and
//    import unchanged: profile_from_json(to_json(p)) == p;
//  - host::parse_gpu_profiles_reply, which may throw core::error only;
//  - core::apply_gpu_profile_overrides with the input as profile and as override, likewise.
#include "common/profiles/profile.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/gpu_profiles.hpp>
#include <cudabridge/host/gpu_profile_seed.hpp>

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;

// The profiles of an import file, each as JSON text; empty when the file is not one.
std::vector<std::string> profiles_of(const std::string& text) {
    std::vector<Object::Ptr> objects;
    try {
        const auto root = Poco::JSON::Parser().parse(text);
        if (root.type() != typeid(Object::Ptr)) return {};
        const auto o = root.extract<Object::Ptr>();
        if (!o->has("profiles")) {
            objects.push_back(o);
        } else if (const auto arr = o->getArray("profiles")) {
            for (unsigned i = 0; i < arr->size(); ++i)
                if (const auto p = arr->getObject(i)) objects.push_back(p);
        }
    } catch (const Poco::Exception&) {
        return {};  // the CLI says "not valid JSON"
    }
    std::vector<std::string> out;
    for (const auto& o : objects) {
        std::ostringstream s;
        o->stringify(s);
        out.push_back(s.str());
    }
    return out;
}

void check_round_trip(const std::string& text) {
    using namespace cudabridge::nv;
    std::string why;
    const auto p = profile_from_json(text, why);
    if (!p) return;
    const std::string exported = to_json(*p);
    const auto again = profile_from_json(exported, why);
    if (!again || !(*again == *p)) {
        std::fprintf(stderr, "profile does not survive export and import (%s)\nin: %s\nexported: %s\n",
                     again ? "changed" : why.c_str(), text.c_str(), exported.c_str());
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (const auto& profile : profiles_of(text)) check_round_trip(profile);
    check_round_trip(text);

    using namespace cudabridge::core;
    try {
        for (const auto& row : cudabridge::host::parse_gpu_profiles_reply(text, "fuzz"))
            if (row.pci_device_id < 0x0001 || row.pci_device_id > 0xfffe || row.key.empty() || row.name.empty())
                std::abort();  // documented as refused
    } catch (const error&) {
    }
    try {
        apply_gpu_profile_overrides(text, {setting_row{"profile:fuzz", "power_default_w", text, 0}});
    } catch (const error&) {
    }
    return 0;
}
