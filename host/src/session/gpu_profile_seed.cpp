// Seeding the store's GPU model profiles from a GPU family's control op "profiles".
#include <cudabridge/host/gpu_profile_seed.hpp>

#include <cudabridge/core/error.hpp>

#include <Poco/Dynamic/Var.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include <charconv>
#include <cstring>
#include <map>
#include <sstream>

namespace cudabridge::host {

namespace {

using Poco::Dynamic::Var;
using Poco::JSON::Array;
using Poco::JSON::Object;
using core::error;
using core::gpu_profile_row;

// Profiles are flat records with a few small arrays and objects; deeper input is not a profile.
constexpr size_t max_json_depth = 32;
// The first buffer: holds any transport reply and most profile lists without a second call.
constexpr size_t first_reply_size = size_t{64} << 10;

[[noreturn]] void malformed(const std::string& what) {
    throw error(CB_ERR_INVALID_ARGUMENT, "GPU profiles reply: " + what);
}

int read_pci_device_id(const Var& v, const std::string& where) {
    long long id = -1;
    if (v.isString()) {
        const std::string& text = v.extract<std::string>();
        const bool prefixed = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
        const char* first = text.data() + 2;
        const char* last = text.data() + text.size();
        if (prefixed && last - first <= 4) {
            unsigned value = 0;
            const auto [ptr, ec] = std::from_chars(first, last, value, 16);
            if (ec == std::errc() && ptr == last) id = value;
        }
        if (id < 0) malformed(where + ": 'pci_device_id' \"" + text + "\" is not a PCI device id such as \"0x2b85\"");
    } else if (v.isInteger() && !v.isBoolean()) {
        id = v.convert<long long>();
    } else {
        malformed(where + ": 'pci_device_id' must be an integer or a string such as \"0x2b85\"");
    }
    if (id < 0x0001 || id > 0xfffe)
        malformed(where + ": 'pci_device_id' " + std::to_string(id) + " is outside 0x0001..0xfffe");
    return static_cast<int>(id);
}

std::string read_text(const Object& o, const std::string& field, const std::string& where) {
    if (!o.has(field)) malformed(where + ": '" + field + "' is missing");
    const Var v = o.get(field);
    if (!v.isString()) malformed(where + ": '" + field + "' must be a string");
    std::string text = v.extract<std::string>();
    if (text.empty()) malformed(where + ": '" + field + "' is empty");
    return text;
}

gpu_profile_row read_profile(const Var& v, size_t index, const std::string& source) {
    std::string where = "profile " + std::to_string(index);
    if (v.type() != typeid(Object::Ptr)) malformed(where + " is not a JSON object");
    const Object::Ptr& o = v.extract<Object::Ptr>();
    gpu_profile_row row;
    row.key = read_text(*o, "key", where);
    where += " ('" + row.key + "')";
    row.name = read_text(*o, "name", where);
    if (!o->has("pci_device_id")) malformed(where + ": 'pci_device_id' is missing");
    row.pci_device_id = read_pci_device_id(o->get("pci_device_id"), where);
    if (o->has("sources") && o->get("sources").type() != typeid(Object::Ptr))
        malformed(where + ": 'sources' must be an object (field -> where its figure comes from)");
    std::ostringstream data;
    o->stringify(data);
    row.data = data.str();
    row.source = source;
    return row;
}

Var parse_json(std::string_view text) {
    try {
        Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(/*preserveObjectOrder=*/true));
        parser.setDepth(max_json_depth);
        return parser.parse(std::string(text));
    } catch (const Poco::Exception& e) {
        malformed("not valid JSON (" + e.displayText() + ")");
    } catch (const std::exception& e) {
        malformed(std::string("not valid JSON (") + e.what() + ")");
    }
}

// One control call; returns the reply text, or nothing when the family does not answer the op.
// A truncated reply is asked for again with the size the family reported (the op is read-only).
std::optional<std::string> ask(const cb_gpu_table* table, void* instance, const char* request,
                               const std::string& family_name) {
    std::string buf(first_reply_size, '\0');
    for (int attempt = 0; attempt < 3; ++attempt) {
        size_t needed = 0;
        core::set_last_error("");
        const cb_status st = table->control(instance, request, buf.data(), buf.size(), &needed);
        if (st == CB_ERR_UNSUPPORTED) return std::nullopt;
        if (st != CB_OK) {
            const std::string why = core::last_error().empty() ? core::status_description(st) : core::last_error();
            throw error(st, "GPU family " + family_name + ": control " + request + " failed: " + why);
        }
        if (needed > max_gpu_control_reply)
            throw error(CB_ERR_INVALID_ARGUMENT, "GPU family " + family_name + ": profiles reply of " +
                                                     std::to_string(needed) + " bytes exceeds the " +
                                                     std::to_string(max_gpu_control_reply) + "-byte limit");
        if (needed <= buf.size()) return std::string(buf.data(), ::strnlen(buf.data(), buf.size()));
        buf.assign(needed, '\0');
    }
    throw error(CB_ERR_INVALID_ARGUMENT,
                "GPU family " + family_name + ": profiles reply kept growing; gave up after three calls");
}

}  // namespace

std::vector<gpu_profile_row> parse_gpu_profiles_reply(std::string_view reply, const std::string& source) {
    const Var root = parse_json(reply);
    if (root.type() != typeid(Object::Ptr)) malformed("not a JSON object");
    const Object::Ptr& o = root.extract<Object::Ptr>();
    if (!o->has("profiles")) malformed("'profiles' is missing");
    const Var list = o->get("profiles");
    if (list.type() != typeid(Array::Ptr)) malformed("'profiles' must be an array");
    const Array::Ptr& profiles = list.extract<Array::Ptr>();

    std::vector<gpu_profile_row> rows;
    std::map<int, std::string> key_by_id;
    for (size_t i = 0; i < profiles->size(); ++i) {
        gpu_profile_row row = read_profile(profiles->get(static_cast<unsigned>(i)), i, source);
        const auto [it, added] = key_by_id.emplace(row.pci_device_id, row.key);
        if (!added)
            malformed("profiles '" + it->second + "' and '" + row.key + "' share pci_device_id " +
                      std::to_string(row.pci_device_id));
        rows.push_back(std::move(row));
    }
    return rows;
}

size_t seed_gpu_profiles(core::store& s, const cb_gpu_table* table, void* instance, const std::string& family_name) {
    if (table == nullptr) throw error(CB_ERR_INVALID_ARGUMENT, "GPU family " + family_name + ": no function table");
    if (!CB_HAS_FIELD(table, cb_gpu_table, control)) return 0;  // ABI 1.0 / 1.1, or not offered
    const auto reply = ask(table, instance, R"({"op":"profiles"})", family_name);
    if (!reply) return 0;
    std::vector<gpu_profile_row> rows;
    try {
        rows = parse_gpu_profiles_reply(*reply, "plugin " + family_name);
    } catch (const error& e) {
        throw error(e.status(), "GPU family " + family_name + ": " + e.what());
    }
    core::put_gpu_profiles(s, rows);
    return rows.size();
}

}  // namespace cudabridge::host
