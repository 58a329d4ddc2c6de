// JSON import / export of a profile. Units are in the key names (see profile.hpp); PCI ids are
// written as "0x2b85" and read as such a string or as an integer.
#include "common/profiles/profile.hpp"

#include <cudabridge/cpp/hex_text.hpp>

#include <Poco/Dynamic/Var.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <sstream>

namespace cudabridge::nv {
namespace {

using Poco::Dynamic::Var;
using Poco::JSON::Array;
using Poco::JSON::Object;

// Thrown by the readers below with the message to hand back; never escapes this file.
struct refusal {
    std::string message;
};

[[noreturn]] void refuse(std::string message) { throw refusal{std::move(message)}; }

bool is_object(const Var& v) { return v.type() == typeid(Object::Ptr); }
bool is_array(const Var& v) { return v.type() == typeid(Array::Ptr); }

// Names fit cbDeviceProp.name (256 bytes with its NUL); a source may be a longer citation.
std::string read_string(const Var& v, const std::string& key, size_t max_length = 255) {
    if (!v.isString()) refuse("'" + key + "' must be a string");
    std::string text = v.extract<std::string>();
    if (text.size() > max_length)
        refuse("'" + key + "' must be at most " + std::to_string(max_length) + " characters, not " +
               std::to_string(text.size()));
    return text;
}

double read_number(const Var& v, const std::string& key) {
    if (v.isBoolean() || !v.isNumeric()) refuse("'" + key + "' must be a number");
    return v.convert<double>();
}

uint64_t read_unsigned(const Var& v, const std::string& key, uint64_t max) {
    if (v.isBoolean() || !v.isInteger()) refuse("'" + key + "' must be a whole number");
    if (v.isSigned()) {
        const auto s = v.convert<int64_t>();
        if (s < 0) refuse("'" + key + "' must not be negative");
        if (static_cast<uint64_t>(s) > max) refuse("'" + key + "' is too large");
        return static_cast<uint64_t>(s);
    }
    const auto u = v.convert<uint64_t>();
    if (u > max) refuse("'" + key + "' is too large");
    return u;
}

uint16_t read_pci_id(const Var& v, const std::string& key) {
    if (v.isString()) {
        const auto& text = v.extract<std::string>();
        const bool prefixed = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
        const char* first = text.data() + (prefixed ? 2 : 0);
        const char* last = text.data() + text.size();
        unsigned value = 0;
        const auto [ptr, ec] = std::from_chars(first, last, value, 16);
        if (!prefixed || ec != std::errc() || ptr != last || last - first > 4)
            refuse("'" + key + "' must be a PCI device id such as \"0x2b85\"");
        return static_cast<uint16_t>(value);
    }
    return static_cast<uint16_t>(read_unsigned(v, key, 0xffff));
}

bool read_bool(const Var& v, const std::string& key) {
    if (!v.isBoolean()) refuse("'" + key + "' must be true or false");
    return v.extract<bool>();
}

}  // namespace

std::string to_json(const gpu_profile& p) {
    Object o(Poco::JSON_PRESERVE_KEY_ORDER);
    o.set("key", p.key);
    o.set("name", p.name);
    o.set("pci_device_id", sdk::hex_text(p.pci_device_id, 4));
    Array aliases;
    for (uint16_t id : p.alias_pci_device_ids) aliases.add(sdk::hex_text(id, 4));
    o.set("alias_pci_device_ids", aliases);
    o.set("architecture", p.architecture);
    o.set("chip", p.chip);
    o.set("compute_major", p.compute_major);
    o.set("compute_minor", p.compute_minor);
    o.set("sm_count", p.sm_count);
    o.set("cuda_cores", p.cuda_cores);
    o.set("vram_bytes", p.vram_bytes);
    o.set("memory_type", p.memory_type);
    o.set("memory_bus_width_bits", p.memory_bus_width_bits);
    o.set("l2_cache_bytes", p.l2_cache_bytes);
    o.set("memory_bandwidth_gbps", p.memory_bandwidth_gbps);
    o.set("power_default_w", p.power_default_w);
    o.set("power_min_w", p.power_min_w);
    o.set("power_max_w", p.power_max_w);
    o.set("base_clock_mhz", p.base_clock_mhz);
    o.set("boost_clock_mhz", p.boost_clock_mhz);
    o.set("max_clock_mhz", p.max_clock_mhz);
    o.set("memory_clock_mhz", p.memory_clock_mhz);
    o.set("max_operating_temp_c", p.max_operating_temp_c);
    o.set("slowdown_temp_c", p.slowdown_temp_c);
    o.set("shutdown_temp_c", p.shutdown_temp_c);
    Array fan;
    for (const auto& pt : p.fan_curve) {
        Object f(Poco::JSON_PRESERVE_KEY_ORDER);
        f.set("temperature_c", pt.temperature_c);
        f.set("percent", pt.percent);
        fan.add(f);
    }
    o.set("fan_curve", fan);
    o.set("thermal_resistance_c_per_w", p.thermal_resistance_c_per_w);
    o.set("ambient_temp_c", p.ambient_temp_c);
    o.set("min_link_bandwidth_gbps", p.min_link_bandwidth_gbps);
    o.set("resizable_bar", p.resizable_bar);
    Object sources(Poco::JSON_PRESERVE_KEY_ORDER);
    for (const auto& [field, text] : p.sources) sources.set(field, text);
    o.set("sources", sources);
    std::ostringstream out;
    o.stringify(out, 2);
    return out.str();
}

std::optional<gpu_profile> profile_from_json(std::string_view text, std::string& error) {
    Object::Ptr root;
    try {
        Poco::JSON::Parser parser;
        const Var parsed = parser.parse(std::string(text));
        if (!is_object(parsed)) {
            error = "a profile must be a JSON object";
            return std::nullopt;
        }
        root = parsed.extract<Object::Ptr>();
    } catch (const Poco::Exception& ex) {
        error = "malformed JSON: " + ex.displayText();
        return std::nullopt;
    }

    try {
        const auto& fields = profile_field_names();
        for (const auto& name : root->getNames())
            if (std::find(fields.begin(), fields.end(), name) == fields.end()) refuse("unknown key '" + name + "'");
        auto need = [&](const std::string& key) -> Var {
            if (!root->has(key)) refuse("missing key '" + key + "'");
            const Var v = root->get(key);
            if (v.isEmpty()) refuse("'" + key + "' must not be null");
            return v;
        };
        constexpr uint64_t u32 = std::numeric_limits<uint32_t>::max();

        gpu_profile p;
        p.key = read_string(need("key"), "key");
        p.name = read_string(need("name"), "name");
        p.pci_device_id = read_pci_id(need("pci_device_id"), "pci_device_id");
        if (root->has("alias_pci_device_ids")) {
            const Var v = root->get("alias_pci_device_ids");
            if (!is_array(v)) refuse("'alias_pci_device_ids' must be an array");
            const auto& arr = v.extract<Array::Ptr>();
            for (size_t i = 0; i < arr->size(); ++i)
                p.alias_pci_device_ids.push_back(
                    read_pci_id(arr->get(static_cast<unsigned>(i)), "alias_pci_device_ids[" + std::to_string(i) + "]"));
        }
        p.architecture = read_string(need("architecture"), "architecture");
        p.chip = read_string(need("chip"), "chip");
        p.compute_major = static_cast<int>(read_unsigned(need("compute_major"), "compute_major", 1000));
        p.compute_minor = static_cast<int>(read_unsigned(need("compute_minor"), "compute_minor", 1000));
        p.sm_count = static_cast<uint32_t>(read_unsigned(need("sm_count"), "sm_count", u32));
        p.cuda_cores = static_cast<uint32_t>(read_unsigned(need("cuda_cores"), "cuda_cores", u32));
        p.vram_bytes = read_unsigned(need("vram_bytes"), "vram_bytes", std::numeric_limits<uint64_t>::max());
        p.memory_type = read_string(need("memory_type"), "memory_type");
        p.memory_bus_width_bits =
            static_cast<uint32_t>(read_unsigned(need("memory_bus_width_bits"), "memory_bus_width_bits", u32));
        if (root->has("l2_cache_bytes"))
            p.l2_cache_bytes = read_unsigned(root->get("l2_cache_bytes"), "l2_cache_bytes", uint64_t{1} << 30);
        p.memory_bandwidth_gbps = read_number(need("memory_bandwidth_gbps"), "memory_bandwidth_gbps");
        p.power_default_w = read_number(need("power_default_w"), "power_default_w");
        p.power_min_w = read_number(need("power_min_w"), "power_min_w");
        p.power_max_w = read_number(need("power_max_w"), "power_max_w");
        p.base_clock_mhz = static_cast<uint32_t>(read_unsigned(need("base_clock_mhz"), "base_clock_mhz", u32));
        p.boost_clock_mhz = static_cast<uint32_t>(read_unsigned(need("boost_clock_mhz"), "boost_clock_mhz", u32));
        p.max_clock_mhz = static_cast<uint32_t>(read_unsigned(need("max_clock_mhz"), "max_clock_mhz", u32));
        p.memory_clock_mhz = static_cast<uint32_t>(read_unsigned(need("memory_clock_mhz"), "memory_clock_mhz", u32));
        p.max_operating_temp_c = read_number(need("max_operating_temp_c"), "max_operating_temp_c");
        p.slowdown_temp_c = read_number(need("slowdown_temp_c"), "slowdown_temp_c");
        p.shutdown_temp_c = read_number(need("shutdown_temp_c"), "shutdown_temp_c");
        {
            const Var v = need("fan_curve");
            if (!is_array(v)) refuse("'fan_curve' must be an array");
            const auto& arr = v.extract<Array::Ptr>();
            for (size_t i = 0; i < arr->size(); ++i) {
                const std::string at = "fan_curve[" + std::to_string(i) + "]";
                const Var e = arr->get(static_cast<unsigned>(i));
                if (!is_object(e)) refuse("'" + at + "' must be an object");
                const auto& pt = e.extract<Object::Ptr>();
                for (const auto& name : pt->getNames())
                    if (name != "temperature_c" && name != "percent") refuse("unknown key '" + at + "." + name + "'");
                for (const char* k : {"temperature_c", "percent"})
                    if (!pt->has(k)) refuse("missing key '" + at + "." + k + "'");
                p.fan_curve.push_back({read_number(pt->get("temperature_c"), at + ".temperature_c"),
                                       read_number(pt->get("percent"), at + ".percent")});
            }
        }
        p.thermal_resistance_c_per_w = read_number(need("thermal_resistance_c_per_w"), "thermal_resistance_c_per_w");
        p.ambient_temp_c = read_number(need("ambient_temp_c"), "ambient_temp_c");
        p.min_link_bandwidth_gbps = read_number(need("min_link_bandwidth_gbps"), "min_link_bandwidth_gbps");
        p.resizable_bar = read_bool(need("resizable_bar"), "resizable_bar");
        if (root->has("sources")) {
            const Var v = root->get("sources");
            if (!is_object(v)) refuse("'sources' must be an object");
            const auto& src = v.extract<Object::Ptr>();
            for (const auto& name : src->getNames()) {
                if (name == "sources" || std::find(fields.begin(), fields.end(), name) == fields.end())
                    refuse("unknown key 'sources." + name + "'");
                p.sources[name] = read_string(src->get(name), "sources." + name, 4096);
            }
        }

        const auto problems = validate(p);
        if (!problems.empty()) {
            std::string joined;
            for (const auto& pr : problems) joined += (joined.empty() ? "" : "; ") + pr;
            refuse(joined);
        }
        return p;
    } catch (const refusal& r) {
        error = r.message;
    } catch (const Poco::Exception& ex) {
        error = "invalid profile: " + ex.displayText();
    } catch (const std::exception& ex) {
        error = std::string("invalid profile: ") + ex.what();
    }
    return std::nullopt;
}

}  // namespace cudabridge::nv
