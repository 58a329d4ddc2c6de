// The plugin list of one library as kept in plugin_cache.descriptors (a JSON array).
#include "internal.hpp"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <sstream>

namespace cudabridge::core {

std::string encode_plugins(const std::vector<plugin_info>& plugins) {
    Poco::JSON::Array arr;
    for (const auto& p : plugins) {
        Poco::JSON::Object o;
        o.set("name", p.name);
        o.set("kind", static_cast<int>(p.kind));
        o.set("version", static_cast<Poco::UInt64>(p.version));
        o.set("license", p.license);
        o.set("description", p.description);
        o.set("abi_major", static_cast<int>(p.abi_major));
        o.set("abi_minor", static_cast<int>(p.abi_minor));
        arr.add(o);
    }
    std::ostringstream out;
    arr.stringify(out);
    return out.str();
}

std::vector<plugin_info> decode_plugins(const std::string& json, const std::string& path) {
    std::vector<plugin_info> out;
    Poco::JSON::Parser parser;
    auto arr = parser.parse(json).extract<Poco::JSON::Array::Ptr>();
    for (size_t i = 0; i < arr->size(); ++i) {
        auto o = arr->getObject(static_cast<unsigned>(i));
        plugin_info p;
        p.name = o->getValue<std::string>("name");
        p.kind = o->getValue<int>("kind");
        p.version = static_cast<uint32_t>(o->getValue<Poco::UInt64>("version"));
        p.license = o->getValue<std::string>("license");
        p.description = o->getValue<std::string>("description");
        p.abi_major = static_cast<uint16_t>(o->getValue<int>("abi_major"));
        p.abi_minor = static_cast<uint16_t>(o->getValue<int>("abi_minor"));
        p.path = path;
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace cudabridge::core
