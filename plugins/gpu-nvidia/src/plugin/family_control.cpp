#include "plugin/family_control.hpp"

#include "plugin/model_request.hpp"
#include "common/profiles/profile.hpp"

#include <cudabridge/cpp/host.hpp>

#include <Poco/JSON/Parser.h>

#include <sstream>

namespace cudabridge::nv {
namespace {

[[noreturn]] void refuse(cb_status st, const std::string& why) { throw sdk::status_error(st, why); }

}  // namespace

std::string handle_family_control(const std::string& request, const std::function<std::string()>& drivers) {
    Poco::JSON::Object::Ptr r;
    try {
        r = Poco::JSON::Parser().parse(request).extract<Poco::JSON::Object::Ptr>();
    } catch (const std::exception& e) {
        refuse(CB_ERR_INVALID_ARGUMENT, std::string("control: the request is not a JSON object: ") + e.what());
    }
    if (!r || !r->has("op") || !r->get("op").isString())
        refuse(CB_ERR_INVALID_ARGUMENT, "control: the request needs \"op\" (a string)");
    const auto op = r->getValue<std::string>("op");
    if (op == "profiles") {
        // Each profile's JSON is already complete text: splice rather than re-parse.
        std::string out = "{\"profiles\":[";
        bool first = true;
        for (const auto& p : all_profiles()) {
            out += first ? "" : ",";
            out += to_json(p);
            first = false;
        }
        return out + "]}";
    }
    if (op == "profile") {
        r->remove("op");
        std::ostringstream text;
        r->stringify(text);
        auto request_model = parse_model_request(text.str());
        return "{\"profile\":" + to_json(request_model.profile) + "}";
    }
    if (op == "drivers") return drivers();
    refuse(CB_ERR_UNSUPPORTED,
           "control: unknown op '" + op + "' (the nvidia family knows: profiles, profile, drivers)");
}

}  // namespace cudabridge::nv
