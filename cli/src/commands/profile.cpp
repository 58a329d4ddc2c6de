// `profile list | show MODEL | set MODEL KEY VALUE | reset MODEL [KEY] | import FILE |
//  export MODEL [FILE]`: the GPU model profiles (seeded by the GPU family, with each figure's
// source) and the user's overrides layered on top. Every change is checked by the GPU family
// (types, ranges, units, unknown keys) before anything is written.
#include "app.hpp"
#include "device_text.hpp"
#include "json_output.hpp"
#include "text_table.hpp"

#include <cudabridge/core/error.hpp>
#include <cudabridge/core/gpu_profiles.hpp>
#include <cudabridge/core/store.hpp>
#include <cudabridge/cpp/bool_text.hpp>

#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>

#include <charconv>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

namespace cudabridge::cli {

namespace {

std::string to_text(const Poco::Dynamic::Var& v) {
    std::ostringstream out;
    Poco::JSON::Stringifier::stringify(v, out);
    return out.str();
}

json_object parse_object(const std::string& text, const std::string& what) {
    try {
        auto v = Poco::JSON::Parser().parse(text);
        if (v.type() != typeid(json_object)) throw cli_error(exit_error, what + " is not a JSON object");
        return v.extract<json_object>();
    } catch (const Poco::Exception& e) {
        throw cli_error(exit_error, what + " is not valid JSON: " + e.displayText());
    }
}

// MODEL: a profile key ("rtx-5090") or a PCI device id ("0x2b85").
core::gpu_profile_row find(host::session& s, const std::string& model) {
    std::lock_guard lock(s.store_mutex());
    std::optional<core::gpu_profile_row> row = core::find_gpu_profile_by_key(s.db(), model);
    if (!row && model.rfind("0x", 0) == 0) {
        int id = 0;
        auto [p, ec] = std::from_chars(model.data() + 2, model.data() + model.size(), id, 16);
        if (ec == std::errc() && p == model.data() + model.size()) row = core::find_gpu_profile(s.db(), id);
    }
    if (!row) throw cli_error(exit_error, "no GPU profile '" + model + "' ('cudabridge-cli profile list' shows them)");
    return *row;
}

std::vector<core::setting_row> overrides_of(host::session& s, const std::string& key) {
    std::lock_guard lock(s.store_mutex());
    return core::gpu_profile_overrides(s.db(), key);
}

// The GPU family checks a whole profile (the same parser that builds simulated GPUs from it).
void validate(host::session& s, const json_object& profile) {
    auto request = make_object();
    request->set("op", std::string("profile"));
    for (const auto& name : profile->getNames()) request->set(name, profile->get(name));
    try {
        s.gpu_control(to_text(request));
    } catch (const core::error& e) {
        std::string why = e.what();
        const auto at = why.find("GPU model request: ");
        if (at != std::string::npos) why = why.substr(at + 19);
        throw cli_error(exit_error, "refused: " + why + "; nothing was changed");
    }
}

// The unit a field's name ends in, for values given with one ("350W", "2100MHz").
std::string unit_of(const std::string& field) {
    static const std::pair<const char*, const char*> units[] = {{"_w", "W"},       {"_mhz", "MHz"},   {"_c", "C"},
                                                                {"_gbps", "GB/s"}, {"_bits", "bits"}, {"_bytes", "B"}};
    for (const auto& [suffix, unit] : units) {
        const std::string s = suffix;
        if (field.size() > s.size() && field.compare(field.size() - s.size(), s.size(), s) == 0) return unit;
    }
    return "";
}

// VALUE typed like the field it replaces; a unit, if given, must be the field's.
Poco::Dynamic::Var typed_value(const std::string& field, const Poco::Dynamic::Var& current, const std::string& text) {
    if (current.isBoolean()) {
        if (auto b = sdk::parse_bool(text)) return *b;
        throw usage_error(field + ": " + sdk::not_a_bool_message(text));
    }
    if (current.isNumeric()) {
        double v = 0;
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc()) throw usage_error(field + " takes a number, not '" + text + "'");
        std::string rest(p, text.data() + text.size());
        const std::string unit = unit_of(field);
        uint64_t scale = 1;
        if (unit == "B" && (rest == "K" || rest == "KiB"))
            scale = 1ull << 10;
        else if (unit == "B" && (rest == "M" || rest == "MiB"))
            scale = 1ull << 20;
        else if (unit == "B" && (rest == "G" || rest == "GiB"))
            scale = 1ull << 30;
        else if (!rest.empty() && rest != unit)
            throw usage_error(field + " is in " + (unit.empty() ? "plain numbers" : unit) + ", not '" + rest + "'");
        v *= static_cast<double>(scale);
        if (current.isInteger()) {
            if (v < 0 || v != static_cast<double>(static_cast<int64_t>(v)))
                throw usage_error(field + " takes a whole number of 0 or more, not '" + text + "'");
            return static_cast<int64_t>(v);
        }
        return v;
    }
    if (current.isString()) return text;
    throw usage_error(field + " is a list or an object: change it with 'profile import FILE'");
}

int list(app& a) {
    auto& s = a.session();
    std::vector<core::gpu_profile_row> rows;
    {
        std::lock_guard lock(s.store_mutex());
        rows = core::list_gpu_profiles(s.db());
    }
    auto arr = make_array();
    text_table t({"KEY", "PCI ID", "NAME", "ARCHITECTURE", "VRAM", "POWER", "OVERRIDES", "SOURCE"});
    for (const auto& r : rows) {
        auto p = parse_object(r.data, "the stored profile " + r.key);
        const size_t n = overrides_of(s, r.key).size();
        auto o = make_object();
        o->set("key", r.key);
        o->set("pci_device_id", hex16(static_cast<uint32_t>(r.pci_device_id)));
        o->set("name", r.name);
        o->set("architecture", p->optValue<std::string>("architecture", ""));
        o->set("vram_bytes", p->optValue<uint64_t>("vram_bytes", 0));
        o->set("power_default_w", p->optValue<double>("power_default_w", 0));
        o->set("overrides", n);
        o->set("source", r.source);
        arr->add(o);
        t.add({r.key, hex16(static_cast<uint32_t>(r.pci_device_id)), r.name,
               p->optValue<std::string>("architecture", ""), bytes_text(p->optValue<uint64_t>("vram_bytes", 0)),
               fixed(p->optValue<double>("power_default_w", 0), 0) + " W", std::to_string(n), r.source});
    }
    if (a.options().json) {
        auto o = make_object();
        o->set("profiles", arr);
        print_json(o);
    } else {
        t.print(std::cout);
    }
    return exit_ok;
}

}  // namespace

std::vector<std::string> profile_models(app& a) {
    auto& s = a.session();
    std::lock_guard lock(s.store_mutex());
    std::vector<std::string> keys;
    for (const auto& r : core::list_gpu_profiles(s.db())) keys.push_back(r.key);
    return keys;
}

// The fields `profile set` takes: a scalar one that does not identify the profile.
std::vector<std::string> profile_keys(app& a, const std::string& model) {
    auto& s = a.session();
    const auto row = find(s, model);
    const auto profile = parse_object(row.data, "the stored profile");
    std::vector<std::string> keys;
    for (const auto& name : profile->getNames())
        if (name != "key" && name != "pci_device_id" && name != "sources" && !profile->isArray(name) &&
            !profile->isObject(name))
            keys.push_back(name);
    return keys;
}

namespace {

int show(app& a, const std::string& model) {
    auto& s = a.session();
    const auto row = find(s, model);
    const auto seed = parse_object(row.data, "the stored profile");
    std::map<std::string, std::string> overridden;
    for (const auto& o : overrides_of(s, row.key)) overridden[o.key] = o.value;
    const auto effective =
        parse_object(core::apply_gpu_profile_overrides(row.data, overrides_of(s, row.key)), "the profile");
    auto sources = seed->getObject("sources");
    auto fields = make_array();
    text_table t({"FIELD", "VALUE", "FROM", "SOURCE OF THE FIGURE"});
    for (const auto& name : effective->getNames()) {
        if (name == "sources") continue;
        const bool over = overridden.count(name) > 0;
        const std::string source = over ? "user override" : sources ? sources->optValue<std::string>(name, "") : "";
        auto f = make_object();
        f->set("name", name);
        f->set("value", effective->get(name));
        f->set("origin", std::string(over ? "override" : "profile"));
        if (over) f->set("profile_value", seed->get(name));
        f->set("source", source);
        fields->add(f);
        std::string value = to_text(effective->get(name));
        if (value.size() > 60) value = value.substr(0, 57) + "...";
        t.add({name, value, over ? "override (was " + to_text(seed->get(name)) + ")" : "profile", source});
    }
    if (a.options().json) {
        auto o = make_object();
        o->set("key", row.key);
        o->set("name", row.name);
        o->set("pci_device_id", hex16(static_cast<uint32_t>(row.pci_device_id)));
        o->set("source", row.source);
        o->set("fields", fields);
        print_json(o);
    } else {
        std::cout << row.name << " (" << row.key << ", PCI " << hex16(static_cast<uint32_t>(row.pci_device_id))
                  << "), from " << row.source << "\n";
        t.print(std::cout);
    }
    return exit_ok;
}

int set(app& a, const std::string& model, const std::string& field, const std::string& text) {
    auto& s = a.session();
    const auto row = find(s, model);
    if (field == "key" || field == "pci_device_id" || field == "sources")
        throw cli_error(exit_error, "'" + field + "' identifies the profile and cannot be overridden");
    auto effective = parse_object(core::apply_gpu_profile_overrides(row.data, overrides_of(s, row.key)), "the profile");
    if (!effective->has(field))
        throw cli_error(exit_error, "unknown key '" + field + "' in the " + row.key +
                                        " profile ('cudabridge-cli profile show " + row.key + "' lists its fields)");
    const auto old_value = effective->get(field);
    const auto value = typed_value(field, old_value, text);
    effective->set(field, value);
    validate(s, effective);
    const std::string old_text = to_text(old_value), new_text = to_text(value);
    {
        std::lock_guard lock(s.store_mutex());
        core::set_setting(s.db(), core::gpu_profile_scope(row.key), field, new_text, "cli");
    }
    s.record_event("", "EGPU", CB_SEVERITY_INFO, "profile.set",
                   row.key + " " + field + ": " + old_text + " -> " + new_text,
                   "{\"profile\":\"" + row.key + "\",\"key\":\"" + field + "\",\"old\":" + old_text +
                       ",\"new\":" + new_text + "}");
    if (a.options().json) {
        auto o = make_object();
        o->set("profile", row.key);
        o->set("key", field);
        o->set("old", old_value);
        o->set("new", value);
        print_json(o);
    } else {
        std::cout << row.key << " " << field << ": " << old_text << " -> " << new_text
                  << " (applied on the next connect)\n";
    }
    return exit_ok;
}

int reset(app& a, const std::string& model, const std::optional<std::string>& field) {
    auto& s = a.session();
    const auto row = find(s, model);
    size_t n = 0;
    {
        std::lock_guard lock(s.store_mutex());
        s.db().write([&] {
            for (const auto& o : core::gpu_profile_overrides(s.db(), row.key))
                if (!field || o.key == *field) n += core::erase_setting(s.db(), o.scope, o.key);
        });
    }
    if (field && n == 0) throw cli_error(exit_error, row.key + " has no override of '" + *field + "'");
    std::cout << (a.options().json ? "{\"profile\": \"" + row.key + "\", \"removed\": " + std::to_string(n) + "}\n"
                                   : row.key + ": " + std::to_string(n) + " override(s) removed\n");
    return exit_ok;
}

int export_profile(app& a, const std::string& model, const std::optional<std::string>& file) {
    auto& s = a.session();
    const auto row = find(s, model);
    auto effective = parse_object(core::apply_gpu_profile_overrides(row.data, overrides_of(s, row.key)), "the profile");
    if (!file) {
        print_json(effective);
        return exit_ok;
    }
    std::ofstream out(*file);
    effective->stringify(out, 2);
    out << "\n";
    out.close();
    if (!out) throw cli_error(exit_error, "cannot write " + *file);
    std::cout << (a.options().json ? "{\"exported\": \"" + *file + "\"}\n"
                                   : "Wrote " + row.key + " to " + *file + "\n");
    return exit_ok;
}

// A profile file is a few KiB; anything past this is not one (and /dev/zero never ends).
constexpr size_t max_profile_file_bytes = 4u << 20;

std::string read_profile_file(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw cli_error(exit_error, "cannot read " + file);
    std::string text(max_profile_file_bytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    if (text.size() > max_profile_file_bytes)
        throw cli_error(exit_error, file + " is larger than " + std::to_string(max_profile_file_bytes >> 20) +
                                        " MiB: not a profile file");
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) throw cli_error(exit_error, file + " is empty: a profile is a JSON object");
    if (text[first] != '{')
        throw cli_error(exit_error, file + " is not a JSON object (it starts with '" + text.substr(first, 1) +
                                        "'): a profile is one object, or {\"profiles\": [...]}");
    return text;
}

int import_profiles(app& a, const std::string& file) {
    auto root = parse_object(read_profile_file(file), file);
    std::vector<json_object> profiles;
    if (root->has("profiles")) {
        auto arr = root->getArray("profiles");
        if (!arr) throw cli_error(exit_error, file + ": 'profiles' must be an array");
        for (unsigned i = 0; i < arr->size(); ++i) {
            auto p = arr->getObject(i);
            if (!p) throw cli_error(exit_error, file + ": profiles[" + std::to_string(i) + "] is not an object");
            profiles.push_back(p);
        }
    } else {
        profiles.push_back(root);
    }
    auto& s = a.session();
    // Check every profile first: one bad profile and nothing is written.
    struct plan {
        std::string key;
        std::optional<core::gpu_profile_row> existing;
        json_object profile;
    };
    std::vector<plan> plans;
    for (size_t i = 0; i < profiles.size(); ++i) {
        const auto& p = profiles[i];
        const std::string where = file + (profiles.size() > 1 ? " profiles[" + std::to_string(i) + "]" : "");
        try {
            validate(s, p);
        } catch (const cli_error& e) {
            throw cli_error(exit_error, where + ": " + e.what());
        }
        plan pl{p->getValue<std::string>("key"), std::nullopt, p};
        std::lock_guard lock(s.store_mutex());
        pl.existing = core::find_gpu_profile_by_key(s.db(), pl.key);
        if (pl.existing && to_text(p->get("pci_device_id")) !=
                               to_text(parse_object(pl.existing->data, "profile")->get("pci_device_id")))
            throw cli_error(exit_error,
                            where + ": key '" + pl.key + "' belongs to another PCI device id; nothing was changed");
        plans.push_back(pl);
    }
    size_t overrides = 0, added = 0;
    {
        std::lock_guard lock(s.store_mutex());
        s.db().write([&] {
            for (const auto& pl : plans) {
                if (!pl.existing) {
                    core::gpu_profile_row row;
                    row.key = pl.key;
                    row.name = pl.profile->getValue<std::string>("name");
                    row.data = to_text(pl.profile);
                    row.source = "import " + file;
                    const std::string id = pl.profile->get("pci_device_id").convert<std::string>();
                    row.pci_device_id = id.rfind("0x", 0) == 0 ? std::stoi(id.substr(2), nullptr, 16) : std::stoi(id);
                    core::put_gpu_profiles(s.db(), {row});
                    ++added;
                    continue;
                }
                // A model the family seeded: what differs becomes overrides (the seed stays whole).
                auto seed = parse_object(pl.existing->data, "the stored profile");
                const std::string scope = core::gpu_profile_scope(pl.key);
                for (const auto& name : pl.profile->getNames()) {
                    if (name == "sources" || name == "key" || name == "pci_device_id") continue;
                    const std::string v = to_text(pl.profile->get(name));
                    const bool same = seed->has(name) && to_text(seed->get(name)) == v;
                    if (same) {
                        core::erase_setting(s.db(), scope, name);
                    } else if (core::get_setting(s.db(), scope, name) != v) {
                        core::set_setting(s.db(), scope, name, v, "import " + file);
                        ++overrides;
                    }
                }
            }
        });
    }
    s.record_event(
        "", "EGPU", CB_SEVERITY_INFO, "profile.import",
        file + ": " + std::to_string(added) + " profile(s) added, " + std::to_string(overrides) + " override(s) set");
    if (a.options().json) {
        auto o = make_object();
        o->set("file", file);
        o->set("profiles", plans.size());
        o->set("added", added);
        o->set("overrides", overrides);
        print_json(o);
    } else {
        std::cout << file << ": " << plans.size() << " profile(s) checked; " << added << " added, " << overrides
                  << " override(s) set\n";
    }
    return exit_ok;
}

int run_profile(app& a, const std::vector<std::string>& args) {
    if (args.empty()) throw usage_error("missing subcommand (list, show, set, reset, import, export)");
    const std::string& sub = args[0];
    const size_t n = args.size();
    if (sub == "list" || sub == "ls") {
        if (n != 1) throw usage_error("profile list takes no arguments");
        return list(a);
    }
    if (sub == "show") {
        if (n != 2) throw usage_error("profile show needs one MODEL");
        return show(a, args[1]);
    }
    if (sub == "set") {
        if (n != 4) throw usage_error("profile set needs MODEL KEY VALUE");
        return set(a, args[1], args[2], args[3]);
    }
    if (sub == "reset") {
        if (n != 2 && n != 3) throw usage_error("profile reset needs MODEL and optionally KEY");
        return reset(a, args[1], n == 3 ? std::optional(args[2]) : std::nullopt);
    }
    if (sub == "import") {
        if (n != 2) throw usage_error("profile import needs one FILE");
        return import_profiles(a, args[1]);
    }
    if (sub == "export") {
        if (n != 2 && n != 3) throw usage_error("profile export needs MODEL and optionally FILE");
        return export_profile(a, args[1], n == 3 ? std::optional(args[2]) : std::nullopt);
    }
    throw usage_error("unknown subcommand '" + sub + "' (list, show, set, reset, import, export)");
}

}  // namespace

command profile_command() {
    return {"profile",
            "",
            "GPU model profiles and your overrides",
            "profile list | show MODEL | set MODEL KEY VALUE | reset MODEL [KEY] | import FILE | export MODEL [FILE]",
            "list    every stored profile (seeded by the GPU family, or imported), with its override count\n"
            "show    one profile's effective fields: the value, whether it comes from the profile or an\n"
            "        override, and where the figure comes from\n"
            "set     override one field (typed and range-checked by the GPU family; a unit, if given,\n"
            "        must be the field's: 350W, 2100MHz, 24G); applied on the next connect: the power and\n"
            "        clock bounds 'config' accepts, the simulated GPU's VRAM, SMs and limits\n"
            "reset   drop the overrides of a profile (or of one KEY)\n"
            "import  a profile JSON (one object, or {\"profiles\": [...]}): a new model is added; for a\n"
            "        seeded one, what differs becomes overrides. Checked whole first: unknown keys and\n"
            "        values out of range are refused, with the key named, and nothing is changed\n"
            "export  a profile as JSON (with the overrides applied), to FILE or stdout\n"
            "MODEL is a profile key (rtx-5090) or a PCI device id (0x2b85).\n"
            "Examples:\n"
            "  cudabridge-cli profile list\n"
            "  cudabridge-cli profile set rtx-5090 power_max_w 600\n"
            "  cudabridge-cli profile export rtx-4090 rtx-4090.json",
            false,
            run_profile};
}

}  // namespace cudabridge::cli
