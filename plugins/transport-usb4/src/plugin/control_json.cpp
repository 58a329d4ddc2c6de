#include "plugin/control_json.hpp"

#include <cudabridge/cpp/host.hpp>

#include <Poco/JSON/Parser.h>

#include <ctime>
#include <sstream>

namespace cudabridge::usb4 {

Poco::JSON::Object::Ptr parse_request(const std::string& text) {
    try {
        Poco::JSON::Parser parser;
        auto v = parser.parse(text);
        if (v.type() != typeid(Poco::JSON::Object::Ptr))
            throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "a control request is a JSON object");
        return v.extract<Poco::JSON::Object::Ptr>();
    } catch (const Poco::Exception& e) {
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "control request is not JSON: " + e.displayText());
    }
}

std::string stringify(const Poco::JSON::Object::Ptr& o) {
    std::ostringstream out;
    o->stringify(out);
    return out.str();
}

namespace {
template <class T>
std::optional<T> field(const Poco::JSON::Object::Ptr& o, const char* key, const char* type) {
    if (!o->has(key) || o->isNull(key)) return std::nullopt;
    try {
        return o->getValue<T>(key);
    } catch (const Poco::Exception&) {
        throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, std::string("'") + key + "' must be " + type);
    }
}
}  // namespace

std::optional<std::string> text_field(const Poco::JSON::Object::Ptr& o, const char* key) {
    return field<std::string>(o, key, "a string");
}
std::optional<double> number_field(const Poco::JSON::Object::Ptr& o, const char* key) {
    return field<double>(o, key, "a number");
}
std::optional<bool> bool_field(const Poco::JSON::Object::Ptr& o, const char* key) {
    return field<bool>(o, key, "true or false");
}

namespace {
int64_t unix_ms_now() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}
}  // namespace

void stamp_posted_drop(Poco::JSON::Object& posted) {
    if (posted.has("link_drop_ms")) posted.set("posted_unix_ms", unix_ms_now());
}

void keep_what_is_left_of_the_drop(const Poco::JSON::Object::Ptr& posted, fault_request& f) {
    const auto at = number_field(posted, "posted_unix_ms");
    if (!f.link_drop_ns || !at) {
        f.link_drop_ns.reset();  // an unstamped drop (an older build's) was for the links open then
        return;
    }
    const double left_ms = *at + static_cast<double>(*f.link_drop_ns) / 1e6 - static_cast<double>(unix_ms_now());
    if (left_ms > 0)
        f.link_drop_ns = static_cast<uint64_t>(left_ms * 1e6);
    else
        f.link_drop_ns.reset();
}

fault_request fault_from(const Poco::JSON::Object::Ptr& r) {
    fault_request f;
    f.bit_error_rate = number_field(r, "bit_error_rate");
    if (auto ms = number_field(r, "link_drop_ms")) {
        if (*ms < 0) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "link_drop_ms must be 0 or more");
        f.link_drop_ns = static_cast<uint64_t>(*ms * 1e6);
    }
    if (auto b = number_field(r, "unplug_after_bytes")) {
        if (*b < 0) throw sdk::status_error(CB_ERR_INVALID_ARGUMENT, "unplug_after_bytes must be 0 or more");
        f.unplug_after_bytes = static_cast<uint64_t>(*b);
    }
    f.unplug_now = bool_field(r, "unplug_now");
    f.dart_exhausted = bool_field(r, "dart_exhausted");
    f.stuck = bool_field(r, "stuck");
    return f;
}

}  // namespace cudabridge::usb4
